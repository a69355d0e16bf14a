/**
 * The business cloud API's webhook: verify X-Hub-Signature-256 over the raw body first, then
 * normalize its entries into Parley's inbound events. Messages and statuses name their number
 * (metadata.phone_number_id); template, account and number-quality reports name the business account
 * (entry.id, or waba_info.waba_id where a partner event gives it) and, for quality, the display number.
 * The mapping of account and quality reports to channel health is in docs/channels.md.
 */
import { classifyGraphError } from './errors.ts';
import type { InboundEvent, InboundMedia, ProviderInbound } from '../provider.ts';
import { toStorableJson } from '../../lib/text.ts';
import { verifyBodySignature } from '../signature.ts';
import { templateStatusName } from './mapping.ts';

export const SIGNATURE_HEADER = 'x-hub-signature-256';

export function verifyOfficialSignature(rawBody: Buffer, header: string | undefined, appSecrets: readonly string[]): boolean {
  return verifyBodySignature(rawBody, header, appSecrets);
}

type Json = Record<string, any>;

const seconds = (value: unknown): Date => {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? new Date(n * 1000) : new Date();
};
const optionalSeconds = (value: unknown): Date | undefined => {
  const n = Number(value);
  return value !== undefined && Number.isFinite(n) && n > 0 ? new Date(n * 1000) : undefined;
};
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;

/** Only the keys given, and only those present. */
function pick(source: unknown, keys: readonly string[]): Json {
  if (!isObject(source)) return {};
  return Object.fromEntries(keys.filter((k) => source[k] !== undefined && source[k] !== null).map((k) => [k, source[k]]));
}

/** Deep enough for any form, and well inside what a stored delivery may nest (lib/text.ts). */
const RESPONSE_DEPTH = 16;

const REFERRAL_FIELDS = [
  'source_url',
  'source_id',
  'source_type',
  'headline',
  'body',
  'media_type',
  'image_url',
  'video_url',
  'thumbnail_url',
  'ctwa_clid',
  'welcome_message',
];

/**
 * response_json of a flow or address reply, parsed (kept as the string the provider sent when it is
 * not JSON, or nests too deep to store); text the database cannot store becomes U+FFFD, as in the body.
 */
function parsedResponse(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return toStorableJson(JSON.parse(raw) as unknown, RESPONSE_DEPTH) ?? raw;
  } catch {
    return raw;
  }
}

function interactiveReply(interactive: Json | undefined): Json {
  const kind = str(interactive?.type);
  const reply = kind && isObject(interactive?.[kind]) ? (interactive![kind] as Json) : {};
  if (kind === 'nfm_reply') {
    return {
      type: kind,
      ...pick(reply, ['name', 'body']),
      ...(reply.response_json !== undefined ? { response_json: parsedResponse(reply.response_json) } : {}),
    };
  }
  return { type: kind, id: reply.id, title: reply.title, ...(reply.description ? { description: reply.description } : {}) };
}

/** A failed status's error, classified as a refused send's would be (whom it concerns). */
function statusError(err: Json): NonNullable<Extract<InboundEvent, { kind: 'message.status' }>['error']> {
  const { scope, channelFault, templateStatus } = classifyGraphError(400, { error: { code: err.code, message: err.message ?? err.title } });
  return {
    code: String(err.code),
    title: String(err.title ?? err.message ?? 'failed'),
    message: err.error_data?.details ?? err.message,
    ...(scope && scope !== 'message' ? { scope } : {}),
    ...(channelFault ? { channelFault } : {}),
    ...(templateStatus ? { templateStatus } : {}),
  };
}

function errorsOf(errors: unknown): Json[] {
  return (Array.isArray(errors) ? errors : []).filter(isObject).map((e) => ({
    code: String(e.code ?? ''),
    ...(e.title !== undefined ? { title: String(e.title) } : {}),
    ...(e.message !== undefined ? { message: String(e.message) } : {}),
    ...(isObject(e.error_data) && e.error_data.details !== undefined ? { details: String(e.error_data.details) } : {}),
  }));
}

