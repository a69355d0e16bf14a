/** The provider's checks of an interactive message: each type's header, body, footer and action (buttons, lists, flows, products, address, carousel cards). */
import { isObject, isHttpUrl, need, present, valid, known, object, string, array, checkMedia, type Json } from './params.ts';

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

export function checkInteractive(payload: unknown) {
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
