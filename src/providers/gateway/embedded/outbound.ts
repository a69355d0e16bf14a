/**
 * Sending through the embedded engine: Parley's message types and content (domain/messages/content.ts)
 * to the linked-device library's message content and calls (docs/channels.md, "Embedded engine:
 * message mapping"). Media named by URL is fetched here (outbound-media.ts), and text never lets the
 * library build a link preview by fetching the link. Messages named by a send (quoted, reacted to,
 * marked read) get their chat key and content from outbound-keys.ts.
 */
import type { AnyMessageContent, MiscMessageGenerationOptions, WAMessage, WAMessageKey, WAPresence } from 'baileys';
import type { TargetPolicy } from '../../../lib/safe-fetch.ts';
import type { MessageType } from '../../capabilities.ts';
import type { OutboundMessage, ProviderError, Result } from '../../provider.ts';
import { chatJidOf, GROUP_JID, jidOfPhone, libraryMessageId, pollSecret, serverOf } from './ids.ts';
import { chatKeyOf, isOurs, keyOf, quotedOf, type KeyLookups } from './outbound-keys.ts';
import { audioContent, fetchMedia, linkPreviewOf, mediaContent } from './outbound-media.ts';
import { formatSimplified, SIMPLIFIED_TYPES, type Simplified } from './simplified.ts';
import type { MessageSocket } from './socket.ts';
import { vcardOf } from './vcard.ts';
import { ffmpegConverter, type VoiceConverter } from './voice.ts';

const defaultConverter = ffmpegConverter();

/**
 * The types the engine answers from Parley's own records, calling nothing (planOf): the service has no
 * status query, and inbound media was downloaded when it arrived. The support matrix row lists them as
 * Parley's (source: parley).
 */
export const EMBEDDED_PARLEY_TYPES = ['message_status_query', 'message_media_download'] as const satisfies readonly MessageType[];

