/**
 * Checks a native send body the way the official provider does before it answers, so an adapter
 * that writes a wrong body gets the provider's error code 100 from the sandbox, as it would live.
 */
import { official, fail, ok, type OfficialResult } from './errors.ts';
import { normalizePhone } from './rules.ts';

type Json = Record<string, unknown>;

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

const MEDIA_TYPES = new Set(['image', 'video', 'audio', 'document', 'sticker']);
const INTERACTIVE_TYPES = new Set([
  'button',
  'address_message',
  'list',
  'cta_url',
  'location_request_message',
  'product',
  'product_list',
  'catalog_message',
  'carousel',
  'flow',
]);

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmpty(value: unknown, max?: number): value is string {
  return typeof value === 'string' && value.trim().length > 0 && (max === undefined || value.length <= max);
}

function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

function asNumber(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}

class Invalid extends Error {}

function need(condition: unknown, details: string): asserts condition {
  if (!condition) throw new Invalid(details);
}

/** Validates a POST /{phone_number_id}/messages body: a message, or a mark-as-read. */
export function validateOfficialSend(body: unknown): OfficialResult<OfficialSend> {
  try {
    return ok(check(body));
  } catch (err) {
    if (err instanceof Invalid) return fail(official.invalidParameter(err.message));
    throw err;
  }
}

function check(body: unknown): OfficialSend {
  need(isObject(body), 'The request body must be a JSON object.');
  need(body.messaging_product !== undefined, 'The parameter messaging_product is required.');
  need(body.messaging_product === 'whatsapp', "Param messaging_product must be 'whatsapp'.");
  if (body.status !== undefined) {
    need(body.status === 'read', "Param status must be 'read'.");
    need(nonEmpty(body.message_id), 'The parameter message_id is required.');
    if (body.typing_indicator !== undefined) {
      need(isObject(body.typing_indicator) && body.typing_indicator.type === 'text', "Param typing_indicator['type'] must be 'text'.");
    }
    return { kind: 'read', messageId: body.message_id };
  }
  need(body.recipient_type === undefined || body.recipient_type === 'individual', "Param recipient_type must be 'individual'.");
  need(body.to !== undefined, 'The parameter to is required.');
  const to = normalizePhone(body.to);
  need(to, 'Param to must be a phone number in international format (digits, country code first).');
  const type = body.type ?? 'text';
  need(
    typeof type === 'string' && (OFFICIAL_MESSAGE_TYPES as readonly string[]).includes(type),
    `Param type must be one of {${OFFICIAL_MESSAGE_TYPES.join(', ')}}.`,
  );
  if (body.context !== undefined) {
    need(isObject(body.context) && nonEmpty(body.context.message_id), "Param context['message_id'] is required when context is given.");
  }
  const object = body[type];
  need(object !== undefined && object !== null, `The parameter ${type} is required.`);
  let template: { name: string; language: string; bodyParameters: number } | undefined;
  if (type === 'text') checkText(object);
  else if (MEDIA_TYPES.has(type)) checkMedia(type, object);
  else if (type === 'location') checkLocation(object);
  else if (type === 'contacts') checkContacts(object);
  else if (type === 'reaction') checkReaction(object);
  else if (type === 'template') template = checkTemplate(object);
  else checkInteractive(object);
  return { kind: 'message', to, type, ...(template ? { template } : {}) };
}

function checkText(text: unknown) {
  need(isObject(text), "Param text must be an object {body}.");
  need(text.body !== undefined, "The parameter text['body'] is required.");
  need(nonEmpty(text.body), "Param text['body'] must be a non-empty string.");
  need(text.body.length <= 4096, "Param text['body'] must be at most 4096 characters.");
  need(text.preview_url === undefined || typeof text.preview_url === 'boolean', "Param text['preview_url'] must be a boolean.");
}

function checkMedia(type: string, media: unknown, at: string = type) {
  need(isObject(media), `The parameter ${at} is required (an object with a link or an id).`);
  const hasLink = media.link !== undefined;
  const hasId = media.id !== undefined;
  need(hasLink || hasId, `Param ${at} must have a link or an id.`);
  need(!(hasLink && hasId), `Param ${at} must have a link or an id, not both.`);
  if (hasLink) need(isHttpUrl(media.link), `Param ${at}['link'] must be an http(s) URL.`);
  if (hasId) need(nonEmpty(media.id), `Param ${at}['id'] must be a media id.`);
  if (media.caption !== undefined) {
    need(type !== 'audio' && type !== 'sticker', `Param ${at}['caption'] is not allowed.`);
    need(typeof media.caption === 'string' && media.caption.length <= 1024, `Param ${at}['caption'] must be a string of at most 1024 characters.`);
  }
  if (media.filename !== undefined) {
    need(type === 'document' && typeof media.filename === 'string', `Param ${at}['filename'] is only allowed on a document.`);
  }
}

