/**
 * The business cloud API's webhook: verify X-Hub-Signature-256 over the raw body first, then
 * normalize its entries into Parley's inbound events. Messages, statuses, change-level errors and
 * group events name their number (metadata.phone_number_id); template, account and number-quality
 * reports name the business account (entry.id, or waba_info.waba_id where a partner event gives it)
 * and, for quality, the display number. The mapping of account, quality and template reports is in
 * docs/channels.md.
 */
import { classifyGraphError } from './errors.ts';
import type { InboundEvent, InboundMedia, ProviderInbound, ReportedError, StatusConversation, StatusPricing } from '../provider.ts';
import { toStorableJson } from '../../lib/text.ts';
import { verifyBodySignature } from '../signature.ts';
import { templateEventDecision } from './mapping.ts';

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
  if (kind === 'call_permission_reply')
    return { type: kind, ...pick(reply, ['response', 'is_permanent', 'expiration_timestamp', 'response_source']) };
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

/** A change's own errors (value.errors), each with a title (the provider's, else its message, else its code). */
function reportedErrors(errors: unknown): ReportedError[] {
  return (Array.isArray(errors) ? errors : []).filter(isObject).map((e) => {
    const [one] = errorsOf([e]) as [Json];
    const title = String(one.title ?? one.message ?? `error ${String(one.code)}`);
    const { channelFault } = classifyGraphError(400, { error: { code: e.code, message: title } });
    return {
      code: String(one.code),
      title,
      ...(one.message !== undefined ? { message: String(one.message) } : {}),
      ...(one.details !== undefined ? { details: String(one.details) } : {}),
      ...(str(e.href) ? { href: String(e.href) } : {}),
      ...(channelFault ? { channelFault: true as const } : {}),
    };
  });
}

