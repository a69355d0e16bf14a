/**
 * Checks a native send body the way the official provider does before it answers (its published
 * OpenAPI document, business-messaging-api v23.0, and where that is loose its developer
 * documentation), so an adapter that writes a wrong body gets the provider's error from the sandbox,
 * as it would live: code 100 for an unknown field or a value of the wrong kind, 131008 for a missing
 * required parameter, 131009 for a parameter value the provider does not accept.
 */
import { official, fail, ok, type OfficialError, type OfficialResult } from './errors.ts';
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
/** What a media message's object has besides its link or id. */
const MEDIA_EXTRAS: Record<string, readonly string[]> = { image: ['caption'], video: ['caption'], document: ['caption', 'filename'] };
const ENVELOPE = ['messaging_product', 'recipient_type', 'to', 'type', 'context', 'biz_opaque_callback_data'];
/** Phone, email, address and URL types on a contact card (the provider's enum). */
const CONTACT_TYPES = ['HOME', 'WORK'];
/** Countries address messages are offered in. */
const ADDRESS_COUNTRIES = ['IN'];
const ADDRESS_FIELDS = [
  'name',
  'phone_number',
  'in_pin_code',
  'house_number',
  'floor_number',
  'tower_number',
  'building_name',
  'address',
  'landmark_area',
  'city',
  'state',
];

