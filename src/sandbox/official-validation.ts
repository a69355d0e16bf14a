/**
 * Checks a native send body the way the official provider does before it answers (its published
 * OpenAPI document, business-messaging-api v23.0, and where that is loose its developer
 * documentation), so an adapter that writes a wrong body gets the provider's error from the sandbox,
 * as it would live: code 100 for an unknown field or a value of the wrong kind, 131008 for a missing
 * required parameter, 131009 for a parameter value the provider does not accept.
 */
import { fail, ok, type OfficialResult } from './errors.ts';
import { normalizePhone } from './rules.ts';
import { checkInteractive } from './official-validation/interactive.ts';
import { checkTemplate } from './official-validation/template.ts';
import {
  Refusal,
  isObject,
  asNumber,
  need,
  present,
  valid,
  known,
  object,
  string,
  array,
  MEDIA_TYPES,
  checkMedia,
  type Json,
} from './official-validation/params.ts';

export type OfficialSend =
  | { kind: 'read'; messageId: string }
  | {
      kind: 'message';
      /** Recipient digits. */
      to: string;
      type: string;
      template?: { name: string; language: string; bodyParameters: number };
    };

export const OFFICIAL_MESSAGE_TYPES = [
  'text',
  'image',
  'video',
  'audio',
  'document',
  'sticker',
  'location',
  'contacts',
  'reaction',
  'template',
  'interactive',
] as const;

const ENVELOPE = ['messaging_product', 'recipient_type', 'to', 'type', 'context', 'biz_opaque_callback_data'];
/** Phone, email, address and URL types on a contact card (the provider's enum). */
const CONTACT_TYPES = ['HOME', 'WORK'];

/** Validates a POST /{phone_number_id}/messages body: a message, or a mark-as-read. */
export function validateOfficialSend(body: unknown): OfficialResult<OfficialSend> {
  try {
    return ok(check(body));
  } catch (err) {
    if (err instanceof Refusal) return fail(err.error);
    throw err;
  }
}

function check(body: unknown): OfficialSend {
  need(isObject(body), 'The request body must be a JSON object.');
  present(body.messaging_product, 'messaging_product');
  valid(body.messaging_product === 'whatsapp', "Param messaging_product must be 'whatsapp'.");
  if (body.status !== undefined) {
    known(body, ['messaging_product', 'status', 'message_id', 'typing_indicator'], 'body');
    valid(body.status === 'read', "Param status must be 'read'.");
    const messageId = string(body.message_id, 'message_id', 256);
    if (body.typing_indicator !== undefined) {
      const indicator = object(body.typing_indicator, 'typing_indicator', ['type']);
      valid(indicator.type === 'text', "Param typing_indicator['type'] must be 'text'.");
    }
    return { kind: 'read', messageId };
  }
  const type = body.type ?? 'text';
  need(typeof type === 'string', 'Param type must be a string.');
  valid((OFFICIAL_MESSAGE_TYPES as readonly string[]).includes(type), `Param type must be one of {${OFFICIAL_MESSAGE_TYPES.join(', ')}}.`);
  known(body, [...ENVELOPE, type], 'body');
  valid(body.recipient_type === undefined || body.recipient_type === 'individual', "Param recipient_type must be 'individual'.");
  present(body.to, 'to');
  const to = normalizePhone(body.to);
  valid(to, 'Param to must be a phone number in international format (digits, country code first).');
  if (body.context !== undefined) string(object(body.context, 'context', ['message_id']).message_id, "context['message_id']", 256);
  if (body.biz_opaque_callback_data !== undefined) {
    need(typeof body.biz_opaque_callback_data === 'string', 'Param biz_opaque_callback_data must be a string.');
    valid(body.biz_opaque_callback_data.length <= 512, 'Param biz_opaque_callback_data must be at most 512 characters.');
  }
  const payload = body[type];
  present(payload, type);
  let template: { name: string; language: string; bodyParameters: number } | undefined;
  if (type === 'text') checkText(payload);
  else if (MEDIA_TYPES.has(type)) checkMedia(type, payload);
  else if (type === 'location') checkLocation(payload);
  else if (type === 'contacts') checkContacts(payload);
  else if (type === 'reaction') checkReaction(payload);
  else if (type === 'template') template = checkTemplate(payload);
  else checkInteractive(payload);
  return { kind: 'message', to, type, ...(template ? { template } : {}) };
}

function checkText(payload: unknown) {
  const text = object(payload, 'text', ['body', 'preview_url']);
  string(text.body, "text['body']", 4096);
  need(text.preview_url === undefined || typeof text.preview_url === 'boolean', "Param text['preview_url'] must be a boolean.");
}

function checkLocation(payload: unknown) {
  const location = object(payload, 'location', ['latitude', 'longitude', 'name', 'address']);
  present(location.latitude, "location['latitude']");
  present(location.longitude, "location['longitude']");
  const latitude = asNumber(location.latitude);
  const longitude = asNumber(location.longitude);
  valid(latitude !== undefined && latitude >= -90 && latitude <= 90, "Param location['latitude'] must be a number between -90 and 90.");
  valid(
    longitude !== undefined && longitude >= -180 && longitude <= 180,
    "Param location['longitude'] must be a number between -180 and 180.",
  );
  for (const field of ['name', 'address']) {
    need(location[field] === undefined || typeof location[field] === 'string', `Param location['${field}'] must be a string.`);
  }
}

/** A contact's typed sub-record (phone, email, address, URL): its type, when given, is the provider's. */
function typed(value: Json, at: string) {
  if (value.type !== undefined)
    valid(CONTACT_TYPES.includes(String(value.type)), `Param ${at}['type'] must be one of {${CONTACT_TYPES.join(', ')}}.`);
}

function checkContacts(payload: unknown) {
  array(payload, 'contacts', 1, 5).forEach((entry, i) => {
    const at = `contacts[${i}]`;
    const contact = object(entry, at, ['addresses', 'birthday', 'emails', 'name', 'org', 'phones', 'urls']);
    const name = object(contact.name, `${at}['name']`, ['formatted_name', 'first_name', 'last_name', 'middle_name', 'prefix', 'suffix']);
    string(name.formatted_name, `${at}['name']['formatted_name']`, 1024);
    const records: Array<[string, string[], string]> = [
      ['phones', ['phone', 'type', 'wa_id'], 'phone'],
      ['emails', ['email', 'type'], 'email'],
      ['urls', ['url', 'type'], 'url'],
      ['addresses', ['street', 'city', 'state', 'zip', 'country', 'country_code', 'type'], ''],
    ];
    for (const [field, allowed, requiredKey] of records) {
      if (contact[field] === undefined) continue;
      array(contact[field], `${at}['${field}']`, 0, 20).forEach((item, j) => {
        const rat = `${at}['${field}'][${j}]`;
        const record = object(item, rat, allowed);
        if (requiredKey) string(record[requiredKey], `${rat}['${requiredKey}']`, 1024);
        typed(record, rat);
      });
    }
    if (contact.org !== undefined) object(contact.org, `${at}['org']`, ['company', 'department', 'title']);
    if (contact.birthday !== undefined)
      valid(
        typeof contact.birthday === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(contact.birthday),
        `Param ${at}['birthday'] must be a date (YYYY-MM-DD).`,
      );
  });
}

function checkReaction(payload: unknown) {
  const reaction = object(payload, 'reaction', ['message_id', 'emoji']);
  string(reaction.message_id, "reaction['message_id']", 256);
  present(reaction.emoji, "reaction['emoji']");
  need(typeof reaction.emoji === 'string', "Param reaction['emoji'] must be a string (empty removes the reaction).");
}