export type OutboundContext = KeyLookups & {
  targets: TargetPolicy; // where media URLs may be fetched (src/lib/safe-fetch.ts)
  self?: { phone: string }; // the paired number, digits
  /**
   * The engine's secret for poll votes (any 32 bytes it can give again after a restart, e.g. derived
   * from the service's encryption key). A poll sent with it can have its votes read (inbound.ts, same
   * key); without it the library picks a random secret and votes cannot be read.
   */
  pollKey?: Uint8Array;
  /** Keeps what the library answered a send with (its key and content): a recipient's retry, quotes (session-messages.ts). */
  remember?(sent: WAMessage): Promise<void>;
  /** Fetches a group's metadata into the session's cache before a first send to it (group-cache.ts). */
  warmGroup?(jid: string): Promise<unknown>;
  /** Converts audio to a voice note (Opus mono in OGG); default ffmpeg where the machine has it (voice.ts). */
  convertVoice?: VoiceConverter;
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

const PRESENCE: Record<string, WAPresence> = {
  typing: 'composing',
  recording: 'recording',
  paused: 'paused',
  available: 'available',
  unavailable: 'unavailable',
};

/**
 * What one message becomes: a message (to the recipient's chat, or to `chat`: where the message it
 * names is, a reaction's), a read receipt, a presence, or an answer with no call.
 */
type Plan =
  | { kind: 'send'; content: AnyMessageContent; options?: MiscMessageGenerationOptions; chat?: string }
  | { kind: 'read'; keys: WAMessageKey[] }
  | { kind: 'presence'; presence: WAPresence; global: boolean }
  | { kind: 'answered' };

/**
 * Sends one message through the socket. The library's message id (`key.id`, which Parley chooses:
 * ids.ts libraryMessageId) is the provider message id; read receipts, presences and the answers that
 * need no call have none. `to` is a phone (international digits) or a group's jid.
 */
export async function sendThroughSocket(
  socket: MessageSocket,
  message: OutboundMessage,
  context: OutboundContext,
): Promise<Result<{ providerMessageId?: string }>> {
  const to = GROUP_JID.test(message.to) ? message.to : message.to.replace(/^\+/, '');
  if (!GROUP_JID.test(to) && !/^\d{5,20}$/.test(to))
    return fail({
      code: 'invalid_recipient',
      title: `${message.to} is not a phone number in international digits nor a group id (<digits>@g.us)`,
      retryable: false,
    });
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
        const jid = await recipientJid(socket, to, timeoutMs, context);
        if (!jid.ok) return jid;
        await withTimeout(socket.sendPresenceUpdate(step.presence, jid.value), timeoutMs);
        return ok({});
      }
      case 'send': {
        const jid = step.chat ? ok(step.chat) : await recipientJid(socket, to, timeoutMs, context);
        if (!jid.ok) return jid;
        const content = step.chat ? step.content : retarget(step.content, jid.value);
        const options =
          step.options?.quoted && serverOf(step.options.quoted.key.remoteJid) !== 'g.us'
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
        // Kept for a recipient's retry; the send went out whether or not this can be written.
        await context.remember?.(sent).catch(() => undefined);
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
const recipients = new WeakMap<MessageSocket, Map<string, Known>>();

function rememberRecipient(cache: Map<string, Known>, phone: string, known: Known) {
  cache.delete(phone);
  if (cache.size >= RECIPIENT_CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(phone, known);
}

/**
 * The chat address of a number, asked of the service before the first send to it (the answer kept 10
 * minutes); a group's is its id, its metadata fetched into the session's cache for the library.
 */
async function recipientJid(socket: MessageSocket, phone: string, timeoutMs: number, context: OutboundContext): Promise<Result<string>> {
  if (GROUP_JID.test(phone)) {
    await context.warmGroup?.(phone);
    return ok(phone);
  }
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
    rememberRecipient(cache, phone, known);
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

async function planOf(message: OutboundMessage, to: string, context: OutboundContext): Promise<Result<Plan>> {
  const c = message.content as Json;
  const send = async (given: AnyMessageContent, replyTo?: unknown): Promise<Result<Plan>> => {
    const quoted = await quotedOf(context, chatJidOf(to), replyTo);
    // A forward shows as one (the library puts contextInfo on whatever the content becomes).
    const content =
      c.forwarded === true ? ({ ...given, contextInfo: { isForwarded: true, forwardingScore: 1 } } as AnyMessageContent) : given;
    return ok({ kind: 'send', content, ...(quoted ? { options: { quoted } } : {}) });
  };
  switch (message.type) {
    case 'text': {
      // Mentions: the people's jids beside the text (the text names them as @<digits>).
      const mentioned = Array.isArray(c.mentions) ? (c.mentions as string[]).map((p) => jidOfPhone(String(p))) : [];
      return send({ text: String(c.body), linkPreview: null, ...(mentioned.length > 0 ? { mentions: mentioned } : {}) }, c.reply_to);
    }
    case 'image':
    case 'video':
    case 'audio':
    case 'document':
    case 'sticker': {
      const media = await fetchMedia(String(c.media_url), message.type, context.targets);
      if (!media.ok) return media;
      if (message.type === 'audio') return send(await audioContent(media.value, c, context.convertVoice ?? defaultConverter), c.reply_to);
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
      return send({ contacts: { displayName: name, contacts: [{ displayName: name, vcard: vcardOf(c) }] } }, c.reply_to);
    }
    case 'reaction': {
      // Sent into the chat the message is in (a privacy-id chat, a group), naming it by its own key.
      const { key, kept } = await chatKeyOf(context, to, String(c.message_id), {
        fromMe: c.from_me !== false,
        participant: typeof c.participant === 'string' ? c.participant : undefined,
      });
      const react = { react: { text: String(c.reaction ?? ''), key } };
      // A message of the customer's own chat goes to the address the service gives for the number (retarget).
      const elsewhere = kept !== undefined || serverOf(key.remoteJid) === 'g.us';
      return ok({ kind: 'send', content: react, ...(elsewhere ? { chat: key.remoteJid! } : {}) });
    }
    case 'mark_as_read': {
      const { key } = await chatKeyOf(context, to, String(c.message_id), { fromMe: false });
      return ok({ kind: 'read', keys: [{ ...key, fromMe: false }] });
    }
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
  // The service refused a query (the library's assertNodeErrorFree: status 500, the service's code as data,
  // 404 item-not-found for a group the account is not in, 403 forbidden, …): final unless it says to wait.
  if (typeof e?.data === 'number' && e.data >= 400) {
    const code = e.data;
    return {
      code: String(code),
      title: message || `the chat network refused (${code})`,
      retryable: code >= 500 || code === 429 || code === 408,
    };
  }
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
