/**
 * POST /sandbox/inbound: a customer writes to a sandbox-bound channel of the caller's organization.
 * The message is stored and delivered through the provider's own callback (an official webhook or a
 * gateway `message` event).
 */
import { randomBytes } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { channels, sandboxAccounts, sandboxGroups, sandboxMedia, sandboxMessages } from '../db/schema.ts';
import { GROUP_RECIPIENT } from '../providers/capabilities.ts';
import { isUuid } from '../lib/ids.ts';
import type { InboundBody } from './callbacks/inbound.ts';
import type { SandboxContext } from './context.ts';
import { fail, gateway, ok, type GatewayResult } from './errors.ts';
import { gatewayMessageId, numericId, wamid } from './ids.ts';
import { SAMPLE_PDF_BASE64, SAMPLE_PNG_BASE64 } from './media.ts';
import { normalizePhone } from './rules.ts';

type Json = Record<string, unknown>;

const DEFAULT_PROFILE_NAME = 'Sandbox Customer';

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmpty(value: unknown, max = 4096): value is string {
  return typeof value === 'string' && value.trim() !== '' && value.length <= max;
}

/** The content of an inbound message of `type`, normalized; a string names what is wrong. */
function normalizeContent(type: unknown, content: unknown): Json | string {
  if (!isObject(content)) return 'content must be an object';
  switch (type) {
    case 'text':
      return nonEmpty(content.body) ? { body: content.body } : 'content.body must be a non-empty string';
    case 'interactive':
      if (content.type !== 'button_reply' && content.type !== 'list_reply') return 'content.type must be button_reply or list_reply';
      if (!nonEmpty(content.id, 256) || !nonEmpty(content.title, 72)) return 'content.id and content.title are required';
      if (content.description !== undefined && (content.type !== 'list_reply' || !nonEmpty(content.description, 72))) {
        return 'content.description is a list row description (list_reply only, up to 72 characters)';
      }
      return {
        type: content.type,
        id: content.id,
        title: content.title,
        ...(content.description !== undefined ? { description: content.description } : {}),
      };
    case 'button':
      // A template's quick-reply button (official channels): its label, and its payload (the label unless the send set one).
      if (!nonEmpty(content.text, 25)) return 'content.text (the button label) must be a non-empty string of at most 25 characters';
      if (content.payload !== undefined && !nonEmpty(content.payload, 1000)) return 'content.payload must be a non-empty string';
      return { text: content.text, payload: content.payload ?? content.text };
    case 'location': {
      const { latitude, longitude } = content;
      if (typeof latitude !== 'number' || latitude < -90 || latitude > 90) return 'content.latitude must be a number from -90 to 90';
      if (typeof longitude !== 'number' || longitude < -180 || longitude > 180)
        return 'content.longitude must be a number from -180 to 180';
      for (const field of ['name', 'address']) {
        if (content[field] !== undefined && typeof content[field] !== 'string') return `content.${field} must be a string`;
      }
      return Object.fromEntries(
        ['latitude', 'longitude', 'name', 'address'].filter((k) => content[k] !== undefined).map((k) => [k, content[k]]),
      );
    }
    case 'image':
    case 'video':
    case 'document':
    case 'audio':
    case 'sticker': {
      const captioned = type === 'image' || type === 'video' || type === 'document';
      if (content.caption !== undefined && (!captioned || typeof content.caption !== 'string' || content.caption.length > 1024)) {
        return captioned ? 'content.caption must be a string of at most 1024 characters' : `content.caption is not for ${type}`;
      }
      if (content.file_name !== undefined && (type !== 'document' || !nonEmpty(content.file_name, 240))) {
        return type === 'document'
          ? 'content.file_name must be a non-empty string of at most 240 characters'
          : 'content.file_name is for documents only';
      }
      return Object.fromEntries(['caption', 'file_name'].filter((k) => content[k] !== undefined).map((k) => [k, content[k]]));
    }
    case 'order':
      return normalizeOrder(content);
    default:
      return `type must be one of text, interactive, button, location, order, ${MEDIA_TYPES.join(', ')}`;
  }
}

