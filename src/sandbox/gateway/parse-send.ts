/** A send's body as the gateway reads it: the message types it takes, the content each needs. */
import { bodyHash } from '../context.ts';
import { fail, gateway, ok, type GatewayResult } from '../errors.ts';
import { GROUP_RECIPIENT } from '../../providers/capabilities.ts';
import { normalizePhone, recipientOutcome, type RecipientOutcome } from '../rules.ts';

export type Json = Record<string, unknown>;

/** Parley's message types (docs: interface spec); the gateway takes them as they are. */
const MESSAGE_TYPES = new Set([
  'text',
  'image',
  'video',
  'audio',
  'document',
  'sticker',
  'template',
  'buttons',
  'list',
  'location',
  'location_request',
  'contact',
  'reaction',
  'mark_as_read',
  'cta_url',
  'media_carousel',
  'product_carousel',
  'single_product',
  'multi_product',
  'catalog',
  'link',
  'poll',
  'address',
  'presence',
  'edit_message',
  'delete_message',
  'message_status_query',
  'message_media_download',
]);

/** Types that act on the chat rather than deliver a message: no status callbacks follow them. */
export const NO_STATUS_TYPES = new Set([
  'mark_as_read',
  'presence',
  'edit_message',
  'delete_message',
  'message_status_query',
  'message_media_download',
]);

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function nonEmpty(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

export function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** The problem with a message's content, or undefined when the gateway can send it. */
function contentProblem(type: string, content: Json): string | undefined {
  const text = typeof content.text === 'object' && content.text !== null ? (content.text as Json).body : content.text;
  switch (type) {
    case 'text':
      return nonEmpty(content.body) || nonEmpty(text) ? undefined : 'content.body must be a non-empty string';
    case 'image':
    case 'video':
    case 'audio':
    case 'document':
    case 'sticker': {
      const url = content.media_url ?? content.media ?? content.url ?? content.sticker_url;
      if (nonEmpty(content.media_id)) return undefined;
      return isHttpUrl(url) ? undefined : 'content.media_url must be an http(s) URL';
    }
    case 'location':
      return typeof content.latitude === 'number' && typeof content.longitude === 'number'
        ? undefined
        : 'content.latitude and content.longitude must be numbers';
    case 'location_request':
      return nonEmpty(content.body) || nonEmpty(text) ? undefined : 'content.body must be a non-empty string';
    case 'contact':
      return nonEmpty(content.full_name) &&
        (nonEmpty(content.phone) || (Array.isArray(content.phones) && content.phones.some((p) => isObject(p) && nonEmpty(p.phone))))
        ? undefined
        : 'content.full_name and a number (content.phone, or content.phones) are required';
    case 'reaction':
    case 'mark_as_read':
      return nonEmpty(content.message_id) ? undefined : 'content.message_id is required';
    case 'template': {
      const template = content.template;
      return isObject(template) && nonEmpty(template.name) && isObject(template.language) && nonEmpty(template.language.code)
        ? undefined
        : 'content.template.name and content.template.language.code are required';
    }
    case 'buttons': {
      if (!nonEmpty(content.body)) return 'content.body must be a non-empty string';
      const buttons = content.buttons;
      if (!Array.isArray(buttons) || buttons.length < 1 || buttons.length > 3) return 'content.buttons must hold 1 to 3 buttons';
      return buttons.every((b) => isObject(b) && nonEmpty(b.id) && nonEmpty(b.title)) ? undefined : 'each button needs an id and a title';
    }
    case 'list': {
      if (!nonEmpty(content.body) || !nonEmpty(content.button_text)) return 'content.body and content.button_text are required';
      const sections = content.sections;
      if (!Array.isArray(sections) || sections.length === 0) return 'content.sections must be a non-empty array';
      const rowsOk = sections.every(
        (s) =>
          isObject(s) &&
          Array.isArray(s.rows) &&
          s.rows.length > 0 &&
          s.rows.every((r) => isObject(r) && nonEmpty(r.id) && nonEmpty(r.title)),
      );
      return rowsOk ? undefined : 'each section needs rows with an id and a title';
    }
    default:
      return undefined;
  }
}

type ParsedSend = { to: string; type: string; content: Json; hash: string; outcome: RecipientOutcome };

/** A send's body read: the recipient, type and content the gateway takes, or why it refuses them. */
export function parseSend(body: Json): GatewayResult<ParsedSend> {
  // A group (its id, as the phone names it) or a number.
  const group = typeof body.to === 'string' && GROUP_RECIPIENT.test(body.to) ? body.to : undefined;
  const to = group ?? normalizePhone(body.to);
  if (!to) return fail(gateway.invalid('to must be international digits without +, or a group id <digits>@g.us'));
  if (typeof body.type !== 'string' || !MESSAGE_TYPES.has(body.type)) {
    return fail({ status: 400, code: 'unsupported_type', message: `type ${JSON.stringify(body.type)} is not supported`, retryable: false });
  }
  const type = body.type;
  const content = body.content;
  if (!isObject(content)) return fail(gateway.invalid('content must be an object'));
  const problem = contentProblem(type, content);
  if (problem) return fail(gateway.invalid(problem));
  const outcome = group ? 'deliver' : recipientOutcome(to);
  if (outcome === 'refuse') return fail(gateway.invalidRecipient(to));
  return ok({ to, type, content, hash: bodyHash({ to, type, content }), outcome });
}