const MEDIA_TYPES = new Set(['image', 'video', 'audio', 'document', 'sticker']);

/** Where an inbound message's media is downloaded from (the adapter's downloadMedia), for the media types. */
function inboundMedia(message: Json): InboundMedia | undefined {
  const type = String(message.type ?? '');
  if (!MEDIA_TYPES.has(type) || !isObject(message[type])) return undefined;
  const m: Json = message[type];
  if (!str(m.id)) return undefined;
  return {
    source: { media_id: String(m.id) },
    ...(str(m.mime_type) ? { mimeType: String(m.mime_type) } : {}),
    ...(str(m.filename) ? { fileName: String(m.filename) } : {}),
  };
}

/** One inbound message's content in Parley's shape (what GET /v1/messages/{id} shows). */
function inboundContent(message: Json): { type: string; content: Json } {
  const type = String(message.type ?? 'unknown');
  switch (type) {
    case 'text':
      return { type, content: { body: message.text?.body ?? '' } };
    case 'interactive':
      return { type, content: interactiveReply(message.interactive) };
    case 'button':
      return { type: 'interactive', content: { type: 'button_reply', id: message.button?.payload, title: message.button?.text } };
    case 'location':
      return { type, content: pick(message.location, ['latitude', 'longitude', 'name', 'address', 'url']) };
    case 'image':
    case 'video':
    case 'audio':
    case 'document':
    case 'sticker': {
      const m: Json = isObject(message[type]) ? message[type] : {};
      return {
        type,
        content: {
          media_id: m.id,
          mime_type: m.mime_type,
          ...(m.sha256 ? { sha256: m.sha256 } : {}),
          ...(m.caption ? { caption: m.caption } : {}),
          ...(m.filename ? { file_name: m.filename } : {}),
          ...(typeof m.voice === 'boolean' ? { voice: m.voice } : {}),
          ...(typeof m.animated === 'boolean' ? { animated: m.animated } : {}),
        },
      };
    }
    case 'reaction':
      return { type, content: { message_id: message.reaction?.message_id, reaction: message.reaction?.emoji ?? '' } };
    case 'contacts':
      return { type: 'contact', content: { contacts: message.contacts ?? [] } };
    case 'order':
      return { type, content: pick(message.order, ['catalog_id', 'text', 'product_items']) };
    case 'unsupported':
    case 'unknown':
      return { type: 'unsupported', content: { errors: errorsOf(message.errors) } };
    default:
      return { type, content: { ...(isObject(message[type]) ? message[type] : {}) } };
  }
}

/** What the message says beyond its content: the ad that started the chat, the product asked about. */
function originOf(message: Json): Json {
  return {
    ...(isObject(message.referral) ? { referral: pick(message.referral, REFERRAL_FIELDS) } : {}),
    ...(isObject(message.context?.referred_product)
      ? { referred_product: pick(message.context.referred_product, ['catalog_id', 'product_retailer_id']) }
      : {}),
  };
}

const NUMBER_CHANGES = new Set(['user_changed_number', 'customer_changed_number']);