function checkLocation(location: unknown) {
  need(isObject(location), 'Param location must be an object.');
  const latitude = asNumber(location.latitude);
  const longitude = asNumber(location.longitude);
  need(latitude !== undefined && latitude >= -90 && latitude <= 90, "Param location['latitude'] must be a number between -90 and 90.");
  need(longitude !== undefined && longitude >= -180 && longitude <= 180, "Param location['longitude'] must be a number between -180 and 180.");
  for (const field of ['name', 'address']) {
    need(location[field] === undefined || typeof location[field] === 'string', `Param location['${field}'] must be a string.`);
  }
}

function checkContacts(contacts: unknown) {
  need(Array.isArray(contacts) && contacts.length > 0, 'Param contacts must be a non-empty array.');
  contacts.forEach((contact, i) => {
    need(isObject(contact) && isObject(contact.name), `The parameter contacts[${i}]['name'] is required.`);
    need(nonEmpty(contact.name.formatted_name), `The parameter contacts[${i}]['name']['formatted_name'] is required.`);
    if (contact.phones !== undefined) {
      need(Array.isArray(contact.phones) && contact.phones.every((p) => isObject(p) && typeof p.phone === 'string'), `Param contacts[${i}]['phones'] must be an array of {phone}.`);
    }
  });
}

function checkReaction(reaction: unknown) {
  need(isObject(reaction), 'Param reaction must be an object.');
  need(nonEmpty(reaction.message_id), "The parameter reaction['message_id'] is required.");
  need(typeof reaction.emoji === 'string', "Param reaction['emoji'] must be a string (empty removes the reaction).");
}

const COMPONENT_TYPES = new Set(['header', 'body', 'button', 'footer']);

function checkTemplate(template: unknown): { name: string; language: string; bodyParameters: number } {
  need(isObject(template), 'Param template must be an object.');
  need(nonEmpty(template.name), "The parameter template['name'] is required.");
  need(isObject(template.language) && nonEmpty(template.language.code), "The parameter template['language']['code'] is required.");
  let bodyParameters = 0;
  if (template.components !== undefined) {
    need(Array.isArray(template.components), "Param template['components'] must be an array.");
    template.components.forEach((component, i) => {
      const at = `template['components'][${i}]`;
      need(isObject(component) && typeof component.type === 'string', `The parameter ${at}['type'] is required.`);
      const kind = component.type.toLowerCase();
      need(COMPONENT_TYPES.has(kind), `Param ${at}['type'] must be one of {header, body, button}.`);
      if (kind === 'button') {
        need(nonEmpty(component.sub_type), `The parameter ${at}['sub_type'] is required.`);
        need(component.index !== undefined && /^\d+$/.test(String(component.index)), `Param ${at}['index'] must be a zero-based index.`);
      }
      if (component.parameters !== undefined) {
        need(Array.isArray(component.parameters), `Param ${at}['parameters'] must be an array.`);
        component.parameters.forEach((parameter, j) => {
          const pat = `${at}['parameters'][${j}]`;
          need(isObject(parameter) && nonEmpty(parameter.type), `The parameter ${pat}['type'] is required.`);
          if (parameter.type === 'text') need(typeof parameter.text === 'string', `The parameter ${pat}['text'] is required.`);
          if (MEDIA_TYPES.has(parameter.type)) checkMedia(parameter.type, parameter[parameter.type], `${pat}['${parameter.type}']`);
        });
        if (kind === 'body') bodyParameters += component.parameters.length;
      }
    });
  }
  return { name: template.name, language: (template.language as Json).code as string, bodyParameters };
}

