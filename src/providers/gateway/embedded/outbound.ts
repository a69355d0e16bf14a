/**
 * Sending through the embedded engine: Parley's message types and content (domain/messages/content.ts)
 * to the linked-device library's message content and calls (docs/channels.md, "Embedded engine:
 * message mapping"). Media named by URL is fetched here, under the target policy, and handed to the
 * library as bytes: the library never fetches a URL itself (it would not check where it points), and
 * text never lets it build a link preview by fetching the link.
 */
import type { AnyMessageContent, MiscMessageGenerationOptions, WAMessage, WAMessageKey, WAPresence, WAUrlInfo } from 'baileys';
import { isAnimatedWebp, MEDIA_RULES, STATIC_STICKER_MAX } from '../../../domain/messages/media.ts';
import { safeFetch, UnsafeTargetError, type TargetPolicy } from '../../../lib/safe-fetch.ts';
import type { MessageType } from '../../capabilities.ts';
import type { OutboundMessage, ProviderError, Result } from '../../provider.ts';
import { jidOfPhone, libraryMessageId, pollSecret } from './ids.ts';
import { formatSimplified, SIMPLIFIED_TYPES, type Simplified } from './simplified.ts';
import type { EngineSocket } from './socket.ts';

/**
 * The types the engine answers from Parley's own records, calling nothing (planOf): the service has no
 * status query, and inbound media was downloaded when it arrived. The support matrix row lists them as
 * Parley's (source: parley).
 */
export const EMBEDDED_PARLEY_TYPES = ['message_status_query', 'message_media_download'] as const satisfies readonly MessageType[];

export type OutboundContext = {
  targets: TargetPolicy; // where media URLs may be fetched (src/lib/safe-fetch.ts)
  self?: { phone: string }; // the paired number, digits
  /** The last status Parley holds for one of this channel's messages by provider id (message_status_query). */
  statusOf?(providerMessageId: string): Promise<string | undefined>;
  /**
   * The engine's secret for poll votes (any 32 bytes it can give again after a restart, e.g. derived
   * from the service's encryption key). A poll sent with it can have its votes read (inbound.ts, same
   * key); without it the library picks a random secret and votes cannot be read.
   */
  pollKey?: Uint8Array;
  /** One socket call's time limit (default 60 s); past it the answer counts as lost (code `timeout`). */
  timeoutMs?: number;
};

/** The name the engine's adapter knew this context by. */
export type SendContext = OutboundContext;

type Json = Record<string, unknown>;
type Ok<T> = { ok: true; value: T };
const ok = <T>(value: T): Ok<T> => ({ ok: true, value });
const fail = (error: ProviderError): { ok: false; error: ProviderError } => ({ ok: false, error });

const DEFAULT_TIMEOUT_MS = 60_000;
const MEDIA_FETCH_TIMEOUT_MS = 30_000;
/** A link preview's thumbnail is decoration: a larger one is left out rather than failing the message. */
const THUMBNAIL_MAX_BYTES = 300 * 1024;

const PRESENCE: Record<string, WAPresence> = {
  typing: 'composing',
  recording: 'recording',
  paused: 'paused',
  available: 'available',
  unavailable: 'unavailable',
};

/** What one message becomes: a message, a read receipt, a presence, or an answer with no call. */
type Plan =
  | { kind: 'send'; content: AnyMessageContent; options?: MiscMessageGenerationOptions }
  | { kind: 'read'; keys: WAMessageKey[] }
  | { kind: 'presence'; presence: WAPresence; global: boolean }
  | { kind: 'answered' };

/**
 * Sends one message through the socket. The library's message id (`key.id`, which Parley chooses:
 * ids.ts libraryMessageId) is the provider message id; read receipts, presences and the answers that
 * need no call have none.
 */
