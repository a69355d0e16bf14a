/**
 * POST /sandbox/inbound: a customer writes to a sandbox-bound channel of the caller's organization.
 * The message is stored and delivered through the provider's own callback (an official webhook or a
 * gateway `message` event).
 */
import { randomBytes } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { channels, sandboxAccounts, sandboxMedia, sandboxMessages } from '../db/schema.ts';
import { isUuid } from '../lib/ids.ts';
import type { InboundBody } from './callbacks.ts';
import type { SandboxContext } from './context.ts';
import { fail, gateway, ok, type GatewayResult } from './errors.ts';
import { gatewayMessageId, numericId, wamid } from './ids.ts';
import { SAMPLE_PNG_BASE64 } from './media.ts';
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
      return { type: content.type, id: content.id, title: content.title, ...(content.description !== undefined ? { description: content.description } : {}) };
    case 'location': {
      const { latitude, longitude } = content;
      if (typeof latitude !== 'number' || latitude < -90 || latitude > 90) return 'content.latitude must be a number from -90 to 90';
      if (typeof longitude !== 'number' || longitude < -180 || longitude > 180) return 'content.longitude must be a number from -180 to 180';
      for (const field of ['name', 'address']) {
        if (content[field] !== undefined && typeof content[field] !== 'string') return `content.${field} must be a string`;
      }
      return Object.fromEntries(['latitude', 'longitude', 'name', 'address'].filter((k) => content[k] !== undefined).map((k) => [k, content[k]]));
    }
    case 'image':
      if (content.caption !== undefined && (typeof content.caption !== 'string' || content.caption.length > 1024)) return 'content.caption must be a string';
      return content.caption !== undefined ? { caption: content.caption } : {};
    default:
      return 'type must be one of text, interactive, location, image';
  }
}

export function createInbound(ctx: SandboxContext) {
  const { clock } = ctx;
  return {
    async deliver(db: Executor, organizationId: string, body: unknown): Promise<GatewayResult<{ provider_message_id: string }>> {
      if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {channel_id, from, type, content}'));
      if (typeof body.channel_id !== 'string' || !isUuid(body.channel_id)) return fail(gateway.invalid('channel_id must be a channel id'));
      const from = normalizePhone(body.from);
      if (!from) return fail(gateway.invalid('from must be international digits without +'));
      const content = normalizeContent(body.type, body.content);
      if (typeof content === 'string') return fail(gateway.invalid(content));
      const type = body.type as string;
      if (body.name !== undefined && !nonEmpty(body.name, 256)) return fail(gateway.invalid('name must be a non-empty string'));
      if (body.reply_to !== undefined && !nonEmpty(body.reply_to, 512)) return fail(gateway.invalid('reply_to must be a provider message id'));

      const [channel] = await db.select().from(channels).where(and(eq(channels.id, body.channel_id), eq(channels.organizationId, organizationId))).limit(1);
      const protocol = channel?.platform === 'chatapp_official' ? 'official' : 'gateway';
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
      if (protocol === 'gateway' && account.status !== 'WORKING') {
        return fail(gateway.conflict('session_not_working', `the channel's gateway session is ${account.status}, not paired`));
      }

      // The provider names the message an interactive reply answers (context.id): the one given, else the
      // last interactive message the business sent this customer.
      let replyTo = body.reply_to as string | undefined;
      if (replyTo === undefined && type === 'interactive' && protocol === 'official') {
        const [answered] = await db
          .select({ id: sandboxMessages.id })
          .from(sandboxMessages)
          .where(and(eq(sandboxMessages.accountId, account.id), eq(sandboxMessages.direction, 'outbound'), eq(sandboxMessages.recipient, from), eq(sandboxMessages.type, 'interactive')))
          .orderBy(desc(sandboxMessages.createdAt))
          .limit(1);
        if (!answered) return fail(gateway.invalid('reply_to is required: an interactive reply answers an interactive message, and none was sent to this customer'));
        replyTo = answered.id;
      }

      const now = clock.now();
      const id = protocol === 'official' ? wamid() : gatewayMessageId();
      const stored: InboundBody = {
        name: (body.name as string | undefined) ?? DEFAULT_PROFILE_NAME,
        timestamp: String(Math.floor(now.getTime() / 1000)),
        content,
        ...(replyTo !== undefined ? { reply_to: replyTo } : {}),
      };
      await db.transaction(async (tx) => {
        if (type === 'image') {
          stored.media_id = protocol === 'official' ? numericId() : `media_${randomBytes(10).toString('hex')}`;
          await tx.insert(sandboxMedia).values({ id: stored.media_id, accountId: account.id, mimeType: 'image/png', data: SAMPLE_PNG_BASE64, createdAt: now });
        }
        await tx.insert(sandboxMessages).values({
          id,
          accountId: account.id,
          direction: 'inbound',
          recipient: from,
          type,
          body: stored as unknown as Json,
          status: 'received',
          createdAt: now,
        });
        await ctx.enqueueCallback(tx, { kind: 'message.inbound', message_id: id }, 0);
      });
      return ok({ provider_message_id: id });
    },
  };
}