function messageEvents(ref: string, value: Json): InboundEvent[] {
  const out: InboundEvent[] = [];
  const names = new Map<string, { name?: string; userId?: string }>(
    (Array.isArray(value.contacts) ? value.contacts : [])
      .filter(isObject)
      .map((c: Json) => [String(c.wa_id), { name: c.profile?.name, userId: c.user_id }]),
  );
  for (const status of Array.isArray(value.statuses) ? value.statuses : []) {
    const s = String(status?.status);
    if (s !== 'sent' && s !== 'delivered' && s !== 'read' && s !== 'failed') continue;
    const err = status.errors?.[0];
    out.push({
      kind: 'message.status',
      ref,
      providerMessageId: String(status.id),
      status: s,
      timestamp: seconds(status.timestamp),
      ...(typeof status.biz_opaque_callback_data === 'string' ? { callbackData: status.biz_opaque_callback_data } : {}),
      ...(err ? { error: statusError(err) } : {}),
    });
  }
  for (const message of Array.isArray(value.messages) ? value.messages : []) {
    if (!isObject(message)) continue;
    const from = String(message.from ?? '');
    if (message.type === 'system') {
      const system: Json = isObject(message.system) ? message.system : {};
      const to = str(system.wa_id) ?? str(system.new_wa_id);
      // Other system notices (a changed security code) change nothing Parley keeps.
      if (NUMBER_CHANGES.has(String(system.type)) && to && from) {
        out.push({
          kind: 'contact.number_changed',
          ref,
          providerMessageId: String(message.id),
          from,
          to,
          timestamp: seconds(message.timestamp),
          ...(str(system.body) ? { description: String(system.body) } : {}),
        });
      }
      continue;
    }
    const { type, content } = inboundContent(message);
    const media = inboundMedia(message);
    const profile = names.get(from);
    out.push({
      kind: 'message.inbound',
      ref,
      providerMessageId: String(message.id),
      from,
      profileName: profile?.name,
      identities: [
        { type: 'chatapp_id', value: from },
        ...(profile?.userId ? [{ type: 'business_scoped_user_id', value: String(profile.userId) }] : []),
      ],
      timestamp: seconds(message.timestamp),
      type,
      content: { ...content, ...originOf(message) },
      replyTo: message.context?.id,
      ...(media ? { media } : {}),
    });
  }
  return out;
}

type Health = Pick<Extract<InboundEvent, { kind: 'channel.health' }>, 'effect' | 'code' | 'message' | 'lifts'>;

/** account_update: what each documented event means for the account's numbers (docs/channels.md). */
function accountHealth(value: Json): Health | undefined {
  const event = String(value.event ?? '');
  switch (event) {
    case 'ACCOUNT_DELETED':
      return { effect: 'blocked', code: event, message: 'the business account was deleted' };
    case 'ACCOUNT_OFFBOARDED':
      return { effect: 'blocked', code: event, message: 'the business account was offboarded (the number was registered elsewhere)' };
    case 'ACCOUNT_RECONNECTED':
      return { effect: 'restored', code: event, message: 'the business account was reconnected', lifts: ['ACCOUNT_OFFBOARDED'] };
    case 'PARTNER_APP_UNINSTALLED':
    case 'PARTNER_REMOVED':
      return { effect: 'blocked', code: event, message: "the business withdrew this app's access to its account" };
    case 'PARTNER_APP_INSTALLED':
    case 'PARTNER_ADDED':
      return {
        effect: 'restored',
        code: event,
        message: 'the business granted this app access to its account',
        lifts: ['PARTNER_APP_UNINSTALLED', 'PARTNER_REMOVED'],
      };
    case 'ACCOUNT_VIOLATION': {
      const type = str(value.violation_info?.violation_type);
      return {
        effect: 'degraded',
        code: event,
        message: `the business account violated the provider's policies${type ? ` (${type})` : ''}`,
      };
    }
    case 'DISABLED_UPDATE': {
      const state = String(value.ban_info?.waba_ban_state ?? '');
      const date = str(value.ban_info?.waba_ban_date);
      const code = `${event}/${state}`;
      if (state === 'DISABLE') return { effect: 'blocked', code, message: `the business account was disabled${date ? ` on ${date}` : ''}` };
      if (state === 'REINSTATE')
        return { effect: 'restored', code, message: 'the business account was reinstated', lifts: [`${event}/DISABLE`] };
      return { effect: 'degraded', code, message: `the business account is scheduled to be disabled${date ? ` (${date})` : ''}` };
    }
    case 'ACCOUNT_RESTRICTION': {
      const given = value.restriction_info ?? value.restrictions;
      const types = (Array.isArray(given) ? given : [given]).filter(isObject).map((r) => String(r.restriction_type ?? ''));
      const code = `${event}/${types.join('+')}`;
      // Customer-initiated messaging restricted: even replies fail. Otherwise replies still go out.
      const blocked = types.includes('RESTRICTED_CUSTOMER_INITIATED_MESSAGING');
      return {
        effect: blocked ? 'blocked' : 'degraded',
        code,
        message: `the business account is restricted (${types.join(', ') || 'unspecified'})`,
      };
    }
    default:
      return undefined;
  }
}