export async function sendThroughSocket(
  socket: EngineSocket,
  message: OutboundMessage,
  context: OutboundContext,
): Promise<Result<{ providerMessageId?: string }>> {
  const to = message.to.replace(/^\+/, '');
  if (!/^\d{5,20}$/.test(to))
    return fail({ code: 'invalid_recipient', title: `${message.to} is not a phone number in international digits`, retryable: false });
  let plan: Result<Plan>;
  try {
    plan = await planOf(message, to, context);
  } catch (err) {
    return fail(classifyLibraryError(err));
  }
  if (!plan.ok) return plan;
  const step = plan.value;
  const timeoutMs = context.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  try {
    switch (step.kind) {
      case 'answered':
        return ok({});
      case 'read':
        await withTimeout(socket.readMessages(step.keys), timeoutMs);
        return ok({});
      case 'presence': {
        if (step.global) {
          await withTimeout(socket.sendPresenceUpdate(step.presence), timeoutMs);
          return ok({});
        }
        const jid = await recipientJid(socket, to, timeoutMs);
        if (!jid.ok) return jid;
        await withTimeout(socket.sendPresenceUpdate(step.presence, jid.value), timeoutMs);
        return ok({});
      }
      case 'send': {
        const jid = await recipientJid(socket, to, timeoutMs);
        if (!jid.ok) return jid;
        const content = retarget(step.content, jid.value);
        const options = step.options?.quoted
          ? { ...step.options, quoted: { ...step.options.quoted, key: { ...step.options.quoted.key, remoteJid: jid.value } } }
          : step.options;
        const sent = await withTimeout(
          socket.sendMessage(jid.value, content, { ...options, messageId: libraryMessageId(message.id) }),
          timeoutMs,
        );
        const id = sent?.key?.id;
        if (!id)
          return fail({
            code: 'no_message_id',
            title: 'the library sent nothing for this message (it returned no message)',
            retryable: false,
          });
        return ok({ providerMessageId: id });
      }
      default:
        return step satisfies never;
    }
  } catch (err) {
    return fail(classifyLibraryError(err));
  }
}

/** Keys naming a message in the chat point at the address the service gave for the number (it may differ from the digits given). */
function retarget(content: AnyMessageContent, jid: string): AnyMessageContent {
  const c = content as Json;
  for (const field of ['edit', 'delete'] as const) {
    if (c[field] && typeof c[field] === 'object') return { ...c, [field]: { ...(c[field] as Json), remoteJid: jid } } as AnyMessageContent;
  }
  if (c.react && typeof c.react === 'object') {
    const react = c.react as Json;
    return { ...c, react: { ...react, key: { ...(react.key as Json), remoteJid: jid } } } as AnyMessageContent;
  }
  return content;
}

// ---------------------------------------------------------------------------------------------------
// Recipients: asked once, remembered briefly.

type Known = { jid?: string; until: number };
const RECIPIENT_TTL_MS = 10 * 60_000;
/** A number that is not on the service may join it; asked again sooner. */
const ABSENT_TTL_MS = 60_000;
const RECIPIENT_CACHE_MAX = 5_000;
const recipients = new WeakMap<EngineSocket, Map<string, Known>>();