/** A status's pricing and billing conversation, as the provider sent them (only the documented fields). */
function billingOf(status: Json): { pricing?: StatusPricing; conversation?: StatusConversation } {
  const pricing = pick(status.pricing, ['billable', 'pricing_model', 'category', 'type']);
  const c: Json = isObject(status.conversation) ? status.conversation : {};
  const origin = str(c.origin?.type);
  return {
    ...(Object.keys(pricing).length > 0 ? { pricing: pricing as StatusPricing } : {}),
    ...(str(c.id)
      ? {
          conversation: {
            id: String(c.id),
            ...(str(c.expiration_timestamp) ? { expiration_timestamp: String(c.expiration_timestamp) } : {}),
            ...(origin ? { origin: { type: origin } } : {}),
          },
        }
      : {}),
  };
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
      // A template's quick-reply button: its own type, apart from an interactive button_reply.
      return { type, content: pick(message.button, ['payload', 'text']) };
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

/** What the message says beyond its content: the ad that started the chat, the product asked about, whether it was forwarded. */
function originOf(message: Json): Json {
  return {
    ...(isObject(message.referral) ? { referral: pick(message.referral, REFERRAL_FIELDS) } : {}),
    ...(isObject(message.context?.referred_product)
      ? { referred_product: pick(message.context.referred_product, ['catalog_id', 'product_retailer_id']) }
      : {}),
    ...(message.context?.forwarded === true ? { forwarded: true } : {}),
    ...(message.context?.frequently_forwarded === true ? { frequently_forwarded: true } : {}),
  };
}

const NUMBER_CHANGES = new Set(['user_changed_number', 'customer_changed_number']);
const IDENTITY_CHANGES = new Set(['customer_identity_changed', 'user_identity_changed']);

/** A system message: a changed number moves the contact; a changed identity is a notice in the chat. */
function systemEvent(ref: string, message: Json): InboundEvent | undefined {
  const from = String(message.from ?? '');
  const system: Json = isObject(message.system) ? message.system : {};
  const type = String(system.type ?? '');
  const to = str(system.wa_id) ?? str(system.new_wa_id);
  if (NUMBER_CHANGES.has(type) && to && from) {
    return {
      kind: 'contact.number_changed',
      ref,
      providerMessageId: String(message.id),
      from,
      to,
      timestamp: seconds(message.timestamp),
      ...(str(system.body) ? { description: String(system.body) } : {}),
    };
  }
  const customer = from || str(system.customer) || str(system.user);
  if (IDENTITY_CHANGES.has(type) && customer) {
    return {
      kind: 'message.inbound',
      ref,
      providerMessageId: String(message.id),
      from: customer,
      identities: [{ type: 'chatapp_id', value: customer }],
      timestamp: seconds(message.timestamp),
      type: 'system',
      content: { type, ...pick(system, ['body', 'identity']) },
      notice: true,
    };
  }
  return undefined;
}

function messageEvents(ref: string, value: Json): InboundEvent[] {
  const out: InboundEvent[] = [];
  const names = new Map<string, { name?: string; userId?: string }>(
    (Array.isArray(value.contacts) ? value.contacts : [])
      .filter(isObject)
      .map((c: Json) => [String(c.wa_id), { name: c.profile?.name, userId: c.user_id }]),
  );
  for (const status of Array.isArray(value.statuses) ? value.statuses : []) {
    const s = String(status?.status);
    if (s === 'deleted') {
      // The customer deleted a message they sent: the status names that inbound message.
      out.push({ kind: 'message.deleted', ref, providerMessageId: String(status.id), timestamp: seconds(status.timestamp) });
      continue;
    }
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
      ...billingOf(status),
    });
  }
  for (const message of Array.isArray(value.messages) ? value.messages : []) {
    if (!isObject(message)) continue;
    const from = String(message.from ?? '');
    if (message.type === 'system') {
      const event = systemEvent(ref, message);
      if (event) out.push(event);
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

/** The reason a template report gives: a pause's title and description, a rejection's details, a disabling's date. */
function templateReason(value: Json): string | undefined {
  const given = str(value.reason) && value.reason !== 'NONE' ? String(value.reason) : undefined;
  const other = isObject(value.other_info) ? [str(value.other_info.title), str(value.other_info.description)].filter(Boolean) : [];
  if (other.length > 0) return other.join(': ');
  const rejection = isObject(value.rejection_info)
    ? [str(value.rejection_info.reason), str(value.rejection_info.recommendation)].filter(Boolean).join(' ')
    : '';
  if (rejection) return given ? `${given}: ${rejection}` : rejection;
  const disabledOn = optionalSeconds(value.disable_info?.disable_date);
  if (disabledOn) return given ? `${given} (disabled on ${disabledOn.toISOString()})` : `disabled on ${disabledOn.toISOString()}`;
  return given;
}

/** message_template_status_update: the event's decision (mapping.ts); an undocumented event is a note. */
function templateStatus(account: string, value: Json): InboundEvent {
  const event = String(value.event ?? '').toUpperCase();
  const decision = templateEventDecision(event);
  const reason = templateReason(value);
  return {
    kind: 'template.status',
    account,
    ...templateRef(value),
    event,
    ...(decision?.status ? { status: decision.status } : {}),
    ...(decision?.archive ? { archive: true as const } : {}),
    ...(decision?.restore ? { restore: true as const } : {}),
    ...(decision?.flagged !== undefined ? { flagged: decision.flagged } : {}),
    ...(reason ? { reason } : {}),
    ...(str(value.message_template_category) ? { category: String(value.message_template_category).toUpperCase() } : {}),
    ...(decision ? {} : { unknown: true as const }),
  };
}

const GROUP_FIELDS = new Set(['group_lifecycle_update', 'group_settings_update', 'group_participants_update', 'group_participant_update']);
const GROUP_DETAILS = ['subject', 'description', 'added_participants', 'removed_participants', 'profile_picture', 'errors'];

/** The group webhooks: one update per `groups` item. */
function groupEvents(ref: string, field: string, value: Json): InboundEvent[] {
  return (Array.isArray(value.groups) ? value.groups : []).filter(isObject).flatMap((g: Json): InboundEvent[] =>
    str(g.group_id)
      ? [
          {
            kind: 'group.update',
            ref,
            field,
            groupId: String(g.group_id),
            change: String(g.type ?? field),
            ...(str(g.request_id) ? { requestId: String(g.request_id) } : {}),
            details: { ...pick(g, GROUP_DETAILS), ...(Array.isArray(g.errors) ? { errors: errorsOf(g.errors) } : {}) },
            timestamp: seconds(g.timestamp),
          },
        ]
      : [],
  );
}

/** Errors at the change level: the provider's system-, app- or account-level faults for the number. */
function changeErrors(ref: string, value: Json): InboundEvent[] {
  const errors = reportedErrors(value.errors);
  return errors.length > 0 ? [{ kind: 'channel.errors', ref, errors }] : [];
}

function templateRef(value: Json) {
  return {
    providerTemplateId: String(value.message_template_id ?? ''),
    ...(str(value.message_template_name) ? { name: String(value.message_template_name) } : {}),
    ...(str(value.message_template_language) ? { language: String(value.message_template_language) } : {}),
  };
}

/**
 * A `user_preferences` change: `{metadata, contacts: [{wa_id, profile: {name}}], user_preferences: [{wa_id,
 * detail, category: "marketing_messages", value: "stop" | "resume", timestamp}]}`; other categories are not read.
 */
function marketingPreferences(ref: string, value: Json): InboundEvent[] {
  const contacts: Json[] = Array.isArray(value.contacts) ? value.contacts : [];
  const out: InboundEvent[] = [];
  for (const p of Array.isArray(value.user_preferences) ? value.user_preferences : []) {
    const from = str(p?.wa_id);
    if (!from || p?.category !== 'marketing_messages' || (p.value !== 'stop' && p.value !== 'resume')) continue;
    const name = str(contacts.find((c) => c?.wa_id === from)?.profile?.name);
    out.push({
      kind: 'contact.marketing_preference',
      ref,
      from,
      ...(name ? { profileName: name } : {}),
      value: p.value,
      timestamp: optionalSeconds(p.timestamp) ?? new Date(),
    });
  }
  return out;
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
          if (ref) out.push(...changeErrors(ref, value), ...messageEvents(ref, value));
          break;
        }
        case 'user_preferences': {
          const ref = String(value.metadata?.phone_number_id ?? '');
          if (ref) out.push(...marketingPreferences(ref, value));
          break;
        }
        case 'message_template_status_update':
          out.push(templateStatus(entryAccount, value));
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
        default: {
          const ref = String(value.metadata?.phone_number_id ?? '');
          if (ref && GROUP_FIELDS.has(String(change?.field)))
            out.push(...changeErrors(ref, value), ...groupEvents(ref, String(change.field), value));
          break;
        }
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