/**
 * A cart sent from a catalog, as the official provider delivers it: `{catalog_id, text?, product_items:
 * [{product_retailer_id, quantity, item_price, currency}]}`, prices in major units (12.5). Kept as
 * given beyond the shape, so a test can play an order Parley must refuse to turn into one (two currencies).
 */
function normalizeOrder(content: Json): Json | string {
  if (!nonEmpty(content.catalog_id, 128)) return 'content.catalog_id must be a non-empty string';
  if (content.text !== undefined && (typeof content.text !== 'string' || content.text.length > 4096))
    return 'content.text must be a string of at most 4096 characters';
  const items = content.product_items;
  if (!Array.isArray(items) || items.length === 0 || items.length > 100) return 'content.product_items must be an array of 1 to 100 items';
  const products: Json[] = [];
  for (const [i, item] of items.entries()) {
    if (!isObject(item)) return `content.product_items[${i}] must be an object`;
    if (!nonEmpty(item.product_retailer_id, 200)) return `content.product_items[${i}].product_retailer_id must be a non-empty string`;
    if (!Number.isInteger(item.quantity) || (item.quantity as number) < 1)
      return `content.product_items[${i}].quantity must be a whole number from 1`;
    if (typeof item.item_price !== 'number' || !Number.isFinite(item.item_price) || item.item_price < 0)
      return `content.product_items[${i}].item_price must be a number (major units, such as 12.5)`;
    if (typeof item.currency !== 'string' || !/^[A-Za-z]{3}$/.test(item.currency))
      return `content.product_items[${i}].currency must be an ISO 4217 code`;
    products.push({
      product_retailer_id: item.product_retailer_id,
      quantity: item.quantity,
      item_price: item.item_price,
      currency: item.currency,
    });
  }
  return { catalog_id: content.catalog_id, ...(content.text !== undefined ? { text: content.text } : {}), product_items: products };
}

const MEDIA_TYPES = ['image', 'video', 'audio', 'document', 'sticker'];
/** The most bytes a test may give (the rest of a large media is padding). */
const MAX_DATA_BYTES = 768 * 1024;
/** The largest media a test may ask for (above every limit, to test them). */
const MAX_PADDED_BYTES = 128 * 1024 * 1024;

type MediaSpec = { data: string; mimeType: string; paddedSize: number | null };

/** The media of an inbound message of `type`: `media: {data?, mime_type?, size?}`, or the sample's; a string names what is wrong. */
function normalizeMedia(type: string, media: unknown): MediaSpec | string {
  if (media !== undefined && !isObject(media)) return 'media must be an object {data?, mime_type?, size?}';
  const m = (media ?? {}) as Json;
  let data: string;
  if (m.data !== undefined) {
    if (typeof m.data !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(m.data)) return 'media.data must be base64';
    if (Buffer.from(m.data, 'base64').length > MAX_DATA_BYTES)
      return `media.data must decode to at most ${MAX_DATA_BYTES} bytes (use media.size for larger media)`;
    data = m.data;
  } else if (type === 'image') data = SAMPLE_PNG_BASE64;
  else if (type === 'document') data = SAMPLE_PDF_BASE64;
  else return `media.data (the file's bytes as base64) is required for ${type}`;
  if (m.mime_type !== undefined && (typeof m.mime_type !== 'string' || !/^[a-z]+\/[A-Za-z0-9.+-]{1,100}$/.test(m.mime_type)))
    return 'media.mime_type must be a media type such as image/jpeg';
  const bytes = Buffer.from(data, 'base64').length;
  if (m.size !== undefined && (!Number.isInteger(m.size) || (m.size as number) < bytes || (m.size as number) > MAX_PADDED_BYTES)) {
    return `media.size must be a whole number of bytes from the data's length (${bytes}) to ${MAX_PADDED_BYTES}`;
  }
  const fallback =
    { image: 'image/png', document: 'application/pdf', video: 'video/mp4', audio: 'audio/ogg', sticker: 'image/webp' }[type] ??
    'application/octet-stream';
  return { data, mimeType: (m.mime_type as string | undefined) ?? fallback, paddedSize: (m.size as number | undefined) ?? null };
}