class Refusal extends Error {
  readonly error: OfficialError;
  constructor(error: OfficialError) {
    super(error.message);
    this.error = error;
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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

/** Code 100: a value of the wrong kind (not an object, not a string, …). */
function need(condition: unknown, details: string): asserts condition {
  if (!condition) throw new Refusal(official.invalidParameter(details));
}

/** Code 131008: a required parameter is absent. */
function present(value: unknown, at: string): void {
  if (value === undefined || value === null) throw new Refusal(official.missingParameter(`The parameter ${at} is required.`));
}

/** Code 131009: the parameter is there but its value is not one the provider accepts. */
function valid(condition: unknown, details: string): asserts condition {
  if (!condition) throw new Refusal(official.invalidValue(details));
}

/** Code 100: fields the provider does not know are refused, not ignored. */
function known(object: Json, allowed: readonly string[], at: string): void {
  const unknown = Object.keys(object).find((key) => !allowed.includes(key));
  if (unknown !== undefined) throw new Refusal(official.invalidParameter(`Unexpected key "${unknown}" on param "${at}".`));
}

/** An object parameter: present (131008), an object (100), with only the given keys (100). */
function object(value: unknown, at: string, allowed: readonly string[]): Json {
  present(value, at);
  need(isObject(value), `Param ${at} must be an object.`);
  known(value, allowed, at);
  return value;
}

/** A string parameter: present (131008), a string (100), non-empty and at most `max` long (131009). */
function string(value: unknown, at: string, max: number): string {
  present(value, at);
  need(typeof value === 'string', `Param ${at} must be a string.`);
  valid(value.trim().length > 0 && value.length <= max, `Param ${at} must be a non-empty string of at most ${max} characters.`);
  return value;
}

/** An array parameter: present (131008), an array (100), `min` to `max` elements (131009). */
function array(value: unknown, at: string, min: number, max: number): unknown[] {
  present(value, at);
  need(Array.isArray(value), `Param ${at} must be an array.`);
  valid(value.length >= min && value.length <= max, `Param ${at} must have ${min === max ? min : `${min} to ${max}`} elements.`);
  return value;
}

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

/** A media object: a link or an id, and the fields its kind has (`extra`: a message's caption and file name by default). */
function checkMedia(type: string, payload: unknown, at: string = type, extra: readonly string[] = MEDIA_EXTRAS[type] ?? []) {
  const media = object(payload, at, ['id', 'link', ...extra]);
  const hasLink = media.link !== undefined;
  const hasId = media.id !== undefined;
  if (!hasLink && !hasId) present(undefined, `${at}['link'] or ${at}['id']`);
  valid(!(hasLink && hasId), `Param ${at} must have a link or an id, not both.`);
  if (hasLink) valid(isHttpUrl(media.link), `Param ${at}['link'] must be an http(s) URL.`);
  if (hasId) string(media.id, `${at}['id']`, 256);
  if (media.caption !== undefined) {
    need(typeof media.caption === 'string', `Param ${at}['caption'] must be a string.`);
    valid(media.caption.length <= 1024, `Param ${at}['caption'] must be at most 1024 characters.`);
  }
  if (media.filename !== undefined) string(media.filename, `${at}['filename']`, 240);
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

const COMPONENT_TYPES = ['header', 'body', 'button'];
const PARAMETER_TYPES = ['text', 'currency', 'date_time', 'image', 'video', 'document', 'payload', 'action'];

function checkTemplate(payload: unknown): { name: string; language: string; bodyParameters: number } {
  const template = object(payload, 'template', ['name', 'language', 'components']);
  const name = string(template.name, "template['name']", 512);
  const language = object(template.language, "template['language']", ['code', 'policy']);
  const code = string(language.code, "template['language']['code']", 15);
  if (language.policy !== undefined)
    valid(language.policy === 'deterministic', "Param template['language']['policy'] must be 'deterministic'.");
  let bodyParameters = 0;
  if (template.components !== undefined) {
    array(template.components, "template['components']", 0, 20).forEach((entry, i) => {
      const at = `template['components'][${i}]`;
      const component = object(entry, at, ['type', 'sub_type', 'index', 'parameters']);
      present(component.type, `${at}['type']`);
      const kind = String(component.type).toLowerCase();
      valid(COMPONENT_TYPES.includes(kind), `Param ${at}['type'] must be one of {${COMPONENT_TYPES.join(', ')}}.`);
      if (kind === 'button') {
        string(component.sub_type, `${at}['sub_type']`, 32);
        present(component.index, `${at}['index']`);
        valid(/^\d+$/.test(String(component.index)), `Param ${at}['index'] must be a zero-based index.`);
      }
      if (component.parameters === undefined) return;
      array(component.parameters, `${at}['parameters']`, 0, 100).forEach((p, j) => {
        const pat = `${at}['parameters'][${j}]`;
        need(isObject(p), `Param ${pat} must be an object.`);
        const ptype = string(p.type, `${pat}['type']`, 32);
        valid(PARAMETER_TYPES.includes(ptype), `Param ${pat}['type'] must be one of {${PARAMETER_TYPES.join(', ')}}.`);
        known(p, ['type', ptype], pat);
        present(p[ptype], `${pat}['${ptype}']`);
        if (ptype === 'text') need(typeof p.text === 'string', `Param ${pat}['text'] must be a string.`);
        if (MEDIA_TYPES.has(ptype)) checkMedia(ptype, p[ptype], `${pat}['${ptype}']`);
      });
      if (kind === 'body') bodyParameters += (component.parameters as unknown[]).length;
    });
  }
  return { name, language: code, bodyParameters };
}

/** The parts each interactive type may have: header kinds allowed (none: no header), body limit (0: optional), footer. */
const INTERACTIVE: Record<string, { headers: readonly string[]; body: number; optionalBody?: boolean; footer: boolean }> = {
  button: { headers: ['text', 'image', 'video', 'document'], body: 1024, footer: true },
  list: { headers: ['text'], body: 4096, footer: true },
  cta_url: { headers: ['text', 'image', 'video', 'document'], body: 1024, footer: true },
  location_request_message: { headers: [], body: 1024, footer: false },
  address_message: { headers: ['text', 'image', 'video', 'document'], body: 1024, footer: true },
  product: { headers: [], body: 1024, optionalBody: true, footer: true },
  product_list: { headers: ['text'], body: 1024, footer: true },
  catalog_message: { headers: [], body: 1024, footer: true },
  carousel: { headers: [], body: 1024, footer: false },
  flow: { headers: ['text', 'image', 'video', 'document'], body: 1024, footer: true },
};

function checkHeader(value: unknown, at: string, kinds: readonly string[]) {
  const header = object(value, at, ['type', 'text', 'sub_text', 'image', 'video', 'document']);
  present(header.type, `${at}['type']`);
  valid(kinds.includes(String(header.type)), `Param ${at}['type'] must be one of {${kinds.join(', ')}} here.`);
  const kind = String(header.type);
  known(header, kind === 'text' ? ['type', 'text', 'sub_text'] : ['type', kind], at);
  if (kind === 'text') string(header.text, `${at}['text']`, 60);
  // A header's media has no caption; a document header shows its file name.
  else checkMedia(kind, header[kind], `${at}['${kind}']`, kind === 'document' ? ['filename'] : []);
}

function checkInteractive(payload: unknown) {
  const interactive = object(payload, 'interactive', ['type', 'header', 'body', 'footer', 'action']);
  present(interactive.type, "interactive['type']");
  const type = String(interactive.type);
  const parts = INTERACTIVE[type];
  valid(parts, `Param interactive['type'] must be one of {${Object.keys(INTERACTIVE).join(', ')}}.`);
  if (type === 'product_list') present(interactive.header, "interactive['header']");
  if (interactive.header !== undefined) {
    valid(parts.headers.length > 0, `Param interactive['header'] is not allowed on a ${type} message.`);
    checkHeader(interactive.header, "interactive['header']", parts.headers);
  }
  if (!parts.optionalBody || interactive.body !== undefined)
    string(object(interactive.body, "interactive['body']", ['text']).text, "interactive['body']['text']", parts.body);
  if (interactive.footer !== undefined) {
    valid(parts.footer, `Param interactive['footer'] is not allowed on a ${type} message.`);
    string(object(interactive.footer, "interactive['footer']", ['text']).text, "interactive['footer']['text']", 60);
  }
  const at = "interactive['action']";
  present(interactive.action, at);
  need(isObject(interactive.action), `Param ${at} must be an object.`);
  ACTIONS[type]!(interactive.action, at);
}

function checkCta(action: Json, at: string) {
  known(action, ['name', 'parameters'], at);
  valid(action.name === 'cta_url', `Param ${at}['name'] must be 'cta_url'.`);
  const parameters = object(action.parameters, `${at}['parameters']`, ['display_text', 'url']);
  string(parameters.display_text, `${at}['parameters']['display_text']`, 20);
  present(parameters.url, `${at}['parameters']['url']`);
  valid(isHttpUrl(parameters.url), `Param ${at}['parameters']['url'] must be an http(s) URL.`);
}

/** Sections of list rows or products: 1–10, `max` items in all, titled when there are several. */
function checkSections(value: unknown, at: string, key: string, max: number, item: (entry: unknown, at: string) => void) {
  const sections = array(value, `${at}['sections']`, 1, 10);
  let total = 0;
  sections.forEach((entry, i) => {
    const sat = `${at}['sections'][${i}]`;
    const section = object(entry, sat, ['title', key]);
    if (sections.length > 1) string(section.title, `${sat}['title']`, 24);
    else if (section.title !== undefined) string(section.title, `${sat}['title']`, 24);
    const items = array(section[key], `${sat}['${key}']`, 1, max);
    items.forEach((it, j) => item(it, `${sat}['${key}'][${j}]`));
    total += items.length;
  });
  valid(total <= max, `Param ${at}['sections'] must hold at most ${max} ${key} in all.`);
}

const ACTIONS: Record<string, (action: Json, at: string) => void> = {
  button(action, at) {
    known(action, ['buttons'], at);
    const buttons = array(action.buttons, `${at}['buttons']`, 1, 3);
    const ids = new Set<string>();
    const titles = new Set<string>();
    buttons.forEach((entry, i) => {
      const bat = `${at}['buttons'][${i}]`;
      const button = object(entry, bat, ['type', 'reply']);
      valid(button.type === 'reply', `Param ${bat}['type'] must be 'reply'.`);
      const reply = object(button.reply, `${bat}['reply']`, ['id', 'title']);
      const id = string(reply.id, `${bat}['reply']['id']`, 256);
      const title = string(reply.title, `${bat}['reply']['title']`, 20);
      valid(!ids.has(id) && !titles.has(title), `Param ${bat}['reply'] must have a unique id and title.`);
      ids.add(id);
      titles.add(title);
    });
  },
  list(action, at) {
    known(action, ['button', 'sections'], at);
    string(action.button, `${at}['button']`, 20);
    checkSections(action.sections, at, 'rows', 10, (entry, rat) => {
      const row = object(entry, rat, ['id', 'title', 'description']);
      string(row.id, `${rat}['id']`, 200);
      string(row.title, `${rat}['title']`, 24);
      if (row.description !== undefined) {
        need(typeof row.description === 'string', `Param ${rat}['description'] must be a string.`);
        valid(row.description.length <= 72, `Param ${rat}['description'] must be at most 72 characters.`);
      }
    });
  },
  cta_url: checkCta,
  location_request_message(action, at) {
    known(action, ['name'], at);
    valid(action.name === 'send_location', `Param ${at}['name'] must be 'send_location'.`);
  },
  address_message(action, at) {
    known(action, ['name', 'parameters'], at);
    valid(action.name === 'address_message', `Param ${at}['name'] must be 'address_message'.`);
    const parameters = object(action.parameters, `${at}['parameters']`, ['country', 'values', 'saved_addresses', 'validation_errors']);
    present(parameters.country, `${at}['parameters']['country']`);
    valid(
      ADDRESS_COUNTRIES.includes(String(parameters.country)),
      `Param ${at}['parameters']['country'] must be one of {${ADDRESS_COUNTRIES.join(', ')}}: address messages are not offered in ${String(parameters.country)}.`,
    );
    if (parameters.values !== undefined) {
      const values = object(parameters.values, `${at}['parameters']['values']`, ADDRESS_FIELDS);
      for (const [field, value] of Object.entries(values))
        string(value, `${at}['parameters']['values']['${field}']`, field === 'in_pin_code' ? 6 : 512);
    }
  },
  product(action, at) {
    known(action, ['catalog_id', 'product_retailer_id'], at);
    string(action.catalog_id, `${at}['catalog_id']`, 64);
    string(action.product_retailer_id, `${at}['product_retailer_id']`, 100);
  },
  product_list(action, at) {
    known(action, ['catalog_id', 'sections'], at);
    string(action.catalog_id, `${at}['catalog_id']`, 64);
    checkSections(action.sections, at, 'product_items', 30, (entry, pat) => {
      string(object(entry, pat, ['product_retailer_id']).product_retailer_id, `${pat}['product_retailer_id']`, 100);
    });
  },
  catalog_message(action, at) {
    known(action, ['name', 'parameters'], at);
    valid(action.name === 'catalog_message', `Param ${at}['name'] must be 'catalog_message'.`);
    // Without parameters the catalog's first product is the thumbnail (the documentation); with them,
    // the thumbnail is required (the OpenAPI document), so an empty object is refused.
    if (action.parameters === undefined) return;
    const parameters = object(action.parameters, `${at}['parameters']`, ['thumbnail_product_retailer_id']);
    string(parameters.thumbnail_product_retailer_id, `${at}['parameters']['thumbnail_product_retailer_id']`, 100);
  },
  carousel(action, at) {
    known(action, ['cards'], at);
    const cards = array(action.cards, `${at}['cards']`, 2, 10);
    let first: string | undefined;
    cards.forEach((entry, i) => {
      const cat = `${at}['cards'][${i}]`;
      const kind = checkCard(entry, cat, i);
      first ??= kind;
      valid(
        kind === first,
        `Param ${cat} must be like the first card (${first}), not ${kind}: every card has the same kind and number of buttons.`,
      );
    });
  },
  flow(action, at) {
    known(action, ['name', 'parameters'], at);
    valid(action.name === 'flow', `Param ${at}['name'] must be 'flow'.`);
    const pat = `${at}['parameters']`;
    const parameters = object(action.parameters, pat, [
      'flow_message_version',
      'flow_id',
      'flow_name',
      'flow_cta',
      'mode',
      'flow_token',
      'flow_action',
      'flow_action_payload',
    ]);
    present(parameters.flow_message_version, `${pat}['flow_message_version']`);
    valid(parameters.flow_message_version === '3', `Param ${pat}['flow_message_version'] must be '3'.`);
    if (parameters.flow_id === undefined && parameters.flow_name === undefined)
      present(undefined, `${pat}['flow_id'] or ${pat}['flow_name']`);
    valid(parameters.flow_id === undefined || parameters.flow_name === undefined, `Param ${pat}['flow_name'] cannot be used with flow_id.`);
    if (parameters.flow_id !== undefined) string(parameters.flow_id, `${pat}['flow_id']`, 256);
    if (parameters.flow_name !== undefined) string(parameters.flow_name, `${pat}['flow_name']`, 256);
    string(parameters.flow_cta, `${pat}['flow_cta']`, 30);
    if (parameters.mode !== undefined)
      valid(['draft', 'published'].includes(String(parameters.mode)), `Param ${pat}['mode'] must be one of {draft, published}.`);
    if (parameters.flow_token !== undefined) string(parameters.flow_token, `${pat}['flow_token']`, 1024);
    const flowAction = parameters.flow_action ?? 'navigate';
    valid(
      ['navigate', 'data_exchange'].includes(String(flowAction)),
      `Param ${pat}['flow_action'] must be one of {navigate, data_exchange}.`,
    );
    if (parameters.flow_action_payload === undefined) return;
    valid(flowAction === 'navigate', `Param ${pat}['flow_action_payload'] must be omitted unless flow_action is navigate.`);
    const payload = object(parameters.flow_action_payload, `${pat}['flow_action_payload']`, ['screen', 'data']);
    if (payload.screen !== undefined) string(payload.screen, `${pat}['flow_action_payload']['screen']`, 256);
    if (payload.data !== undefined) {
      need(isObject(payload.data), `Param ${pat}['flow_action_payload']['data'] must be an object.`);
      valid(Object.keys(payload.data).length > 0, `Param ${pat}['flow_action_payload']['data'] must be a non-empty object.`);
    }
  },
};

/** Checks one carousel card; answers its kind ("cta_url", "product", or "quick_reply×N"). */
function checkCard(entry: unknown, at: string, index: number): string {
  need(isObject(entry), `Param ${at} must be an object.`);
  present(entry.card_index, `${at}['card_index']`);
  valid(entry.card_index === index, `Param ${at}['card_index'] must be ${index}.`);
  if (entry.type === 'product') {
    known(entry, ['card_index', 'type', 'action'], at);
    const action = object(entry.action, `${at}['action']`, ['product_retailer_id', 'catalog_id']);
    string(action.product_retailer_id, `${at}['action']['product_retailer_id']`, 100);
    string(action.catalog_id, `${at}['action']['catalog_id']`, 64);
    return 'product';
  }
  valid(
    entry.type === undefined || entry.type === 'cta_url',
    `Param ${at}['type'] must be 'cta_url' or 'product' (none for quick-reply cards).`,
  );
  known(entry, ['card_index', 'type', 'header', 'body', 'action'], at);
  checkHeader(entry.header, `${at}['header']`, ['image', 'video']);
  if (entry.body !== undefined) string(object(entry.body, `${at}['body']`, ['text']).text, `${at}['body']['text']`, 160);
  present(entry.action, `${at}['action']`);
  need(isObject(entry.action), `Param ${at}['action'] must be an object.`);
  if (entry.type === 'cta_url') {
    checkCta(entry.action, `${at}['action']`);
    return 'cta_url';
  }
  known(entry.action, ['buttons'], `${at}['action']`);
  const buttons = array(entry.action.buttons, `${at}['action']['buttons']`, 1, 2);
  buttons.forEach((b, j) => {
    const bat = `${at}['action']['buttons'][${j}]`;
    const button = object(b, bat, ['type', 'quick_reply']);
    valid(button.type === 'quick_reply', `Param ${bat}['type'] must be 'quick_reply'.`);
    const reply = object(button.quick_reply, `${bat}['quick_reply']`, ['id', 'title']);
    string(reply.id, `${bat}['quick_reply']['id']`, 256);
    string(reply.title, `${bat}['quick_reply']['title']`, 20);
  });
  return `quick_reply×${buttons.length}`;
}