function remember(cache: Map<string, Known>, phone: string, known: Known) {
  cache.delete(phone);
  if (cache.size >= RECIPIENT_CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(phone, known);
}

/** The chat address of a number, asked of the service before the first send to it (the answer kept 10 minutes). */
async function recipientJid(socket: EngineSocket, phone: string, timeoutMs: number): Promise<Result<string>> {
  let cache = recipients.get(socket);
  if (!cache) recipients.set(socket, (cache = new Map()));
  const now = Date.now();
  let known = cache.get(phone);
  if (!known || known.until <= now) {
    // The library takes the number's digits (or a jid) and answers with the account's own address.
    const answer = await withTimeout(socket.onWhatsApp(phone), timeoutMs);
    const found = (answer ?? []).find((a) => a.exists && typeof a.jid === 'string' && a.jid !== '');
    known = found
      ? { jid: found.jid.includes('@') ? found.jid : jidOfPhone(found.jid), until: now + RECIPIENT_TTL_MS }
      : { until: now + ABSENT_TTL_MS };
    remember(cache, phone, known);
  }
  if (!known.jid) {
    return fail({
      code: 'recipient_not_on_network',
      title: `+${phone} is not on the chat app: the service knows no account for this number`,
      retryable: false,
      scope: 'message',
    });
  }
  return ok(known.jid);
}

// ---------------------------------------------------------------------------------------------------
// Parley's content -> the library's.

/** A key naming a message of this chat by its provider id. */
const keyOf = (to: string, id: string, fromMe: boolean, participant?: string): WAMessageKey => ({
  remoteJid: jidOfPhone(to),
  id,
  fromMe,
  ...(participant ? { participant } : {}),
});

/** Whether a provider message id names a message the business sent (by the status Parley holds for it); undefined when Parley does not know it. */
async function isOurs(context: OutboundContext, providerMessageId: string): Promise<boolean | undefined> {
  const status = await context.statusOf?.(providerMessageId);
  if (status === undefined) return undefined;
  return status !== 'received';
}

/** A quoted reply: the library needs a message to quote; a minimal one with the key is enough for the phone to find it. */
async function quoteOf(context: OutboundContext, to: string, replyTo: unknown): Promise<MiscMessageGenerationOptions | undefined> {
  if (!replyTo || typeof replyTo !== 'object') return undefined;
  const r = replyTo as { id?: unknown; participant?: unknown };
  if (typeof r.id !== 'string') return undefined;
  const fromMe = (await isOurs(context, r.id)) ?? false;
  const quoted: WAMessage = {
    key: keyOf(to, r.id, fromMe, typeof r.participant === 'string' ? r.participant : undefined),
    message: { conversation: '' },
  };
  return { quoted };
}

async function planOf(message: OutboundMessage, to: string, context: OutboundContext): Promise<Result<Plan>> {
  const c = message.content as Json;
  const send = async (content: AnyMessageContent, replyTo?: unknown): Promise<Result<Plan>> =>
    ok({ kind: 'send', content, options: await quoteOf(context, to, replyTo) });
  switch (message.type) {
    case 'text':
      return send({ text: String(c.body), linkPreview: null }, c.reply_to);
    case 'image':
    case 'video':
    case 'audio':
    case 'document':
    case 'sticker': {
      const media = await fetchMedia(String(c.media_url), message.type, context.targets);
      if (!media.ok) return media;
      return send(mediaContent(message.type, media.value, c), c.reply_to);
    }
    case 'location':
      return send(
        {
          location: {
            degreesLatitude: Number(c.latitude),
            degreesLongitude: Number(c.longitude),
            name: c.name as string | undefined,
            address: c.address as string | undefined,
          },
        },
        c.reply_to,
      );
    case 'contact': {
      const name = String(c.full_name);
      return send({ contacts: { displayName: name, contacts: [{ displayName: name, vcard: vcardOf(c) }] } });
    }
    case 'reaction': {
      const id = String(c.message_id);
      const fromMe = (await isOurs(context, id)) ?? c.from_me !== false;
      return send({
        react: {
          text: String(c.reaction ?? ''),
          key: keyOf(to, id, fromMe, typeof c.participant === 'string' ? c.participant : undefined),
        },
      });
    }
    case 'mark_as_read':
      return ok({ kind: 'read', keys: [keyOf(to, String(c.message_id), false)] });
    case 'presence': {
      const presence = PRESENCE[String(c.state)];
      if (!presence)
        return fail({
          code: 'unsupported_presence',
          title: `presence state ${String(c.state)} is not one the engine can show`,
          retryable: false,
        });
      return ok({ kind: 'presence', presence, global: presence === 'available' || presence === 'unavailable' });
    }
    case 'poll': {
      const options = (c.options as string[]).map(String);
      const id = libraryMessageId(message.id);
      return send({
        poll: {
          name: String(c.question),
          values: options,
          // 1: one answer; 0: any number of them.
          selectableCount: c.multiple_answers === true ? 0 : 1,
          ...(context.pollKey ? { messageSecret: pollSecret(context.pollKey, id) } : {}),
        },
      });
    }
    case 'link': {
      const url = String(c.url);
      const body = typeof c.body === 'string' && c.body.trim() !== '' ? c.body : undefined;
      const text = body?.includes(url) ? body : [body, url].filter(Boolean).join('\n\n');
      return send({ text, linkPreview: await linkPreviewOf(url, c, context.targets) });
    }
    case 'edit_message': {
      const id = String(c.message_id);
      if ((await isOurs(context, id)) === false)
        return fail({
          code: 'not_editable',
          title: 'only messages the business sent can be edited; this one was received',
          retryable: false,
        });
      return send({ text: String(c.body), edit: keyOf(to, id, true), linkPreview: null });
    }
    case 'delete_message': {
      const id = String(c.message_id);
      if (c.for_everyone === false) {
        return fail({
          code: 'unsupported',
          title: 'the embedded engine deletes messages for everyone only (for_everyone: false would delete on this linked device alone)',
          retryable: false,
        });
      }
      if ((await isOurs(context, id)) === false) {
        return fail({
          code: 'not_deletable',
          title: 'only messages the business sent can be deleted for everyone; this one was received',
          retryable: false,
        });
      }
      return send({ delete: keyOf(to, id, true) });
    }
    case 'message_status_query': {
      // The service offers no such query: Parley already holds every status the engine reported.
      const status = await context.statusOf?.(String(c.message_id));
      if (status === undefined) return fail(unknownMessage(String(c.message_id)));
      return ok({ kind: 'answered' });
    }
    case 'message_media_download': {
      // Inbound media is downloaded and stored when it arrives (GET /v1/messages/{id}/media).
      if (typeof c.message_id !== 'string') {
        return fail({
          code: 'unsupported',
          title: 'the embedded engine names media by the message that carried it: give content.message_id',
          retryable: false,
        });
      }
      const status = await context.statusOf?.(c.message_id);
      if (status === undefined) return fail(unknownMessage(c.message_id));
      return ok({ kind: 'answered' });
    }
    default: {
      if (!SIMPLIFIED_TYPES.has(message.type))
        return fail({ code: 'unsupported_type', title: `the embedded engine cannot send ${message.type} messages`, retryable: false });
      return simplifiedPlan(formatSimplified(message.type, c), context);
    }
  }
}

const unknownMessage = (id: string): ProviderError => ({
  code: 'message_not_found',
  title: `no message with provider id ${id} on this channel`,
  retryable: false,
});

/** Simplified formatting: the text alone, or the header's media with the text as its caption. */
async function simplifiedPlan(simplified: Simplified, context: OutboundContext): Promise<Result<Plan>> {
  if (!simplified.media) return ok({ kind: 'send', content: { text: simplified.text, linkPreview: null } });
  const media = await fetchMedia(simplified.media.url, simplified.media.type, context.targets);
  if (!media.ok) return media;
  return ok({ kind: 'send', content: mediaContent(simplified.media.type, media.value, { caption: simplified.text }) });
}

type Fetched = { bytes: Buffer; mimeType?: string };

function mediaContent(type: string, media: Fetched, c: Json): AnyMessageContent {
  const caption = typeof c.caption === 'string' && c.caption !== '' ? c.caption : undefined;
  const mimetype = media.mimeType ?? (typeof c.media_type === 'string' && c.media_type.includes('/') ? c.media_type : undefined);
  switch (type) {
    case 'image':
      return { image: media.bytes, caption, ...(mimetype ? { mimetype } : {}) };
    case 'video':
      return { video: media.bytes, caption, ...(mimetype ? { mimetype } : {}) };
    case 'audio':
      // OGG (Opus) audio is a voice note, as on the official API.
      return { audio: media.bytes, ptt: mimetype === 'audio/ogg', ...(mimetype ? { mimetype } : {}) };
    case 'sticker':
      return { sticker: media.bytes, isAnimated: isAnimatedWebp(media.bytes.subarray(0, 64)), mimetype: 'image/webp' };
    default:
      return {
        document: media.bytes,
        mimetype: mimetype ?? 'application/octet-stream',
        ...(typeof c.file_name === 'string' && c.file_name !== '' ? { fileName: c.file_name } : {}),
        caption,
      };
  }
}

/** A vCard 3.0 for a shared contact (the card the phone shows and saves): its name parts, numbers, emails, URLs, addresses. */
export function vcardOf(c: Json): string {
  const esc = (s: string) =>
    s
      .replace(/\\/g, '\\\\')
      .replace(/\n/g, '\\n')
      .replace(/([,;])/g, '\\$1');
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const kind = (type: unknown, otherwise: string) => (type === 'HOME' || type === 'WORK' ? type : otherwise);
  const name = String(c.full_name);
  const parts = [c.last_name, c.first_name, c.middle_name, c.name_prefix, c.name_suffix].map((p) => esc(text(p) ?? ''));
  // Without name parts the whole name is the family name (as before parts could be given).
  const n = parts.some((p) => p !== '') ? parts.join(';') : `${esc(name)};;;;`;
  const lines = ['BEGIN:VCARD', 'VERSION:3.0', `FN:${esc(name)}`, `N:${n}`];
  const [company, department] = [text(c.organization), text(c.department)];
  if (company || department) lines.push(`ORG:${esc(company ?? '')}${department ? `;${esc(department)}` : ''}`);
  if (text(c.job_title)) lines.push(`TITLE:${esc(String(c.job_title))}`);
  const phones = [...(text(c.phone) ? [{ phone: c.phone, type: c.phone_type }] : []), ...((c.phones as Json[] | undefined) ?? [])];
  for (const p of phones) {
    const phone = String(p.phone);
    const digits = phone.replace(/\D/g, '');
    const waid = text(p.wa_id) ?? digits;
    lines.push(
      `TEL;type=${kind(p.type, 'CELL')};type=VOICE${waid ? `;waid=${waid}` : ''}:${phone.startsWith('+') || !digits ? phone : `+${digits}`}`,
    );
  }
  for (const e of (c.emails as Json[] | undefined) ?? []) lines.push(`EMAIL;type=${kind(e.type, 'INTERNET')}:${esc(String(e.email))}`);
  // The content rules hold every entry's type to HOME or WORK.
  const typed = (entry: Json) => (text(entry.type) ? `;type=${String(entry.type)}` : '');
  for (const u of (c.urls as Json[] | undefined) ?? []) lines.push(`URL${typed(u)}:${String(u.url)}`);
  for (const a of (c.addresses as Json[] | undefined) ?? []) {
    const fields = [a.street, a.city, a.state, a.zip, a.country ?? a.country_code].map((f) => esc(text(f) ?? ''));
    lines.push(`ADR${typed(a)}:;;${fields.join(';')}`);
  }
  if (text(c.birthday)) lines.push(`BDAY:${String(c.birthday)}`);
  lines.push('END:VCARD');
  return lines.join('\n');
}

/** The preview a link message shows, from the content's own title, description and thumbnail (nothing is fetched but the thumbnail). */
async function linkPreviewOf(url: string, c: Json, targets: TargetPolicy): Promise<WAUrlInfo | null> {
  if (typeof c.title !== 'string' || c.title === '') return null;
  const preview: WAUrlInfo = {
    'canonical-url': url,
    'matched-text': url,
    title: c.title,
    ...(typeof c.description === 'string' ? { description: c.description } : {}),
  };
  if (typeof c.thumbnail_url === 'string') {
    const thumb = await fetchBytes(c.thumbnail_url, THUMBNAIL_MAX_BYTES, targets).catch(() => undefined);
    if (thumb?.ok && (thumb.value.mimeType === 'image/jpeg' || thumb.value.mimeType === 'image/png'))
      preview.jpegThumbnail = thumb.value.bytes;
  }
  return preview;
}

// ---------------------------------------------------------------------------------------------------
// Media by URL, fetched under the target policy, within the type's size limit.

async function fetchMedia(url: string, type: string, targets: TargetPolicy): Promise<Result<Fetched>> {
  const max = MEDIA_RULES[type]?.maxBytes ?? MEDIA_RULES.document!.maxBytes;
  let fetched: Result<Fetched>;
  try {
    fetched = await fetchBytes(url, max, targets);
  } catch (err) {
    if (err instanceof UnsafeTargetError)
      return fail({ code: 'media_url_refused', title: `media URL refused: ${err.message}`, retryable: false });
    return fail({ code: 'media_unreachable', title: `media URL could not be fetched: ${(err as Error).message}`, retryable: true });
  }
  if (!fetched.ok) return fetched;
  if (type === 'sticker' && !isAnimatedWebp(fetched.value.bytes.subarray(0, 64)) && fetched.value.bytes.length > STATIC_STICKER_MAX) {
    return fail(tooLarge('static sticker', fetched.value.bytes.length, STATIC_STICKER_MAX));
  }
  return fetched;
}

const tooLarge = (what: string, size: number, max: number): ProviderError => ({
  code: 'media_too_large',
  title: `${what} media is ${size} bytes${size > max ? '' : ' or more'}; the limit is ${max} bytes`,
  retryable: false,
});

/** GET a URL's bytes, refusing more than `max` (by the declared length, and while reading). */
async function fetchBytes(url: string, max: number, targets: TargetPolicy): Promise<Result<Fetched>> {
  const response = await safeFetch(url, { method: 'GET', signal: AbortSignal.timeout(MEDIA_FETCH_TIMEOUT_MS) }, targets);
  try {
    if (response.status >= 300) {
      return fail({
        code: 'media_unreachable',
        title: `media URL answered HTTP ${response.status}`,
        retryable: response.status >= 500 || response.status === 429,
      });
    }
    const mimeType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase() || undefined;
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > max) return fail(tooLarge('the', declared, max));
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength;
      if (size > max) return fail(tooLarge('the', size, max));
      chunks.push(Buffer.from(chunk));
    }
    return ok({ bytes: Buffer.concat(chunks), mimeType });
  } finally {
    await response.body?.cancel().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------------
// Errors the library throws (Boom errors: output.statusCode, data).

class CallTimeout extends Error {}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new CallTimeout(`no answer from the library within ${ms} ms`)), ms)),
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Socket faults after which the send may or may not have gone out, or that pass: try again later. */
const RETRYABLE_STATUS = new Set([408, 428, 429, 440, 500, 502, 503, 504, 515]);