/**
 * What a linked device sees beside the content (gateway channels): `view_once` on image, video and audio,
 * `mentions` (phones) on text and media captions, `live` on a location (a live location), `forwarded`.
 */
function linkedDeviceMarks(type: string, content: Json): Json | string {
  const marks: Json = {};
  if (content.view_once !== undefined) {
    if (content.view_once !== true || !['image', 'video', 'audio'].includes(type))
      return 'content.view_once is true, on image, video or audio';
    marks.view_once = true;
  }
  if (content.mentions !== undefined) {
    const phones = Array.isArray(content.mentions) ? content.mentions.map((p) => normalizePhone(p)) : [];
    if (phones.length === 0 || phones.length > 50 || phones.some((p) => !p) || !['text', 'image', 'video', 'document'].includes(type))
      return 'content.mentions is a list of 1 to 50 phone numbers, on text or a captioned media message';
    marks.mentions = phones;
  }
  if (content.live !== undefined) {
    if (content.live !== true || type !== 'location') return 'content.live is true, on a location';
    marks.live = true;
  }
  if (content.forwarded !== undefined) {
    if (content.forwarded !== true) return 'content.forwarded is true';
    marks.forwarded = true;
  }
  return marks;
}

export function createInbound(ctx: SandboxContext) {
  const { clock } = ctx;
  return {
    async deliver(
      db: Executor,
      organizationId: string,
      body: unknown,
    ): Promise<GatewayResult<{ provider_message_id: string; delivered?: boolean }>> {
      if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {channel_id, from, type, content, media?}'));
      if (typeof body.channel_id !== 'string' || !isUuid(body.channel_id)) return fail(gateway.invalid('channel_id must be a channel id'));
      const from = normalizePhone(body.from);
      if (!from) return fail(gateway.invalid('from must be international digits without +'));
      const normalized = normalizeContent(body.type, body.content);
      if (typeof normalized === 'string') return fail(gateway.invalid(normalized));
      const type = body.type as string;
      const marks = linkedDeviceMarks(type, body.content as Json);
      if (typeof marks === 'string') return fail(gateway.invalid(marks));
      const content = { ...normalized, ...marks };
      const media = MEDIA_TYPES.includes(type)
        ? normalizeMedia(type, body.media)
        : body.media === undefined
          ? undefined
          : 'media is only for image, video, audio, document and sticker';
      if (typeof media === 'string') return fail(gateway.invalid(media));
      if (body.name !== undefined && !nonEmpty(body.name, 256)) return fail(gateway.invalid('name must be a non-empty string'));
      if (body.reply_to !== undefined && !nonEmpty(body.reply_to, 512))
        return fail(gateway.invalid('reply_to must be a provider message id'));
      if (body.group !== undefined && (typeof body.group !== 'string' || !GROUP_RECIPIENT.test(body.group)))
        return fail(gateway.invalid('group must be a group id <digits>@g.us'));
      if (body.status !== undefined && typeof body.status !== 'boolean') return fail(gateway.invalid('status must be true or false'));
      if (body.status === true && body.group !== undefined)
        return fail(gateway.invalid('a status post is in no group: give status or group'));

      const [channel] = await db
        .select()
        .from(channels)
        .where(and(eq(channels.id, body.channel_id), eq(channels.organizationId, organizationId)))
        .limit(1);
      const protocol = channel?.platform === 'chatapp_official' ? 'official' : 'gateway';
      if (protocol === 'official' && Object.keys(marks).length > 0)
        return fail(gateway.invalid('view_once, mentions, live and forwarded come through gateways only'));
      const [account] =
        channel?.sandbox && channel.providerRef
          ? await db
              .select()
              .from(sandboxAccounts)
              .where(and(eq(sandboxAccounts.id, channel.providerRef), eq(sandboxAccounts.protocol, protocol)))
              .limit(1)
          : [];
      // Another organization's channel, an unknown id and a channel that is not the sandbox's answer alike.
      if (!channel || !account) return fail(gateway.notFound('sandbox channel'));
      // A catalog's cart is the official provider's message; the gateways deliver none.
      if (type === 'order' && protocol !== 'official') return fail(gateway.invalid('order messages come through official channels only'));
      if (type === 'button' && protocol !== 'official')
        return fail(gateway.invalid("button messages (a template's quick reply) come through official channels only"));
      if (protocol === 'gateway' && account.status !== 'WORKING') {
        return fail(gateway.conflict('session_not_working', `the channel's gateway session is ${account.status}, not paired`));
      }
      // A member writes in a group the session is in: delivered only when the session keeps group messages (its settings).
      let group: string | undefined;
      if (body.group !== undefined) {
        if (protocol !== 'gateway') return fail(gateway.invalid('group messages come through gateways only'));
        const self = (account.displayPhoneNumber ?? '').replace(/\D/g, '');
        const [found] = await db
          .select()
          .from(sandboxGroups)
          .where(eq(sandboxGroups.id, body.group as string))
          .limit(1);
        if (!found || !found.participants.some((p) => p.phone === self)) return fail(gateway.notFound(`group ${body.group as string}`));
        if (account.settings.group_messages !== true) return ok({ provider_message_id: gatewayMessageId(), delivered: false });
        group = found.id;
      }
      // A contact posts a status (a story): delivered only when the session keeps status posts (its settings).
      if (body.status === true) {
        if (protocol !== 'gateway') return fail(gateway.invalid('status posts come through gateways only'));
        if (account.settings.status_messages !== true) return ok({ provider_message_id: gatewayMessageId(), delivered: false });
      }

      // The provider names the message an interactive reply answers (context.id): the one given, else the
      // last interactive message the business sent this customer.
      let replyTo = body.reply_to as string | undefined;
      if (replyTo === undefined && type === 'interactive' && protocol === 'official') {
        const [answered] = await db
          .select({ id: sandboxMessages.id })
          .from(sandboxMessages)
          .where(
            and(
              eq(sandboxMessages.accountId, account.id),
              eq(sandboxMessages.direction, 'outbound'),
              eq(sandboxMessages.recipient, from),
              eq(sandboxMessages.type, 'interactive'),
            ),
          )
          .orderBy(desc(sandboxMessages.createdAt))
          .limit(1);
        if (!answered)
          return fail(
            gateway.invalid(
              'reply_to is required: an interactive reply answers an interactive message, and none was sent to this customer',
            ),
          );
        replyTo = answered.id;
      }

      const now = clock.now();
      const id = protocol === 'official' ? wamid() : gatewayMessageId();
      const stored: InboundBody = {
        name: (body.name as string | undefined) ?? DEFAULT_PROFILE_NAME,
        timestamp: String(Math.floor(now.getTime() / 1000)),
        content: group ? { ...content, group: { id: group, participant: from } } : content,
        ...(body.status === true ? { chat: 'status@broadcast' } : {}),
        ...(replyTo !== undefined ? { reply_to: replyTo } : {}),
      };
      await db.transaction(async (tx) => {
        if (media) {
          stored.media_id = protocol === 'official' ? numericId() : `media_${randomBytes(10).toString('hex')}`;
          await tx.insert(sandboxMedia).values({
            id: stored.media_id,
            accountId: account.id,
            mimeType: media.mimeType,
            data: media.data,
            paddedSize: media.paddedSize,
            createdAt: now,
          });
        }
        await tx.insert(sandboxMessages).values({
          id,
          accountId: account.id,
          direction: 'inbound',
          recipient: from,
          type,
          body: stored as unknown as Json,
          // The session sends read receipts for what it delivers when Parley asks it to (settings.read_receipts).
          status: protocol === 'gateway' && account.settings.read_receipts === true ? 'read' : 'received',
          createdAt: now,
        });
        await ctx.enqueueCallback(tx, { kind: 'message.inbound', message_id: id }, 0);
      });
      return ok({ provider_message_id: id, ...(protocol === 'gateway' ? { delivered: true } : {}) });
    },
  };
}