/** phone_number_quality_update: a flag or a lowered limit is a warning; the number can still send. */
function qualityHealth(value: Json): Health | undefined {
  const event = String(value.event ?? '');
  if (event === 'FLAGGED')
    return { effect: 'degraded', code: event, message: 'the number was flagged for low quality; its messaging limit may be lowered' };
  if (event === 'DOWNGRADE') {
    const limits = [str(value.old_limit), str(value.current_limit) ?? str(value.max_daily_conversations_per_business)];
    return {
      effect: 'degraded',
      code: event,
      message: `the number's messaging limit was lowered${limits[1] ? ` to ${limits[1]}` : ''}${limits[0] ? ` (was ${limits[0]})` : ''}`,
    };
  }
  return undefined;
}

function templateRef(value: Json) {
  return {
    providerTemplateId: String(value.message_template_id ?? ''),
    ...(str(value.message_template_name) ? { name: String(value.message_template_name) } : {}),
    ...(str(value.message_template_language) ? { language: String(value.message_template_language) } : {}),
  };
}

export function normalizeOfficialWebhook(payload: unknown): InboundEvent[] {
  const body = payload as Json;
  const out: InboundEvent[] = [];
  for (const entry of Array.isArray(body?.entry) ? body.entry : []) {
    const entryAccount = str(entry?.id) ?? '';
    const time = optionalSeconds(entry?.time);
    for (const change of Array.isArray(entry?.changes) ? entry.changes : []) {
      const value: Json = isObject(change?.value) ? change.value : {};
      switch (change?.field) {
        case 'messages': {
          const ref = String(value.metadata?.phone_number_id ?? '');
          if (ref) out.push(...messageEvents(ref, value));
          break;
        }
        case 'message_template_status_update':
          out.push({
            kind: 'template.status',
            account: entryAccount,
            ...templateRef(value),
            status: templateStatusName(String(value.event ?? '')),
            reason: value.reason && value.reason !== 'NONE' ? String(value.reason) : undefined,
            ...(str(value.message_template_category) ? { category: String(value.message_template_category).toUpperCase() } : {}),
          });
          break;
        case 'template_category_update':
          if (str(value.new_category))
            out.push({
              kind: 'template.category',
              account: entryAccount,
              ...templateRef(value),
              category: String(value.new_category).toUpperCase(),
            });
          break;
        case 'message_template_quality_update':
          if (str(value.new_quality_score)) {
            out.push({
              kind: 'template.quality',
              account: entryAccount,
              ...templateRef(value),
              quality: String(value.new_quality_score),
              ...(str(value.previous_quality_score) ? { previousQuality: String(value.previous_quality_score) } : {}),
            });
          }
          break;
        case 'account_update': {
          const health = accountHealth(value);
          const account = str(value.waba_info?.waba_id) ?? entryAccount;
          const phone = str(value.display_phone_number) ?? str(value.phone_number);
          if (health && account)
            out.push({ kind: 'channel.health', account, ...(phone ? { phone } : {}), ...health, ...(time ? { timestamp: time } : {}) });
          break;
        }
        case 'phone_number_quality_update': {
          const health = qualityHealth(value);
          const phone = str(value.display_phone_number);
          if (health && entryAccount)
            out.push({
              kind: 'channel.health',
              account: entryAccount,
              ...(phone ? { phone } : {}),
              ...health,
              ...(time ? { timestamp: time } : {}),
            });
          break;
        }
        default:
          break;
      }
    }
  }
  return out;
}

export const officialInbound: ProviderInbound = {
  signatureHeader: SIGNATURE_HEADER,
  verify: verifyOfficialSignature,
  normalize: normalizeOfficialWebhook,
};