/**
 * A library error as a ProviderError: connection closed, lost or replaced and timeouts are retryable
 * (a timeout as `timeout`, whose answer may have been lost); a logged-out session is the channel's
 * fault; a bad request is this message's and final.
 */
export function classifyLibraryError(err: unknown): ProviderError {
  if (err instanceof CallTimeout) return { code: 'timeout', title: err.message, retryable: true };
  const e = err as { message?: unknown; output?: { statusCode?: unknown }; data?: unknown; isBoom?: unknown };
  const message = typeof e?.message === 'string' ? e.message : String(err);
  const status = typeof e?.output?.statusCode === 'number' ? e.output.statusCode : undefined;
  const detail = e?.data !== undefined && e.data !== null ? safeDetail(e.data) : undefined;
  if (status === undefined) {
    if (/connection closed|connection lost|timed out|econnreset|socket hang up/i.test(message)) {
      return { code: /timed out/i.test(message) ? 'timeout' : 'connection_closed', title: message, retryable: true };
    }
    return { code: 'library_error', title: message, ...(detail ? { message: detail } : {}), retryable: false };
  }
  if (status === 401)
    return { code: '401', title: message || 'the session was logged out', retryable: false, channelFault: true, scope: 'channel' };
  if (status === 408) return { code: 'timeout', title: message || 'timed out', retryable: true };
  return { code: String(status), title: message, ...(detail ? { message: detail } : {}), retryable: RETRYABLE_STATUS.has(status) };
}

/** The error's data as a short string, for the message's error details (never a stack, never bytes). */
function safeDetail(data: unknown): string | undefined {
  if (typeof data === 'string') return data.slice(0, 500);
  try {
    const text = JSON.stringify(data, (_k, v) =>
      v instanceof Uint8Array || (v && typeof v === 'object' && (v as { type?: unknown }).type === 'Buffer') ? '[bytes]' : v,
    );
    return text === undefined || text === '{}' ? undefined : text.slice(0, 500);
  } catch {
    return undefined;
  }
}