function checkInteractive(interactive: unknown) {
  need(isObject(interactive), 'Param interactive must be an object.');
  const type = interactive.type;
  need(typeof type === 'string' && INTERACTIVE_TYPES.has(type), `Param interactive['type'] must be one of {${[...INTERACTIVE_TYPES].join(', ')}}.`);
  need(isObject(interactive.action), "The parameter interactive['action'] is required.");
  const action = interactive.action;
  const needsBody = type !== 'product';
  if (needsBody) {
    need(isObject(interactive.body) && interactive.body.text !== undefined, "The parameter interactive['body']['text'] is required.");
    need(nonEmpty(interactive.body.text, 1024), "Param interactive['body']['text'] must be a non-empty string of at most 1024 characters.");
  }
  if (interactive.header !== undefined) {
    need(isObject(interactive.header) && ['text', 'image', 'video', 'document'].includes(String(interactive.header.type)), "Param interactive['header']['type'] must be one of {text, image, video, document}.");
  }
  if (interactive.footer !== undefined) {
    need(isObject(interactive.footer) && nonEmpty(interactive.footer.text, 60), "Param interactive['footer']['text'] must be a non-empty string of at most 60 characters.");
  }
  if (type === 'button') {
    need(Array.isArray(action.buttons) && action.buttons.length >= 1, "The parameter interactive['action']['buttons'] is required.");
    need(action.buttons.length <= 3, "Param interactive['action']['buttons'] must have at most 3 elements.");
    const ids = new Set<string>();
    action.buttons.forEach((button, i) => {
      const at = `interactive['action']['buttons'][${i}]`;
      need(isObject(button) && button.type === 'reply' && isObject(button.reply), `Param ${at} must be {type: 'reply', reply: {id, title}}.`);
      need(nonEmpty(button.reply.id, 256), `Param ${at}['reply']['id'] must be a non-empty string of at most 256 characters.`);
      need(nonEmpty(button.reply.title, 20), `Param ${at}['reply']['title'] must be a non-empty string of at most 20 characters.`);
      need(!ids.has(button.reply.id), `Param ${at}['reply']['id'] must be unique.`);
      ids.add(button.reply.id);
    });
  } else if (type === 'list') {
    need(nonEmpty(action.button, 20), "Param interactive['action']['button'] must be a non-empty string of at most 20 characters.");
    const sections = action.sections;
    need(Array.isArray(sections) && sections.length >= 1 && sections.length <= 10, "Param interactive['action']['sections'] must have 1 to 10 elements.");
    let rows = 0;
    sections.forEach((section, i) => {
      const at = `interactive['action']['sections'][${i}]`;
      need(isObject(section) && Array.isArray(section.rows) && section.rows.length > 0, `The parameter ${at}['rows'] is required.`);
      if (sections.length > 1) need(nonEmpty(section.title, 24), `The parameter ${at}['title'] is required when there are several sections.`);
      section.rows.forEach((row, j) => {
        need(isObject(row) && nonEmpty(row.id, 200), `The parameter ${at}['rows'][${j}]['id'] is required.`);
        need(nonEmpty(row.title, 24), `Param ${at}['rows'][${j}]['title'] must be a non-empty string of at most 24 characters.`);
        need(row.description === undefined || (typeof row.description === 'string' && row.description.length <= 72), `Param ${at}['rows'][${j}]['description'] must be at most 72 characters.`);
      });
      rows += section.rows.length;
    });
    need(rows <= 10, "Param interactive['action']['sections'] must hold at most 10 rows in all.");
  } else if (type === 'cta_url') {
    need(action.name === 'cta_url', "Param interactive['action']['name'] must be 'cta_url'.");
    need(isObject(action.parameters) && nonEmpty(action.parameters.display_text, 20), "Param interactive['action']['parameters']['display_text'] must be a non-empty string of at most 20 characters.");
    need(isHttpUrl(action.parameters.url), "Param interactive['action']['parameters']['url'] must be an http(s) URL.");
  } else if (type === 'location_request_message') {
    need(action.name === 'send_location', "Param interactive['action']['name'] must be 'send_location'.");
  } else if (type === 'address_message') {
    need(action.name === 'address_message', "Param interactive['action']['name'] must be 'address_message'.");
  } else if (type === 'catalog_message') {
    need(action.name === 'catalog_message', "Param interactive['action']['name'] must be 'catalog_message'.");
  } else if (type === 'product' || type === 'product_list') {
    need(nonEmpty(action.catalog_id), "The parameter interactive['action']['catalog_id'] is required.");
    if (type === 'product') need(nonEmpty(action.product_retailer_id), "The parameter interactive['action']['product_retailer_id'] is required.");
    else need(Array.isArray(action.sections) && action.sections.length > 0, "The parameter interactive['action']['sections'] is required.");
  } else if (type === 'carousel') {
    need(Array.isArray(action.cards) && action.cards.length >= 1 && action.cards.length <= 10, "Param interactive['action']['cards'] must have 1 to 10 elements.");
  }
}
