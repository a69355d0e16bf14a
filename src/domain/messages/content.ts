/**
 * Message content by type: accepted shapes (with the spec's aliases), validated and normalized into
 * the one shape adapters translate. Every rejection lists the offending field paths under /content.
 */
import { z } from 'zod';
import type { FieldError } from '../errors.ts';
import { DomainError, invalid } from '../errors.ts';
import type { MessageType } from '../channels/capabilities.ts';

type Json = Record<string, unknown>;

/** The kinds of number, email, URL and address a shared contact card may name (the provider's enum). */
const CONTACT_TYPES = ['HOME', 'WORK'] as const;
/** Numbers, emails, URLs or addresses one card may hold, each. */
const CARD_ITEMS_MAX = 20;
/** The card's typed lists (each entry's `type` is one of CONTACT_TYPES). */
const CARD_LISTS = ['phones', 'emails', 'urls', 'addresses'] as const;
/** Countries address messages are offered in (the provider's documentation: India only). */
const ADDRESS_COUNTRIES = ['IN'] as const;
/** The fields an address message may prefill, with their documented length limits. */
const ADDRESS_FIELDS: Record<string, number> = {
  name: 512,
  phone_number: 512,
  in_pin_code: 6,
  house_number: 512,
  floor_number: 512,
  tower_number: 512,
  building_name: 512,
  address: 512,
  landmark_area: 512,
  city: 512,
  state: 512,
};
/** Products a multi-product message may show across all its sections. */
const MULTI_PRODUCT_MAX = 30;

const nonEmpty = (max: number) => z.string().trim().min(1).max(max);
/** Media must be fetched over https; whether the host is public is checked by the worker (DNS). */
const mediaUrl = z.url({ protocol: /^https?$/, error: 'must be a URL' }).max(2048);
const providerMessageId = z.string().trim().min(1).max(256).meta({ description: 'A provider message id (e.g. wamid....)' });

const replyTo = z
  .object({ id: providerMessageId, participant: z.string().max(128).optional() })
  .strict()
  .meta({ description: 'Quote a message: its provider message id, and the participant in some group or multi-device contexts' });

/** A file the provider holds, by the id it gave (POST /v1/channels/{id}/media): sent without a URL. */
const mediaId = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,256}$/, { error: 'a media id the provider gave (POST /v1/channels/{channelID}/media)' })
  .meta({ description: "The provider's media id of an uploaded file (POST /v1/channels/{channelID}/media), instead of media_url" });

/** Media comes from exactly one place: a URL Parley hands on, or the provider's id of an upload. */
function oneSource<T extends z.ZodType<{ media_url?: string; media_id?: string }>>(schema: T) {
  return schema
    .refine((m) => m.media_url !== undefined || m.media_id !== undefined, {
      error: 'media_url or media_id is required',
      path: ['media_url'],
    })
    .refine((m) => m.media_url === undefined || m.media_id === undefined, { error: 'media_url or media_id, not both', path: ['media_id'] });
}

const header = z.union([
  nonEmpty(60),
  z.object({ type: z.literal('text'), text: nonEmpty(60) }).strict(),
  oneSource(
    z
      .object({
        type: z.enum(['image', 'video', 'document']),
        media_url: mediaUrl.optional(),
        media_id: mediaId.optional(),
        file_name: z.string().trim().min(1).max(240).optional().meta({ description: 'A document header: the name it shows' }),
      })
      .strict(),
  ).refine((h) => h.file_name === undefined || h.type === 'document', {
    error: 'only a document header has a file name',
    path: ['file_name'],
  }),
]);
const footer = nonEmpty(60);

/** People a text names (`@` them in a group): their numbers, with country code. */
const mentions = z
  .array(z.string().regex(/^\+?[\d\s()-]{5,30}$/, { error: 'a phone number with its country code' }))
  .min(1)
  .max(50)
  .meta({
    description:
      'Unofficial channels: the people the text mentions, by number (write @<digits> in body where each is named); their phones show the mention',
  });

/** Marked forwarded (POST /v1/messages/{id}/forward sets it; unofficial channels). */
const forwarded = z
  .literal(true)
  .meta({ description: 'Unofficial channels: shown as forwarded (POST /v1/messages/{messageID}/forward sets it)' });

const text = z
  .object({
    body: nonEmpty(4096),
    preview_url: z.boolean().optional(),
    reply_to: replyTo.optional(),
    mentions: mentions.optional(),
    forwarded: forwarded.optional(),
  })
  .strict()
  .meta({ examples: [{ body: 'Your order has shipped 📦' }, { text: 'Reply to this', reply_to: { id: 'wamid.HBgM...' } }] });

const mediaCommon = {
  media_url: mediaUrl.optional(),
  media_id: mediaId.optional(),
  media_type: z.string().max(100).optional(),
  reply_to: replyTo.optional(),
  forwarded: forwarded.optional(),
};
const image = oneSource(z.object({ ...mediaCommon, caption: z.string().max(1024).optional() }).strict());
const video = oneSource(z.object({ ...mediaCommon, caption: z.string().max(1024).optional() }).strict());
const audio = oneSource(z.object({ ...mediaCommon }).strict());
const document = oneSource(
  z.object({ ...mediaCommon, caption: z.string().max(1024).optional(), file_name: z.string().max(240).optional() }).strict(),
);
const sticker = oneSource(z.object({ ...mediaCommon }).strict());

const location = z
  .object({
    name: nonEmpty(1000),
    address: nonEmpty(1000),
    latitude: z.number().min(-90).max(90),
    longitude: z.number().min(-180).max(180),
    reply_to: replyTo.optional(),
    forwarded: forwarded.optional(),
  })
  .strict();

const locationRequest = z.object({ body: nonEmpty(1024) }).strict();

/** What a number, address, email or URL on a card is: checked against the provider's kinds by its rules (a 422 naming it). */
const contactType = z
  .string()
  .max(16)
  .optional()
  .meta({ description: `${CONTACT_TYPES.join(' or ')} (the kinds the provider knows; any case)` });
const cardText = (max = 256) => z.string().trim().min(1).max(max).optional();
const cardPhone = z.string().trim().min(3).max(40);

const contact = z
  .object({
    full_name: nonEmpty(256).meta({ description: 'The name as shown (the formatted name)' }),
    first_name: cardText(),
    last_name: cardText(),
    middle_name: cardText(),
    name_prefix: cardText(64),
    name_suffix: cardText(64),
    phone: cardPhone.optional().meta({ description: 'One number (or use phones for several)' }),
    phone_type: contactType,
    phones: z
      .array(
        z
          .object({
            phone: cardPhone,
            type: contactType,
            wa_id: z
              .string()
              .regex(/^\d{6,20}$/, { error: 'the number on the chat app: digits, no +' })
              .optional(),
          })
          .strict(),
      )
      .min(1)
      .max(CARD_ITEMS_MAX)
      .optional(),
    emails: z
      .array(z.object({ email: z.email({ error: 'an email address' }).max(320), type: contactType }).strict())
      .max(CARD_ITEMS_MAX)
      .optional(),
    urls: z
      .array(z.object({ url: z.url({ protocol: /^https?$/, error: 'an http(s) URL' }).max(2000), type: contactType }).strict())
      .max(CARD_ITEMS_MAX)
      .optional(),
    addresses: z
      .array(
        z
          .object({
            street: cardText(512),
            city: cardText(),
            state: cardText(),
            zip: cardText(32),
            country: cardText(),
            country_code: z
              .string()
              .regex(/^[A-Za-z]{2}$/, { error: 'an ISO 3166 alpha-2 country code' })
              .optional(),
            type: contactType,
          })
          .strict(),
      )
      .max(CARD_ITEMS_MAX)
      .optional(),
    organization: cardText().meta({ description: 'The company' }),
    department: cardText(),
    job_title: cardText(),
    birthday: z.iso.date({ error: 'a date, YYYY-MM-DD' }).optional(),
    reply_to: replyTo.optional(),
  })
  .strict()
  .refine((c) => c.phone !== undefined || c.phones !== undefined, {
    error: 'a number is required: phone, or phones for several',
    path: ['phone'],
  })
  .meta({
    examples: [
      { full_name: 'Ana Lima', phone: '+5511912345678', organization: 'Acme' },
      {
        full_name: 'Ana Lima',
        first_name: 'Ana',
        last_name: 'Lima',
        phones: [
          { phone: '+5511912345678', type: 'WORK' },
          { phone: '+5511987654321', type: 'HOME' },
        ],
        emails: [{ email: 'ana@example.com', type: 'WORK' }],
        organization: 'Acme',
        job_title: 'Buyer',
      },
    ],
  });

const reaction = z
  .object({
    message_id: providerMessageId,
    reaction: z.string().max(16).meta({ description: 'An emoji; an empty string removes the reaction on providers that allow it' }),
    from_me: z.boolean().default(true),
    participant: z.string().max(128).optional(),
  })
  .strict();

const markAsRead = z.object({ message_id: providerMessageId }).strict();

const templateParameter = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string().min(1).max(1024) }).strict(),
  z
    .object({
      type: z.literal('image'),
      image: z.object({ link: z.url({ protocol: /^https$/, error: 'must be a public https URL' }) }).strict(),
    })
    .strict(),
  ...(['video', 'document'] as const).map((type) =>
    z
      .object({
        type: z.literal(type),
        [type]: z
          .object({
            link: z.url({ protocol: /^https$/, error: 'must be a public https URL' }),
            ...(type === 'document' ? { filename: z.string().min(1).max(240).optional() } : {}),
          })
          .strict(),
      })
      .strict(),
  ),
  z.object({ type: z.literal('payload'), payload: z.string().min(1).max(256) }).strict(),
  z.object({ type: z.literal('coupon_code'), coupon_code: z.string().min(1).max(15) }).strict(),
]);

const templateComponent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('header'), parameters: z.array(templateParameter).max(10) }).strict(),
  z.object({ type: z.literal('body'), parameters: z.array(templateParameter).max(100) }).strict(),
  z
    .object({
      type: z.literal('button'),
      sub_type: z.enum(['url', 'quick_reply', 'copy_code'], {
        error: 'sub_type is url, quick_reply or copy_code, matching the template button',
      }),
      index: z.string().regex(/^\d{1,2}$/, { error: 'index is a zero-based number sent as a string, e.g. "0"' }),
      parameters: z.array(templateParameter).max(10),
    })
    .strict(),
]);

const template = z
  .object({
    template: z
      .object({
        name: z.string().regex(/^[a-z0-9_]{1,512}$/, { error: 'a template name: lower-case letters, digits and underscores' }),
        language: z
          .object({ code: z.string().regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, { error: "the approved template's locale code, e.g. en_US" }) })
          .strict(),
        components: z.array(templateComponent).max(10).optional(),
      })
      .strict(),
  })
  .strict();

const buttons = z
  .object({
    body: nonEmpty(1024),
    buttons: z
      .array(z.object({ id: nonEmpty(256), title: nonEmpty(20) }).strict())
      .min(1)
      .max(3, { error: 'at most 3 buttons' }),
    header: header.optional(),
    footer: footer.optional(),
  })
  .strict();

const list = z
  .object({
    body: nonEmpty(4096),
    button_text: nonEmpty(20),
    sections: z
      .array(
        z
          .object({
            title: nonEmpty(24),
            rows: z
              .array(z.object({ id: nonEmpty(200), title: nonEmpty(24), description: z.string().max(72).optional() }).strict())
              .min(1)
              .max(10),
          })
          .strict(),
      )
      .min(1)
      .max(10),
    header: header.optional(),
    footer: footer.optional(),
  })
  .strict()
  .refine((l) => l.sections.reduce((n, s) => n + s.rows.length, 0) <= 10, {
    error: 'at most 10 rows across all sections',
    path: ['sections'],
  });

const ctaUrl = z
  .object({
    body: nonEmpty(1024),
    display_text: nonEmpty(20),
    url: z.url({ protocol: /^https?$/ }).max(2000),
    header: header.optional(),
    footer: footer.optional(),
  })
  .strict();

const carouselButton = z.discriminatedUnion('type', [
  z.object({ type: z.literal('url'), title: nonEmpty(20), url: z.url({ protocol: /^https?$/ }) }).strict(),
  z.object({ type: z.literal('quick_reply'), id: nonEmpty(256), title: nonEmpty(20) }).strict(),
]);

const mediaCarousel = z
  .object({
    body: nonEmpty(1024),
    cards: z
      .array(
        oneSource(
          z
            .object({
              media_type: z.enum(['image', 'video']),
              media_url: mediaUrl.optional(),
              media_id: mediaId.optional(),
              body: z.string().max(160).optional(),
              buttons: z.array(carouselButton).min(1).max(2),
            })
            .strict(),
        ),
      )
      .min(2)
      .max(10),
  })
  .strict();

const productCarousel = z
  .object({
    body: nonEmpty(1024),
    catalog_id: nonEmpty(64),
    products: z
      .array(z.object({ product_retailer_id: nonEmpty(100) }).strict())
      .min(2)
      .max(10),
  })
  .strict();

const singleProduct = z
  .object({
    catalog_id: nonEmpty(64),
    product_retailer_id: nonEmpty(100),
    body: z.string().max(1024).optional(),
    footer: footer.optional(),
  })
  .strict();

const multiProduct = z
  .object({
    catalog_id: nonEmpty(64),
    // Required, but checked with the provider's rules below (a 422 that names it).
    header: nonEmpty(60).optional(),
    body: nonEmpty(1024),
    footer: footer.optional(),
    sections: z
      .array(z.object({ title: nonEmpty(24), product_retailer_ids: z.array(nonEmpty(100)).min(1).max(30) }).strict())
      .min(1)
      .max(10),
  })
  .strict();

const catalog = z
  .object({ body: nonEmpty(1024), footer: footer.optional(), thumbnail_product_retailer_id: z.string().max(100).optional() })
  .strict();

const address = z
  .object({
    body: nonEmpty(1024),
    country: z.string().regex(/^[A-Z]{2}$/, { error: 'an ISO 3166 alpha-2 country code, e.g. IN' }),
    values: z
      .record(z.string(), z.string().max(512))
      .optional()
      .meta({ description: `Prefilled fields (${Object.keys(ADDRESS_FIELDS).join(', ')})` }),
  })
  .strict();

const link = z
  .object({
    url: z.url({ protocol: /^https?$/ }).max(2000),
    body: z.string().max(4096).optional(),
    title: z.string().max(256).optional(),
    description: z.string().max(1024).optional(),
    thumbnail_url: mediaUrl.optional(),
  })
  .strict();

const poll = z
  .object({
    question: nonEmpty(255),
    options: z.array(nonEmpty(100)).min(2).max(12),
    multiple_answers: z.boolean().default(false),
  })
  .strict()
  .refine((p) => new Set(p.options).size === p.options.length, { error: 'options must differ', path: ['options'] });

/** An interactive flow (the provider's Flows): one by id or by name, opened with a call to action. */
const flow = z
  .object({
    body: nonEmpty(1024),
    header: header.optional(),
    footer: footer.optional(),
    flow_id: nonEmpty(256).optional().meta({ description: "The flow's id at the provider (or flow_name)" }),
    flow_name: nonEmpty(256).optional().meta({ description: "The flow's name (or flow_id)" }),
    flow_cta: nonEmpty(30).meta({ description: 'The text of the button that opens the flow' }),
    mode: z.enum(['draft', 'published']).optional().meta({ description: 'published unless given (draft flows for testing)' }),
    flow_token: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .meta({ description: "Your identifier of this flow's session, echoed in its replies" }),
    flow_action: z.enum(['navigate', 'data_exchange']).optional().meta({ description: 'navigate unless given' }),
    flow_action_payload: z
      .object({
        screen: nonEmpty(256).optional().meta({ description: 'The first screen (the flow’s first entry screen unless given)' }),
        data: z
          .record(z.string(), z.unknown())
          .refine((d) => Object.keys(d).length > 0, { error: 'a non-empty object' })
          .optional()
          .meta({ description: "The first screen's input data" }),
      })
      .strict()
      .optional()
      .meta({ description: 'Only with flow_action navigate' }),
  })
  .strict()
  .refine((f) => (f.flow_id === undefined) !== (f.flow_name === undefined), {
    error: 'one of flow_id or flow_name, not both',
    path: ['flow_id'],
  })
  .refine((f) => f.flow_action !== 'data_exchange' || f.flow_action_payload === undefined, {
    error: 'a payload goes only with flow_action navigate',
    path: ['flow_action_payload'],
  })
  .meta({ examples: [{ body: 'Book a table', flow_id: '1234567890', flow_cta: 'Book', flow_action_payload: { screen: 'START' } }] });

const presence = z
  .object({
    state: z.enum(['typing', 'recording', 'paused', 'available', 'unavailable']),
    message_id: providerMessageId.optional().meta({
      description:
        "The customer's message it answers (official channels show typing as they mark it read); the conversation's latest when absent",
    }),
  })
  .strict();
const editMessage = z.object({ message_id: providerMessageId, body: nonEmpty(4096) }).strict();
const deleteMessage = z.object({ message_id: providerMessageId, for_everyone: z.boolean().default(true) }).strict();
const statusQuery = z.object({ message_id: providerMessageId }).strict();
const mediaDownload = z
  .object({ message_id: providerMessageId.optional(), media_id: z.string().min(1).max(256).optional() })
  .strict()
  .refine((m) => m.message_id !== undefined || m.media_id !== undefined, {
    error: 'message_id or media_id is required',
    path: ['message_id'],
  });

/** The normalized content schema of each type (after aliases are resolved). */
export const CONTENT_SCHEMAS: Record<MessageType, z.ZodType<Json>> = {
  text,
  image,
  video,
  audio,
  document,
  sticker,
  location,
  location_request: locationRequest,
  contact,
  reaction,
  mark_as_read: markAsRead,
  template,
  buttons,
  list,
  cta_url: ctaUrl,
  media_carousel: mediaCarousel,
  product_carousel: productCarousel,
  single_product: singleProduct,
  multi_product: multiProduct,
  catalog,
  address,
  link,
  poll,
  presence,
  edit_message: editMessage,
  delete_message: deleteMessage,
  message_status_query: statusQuery,
  message_media_download: mediaDownload,
  flow,
} as Record<MessageType, z.ZodType<Json>>;

const MEDIA_TYPES = new Set(['image', 'video', 'audio', 'document', 'sticker']);

const refusal = (pointer: string, message: string): FieldError => ({ pointer, message });

/**
 * Rules the providers hold well-formed content to (the official API's, the strictest): content that
 * breaks one is refused at accept (422) rather than failing at the provider later.
 */
const PROVIDER_RULES: Partial<Record<MessageType, (content: Json) => FieldError[]>> = {
  list(content) {
    const header = content.header as Json | string | undefined;
    if (header && typeof header === 'object' && header.type !== 'text') {
      return [refusal('/content/header/type', `a list may only have a text header, not ${String(header.type)}`)];
    }
    return [];
  },
  media_carousel(content) {
    const cards = content.cards as Array<{ buttons: Array<{ type: string }> }>;
    const kindOf = (buttons: Array<{ type: string }>) =>
      buttons.every((b) => b.type === 'url') ? 'url' : buttons.every((b) => b.type === 'quick_reply') ? 'quick_reply' : 'mixed';
    const errors: FieldError[] = [];
    const first = cards[0]!.buttons;
    cards.forEach((card, i) => {
      const kind = kindOf(card.buttons);
      const at = `/content/cards/${i}/buttons`;
      if (kind === 'mixed') errors.push(refusal(at, 'a card has either one url button or quick_reply buttons, not both'));
      else if (kind === 'url' && card.buttons.length !== 1) errors.push(refusal(at, 'a card has exactly one url button'));
      else if (i > 0 && (kind !== kindOf(first) || card.buttons.length !== first.length)) {
        errors.push(
          refusal(
            at,
            `every card must have the same buttons as the first (${first.length} ${kindOf(first)}), here ${card.buttons.length} ${kind}`,
          ),
        );
      }
    });
    return errors;
  },
  address(content) {
    const errors: FieldError[] = [];
    if (!(ADDRESS_COUNTRIES as readonly string[]).includes(String(content.country))) {
      errors.push(
        refusal('/content/country', `address messages are offered only in ${ADDRESS_COUNTRIES.join(', ')}, not ${String(content.country)}`),
      );
    }
    for (const [field, value] of Object.entries((content.values as Record<string, string> | undefined) ?? {})) {
      const max = ADDRESS_FIELDS[field];
      if (max === undefined)
        errors.push(refusal(`/content/values/${field}`, `not an address field (${Object.keys(ADDRESS_FIELDS).join(', ')})`));
      else if (value.length > max) errors.push(refusal(`/content/values/${field}`, `at most ${max} characters`));
    }
    return errors;
  },
  contact(content) {
    const known = (type: unknown) => type === undefined || (CONTACT_TYPES as readonly string[]).includes(String(type));
    const refuse = (pointer: string, type: unknown) => refusal(pointer, `must be ${CONTACT_TYPES.join(' or ')}, not ${String(type)}`);
    const errors = known(content.phone_type) ? [] : [refuse('/content/phone_type', content.phone_type)];
    for (const list of CARD_LISTS) {
      ((content[list] as Json[] | undefined) ?? []).forEach((entry, i) => {
        if (!known(entry.type)) errors.push(refuse(`/content/${list}/${i}/type`, entry.type));
      });
    }
    return errors;
  },
  multi_product(content) {
    const errors: FieldError[] = [];
    if (content.header === undefined)
      errors.push(refusal('/content/header', 'a multi-product message needs a header (text, up to 60 characters)'));
    const count = (content.sections as Array<{ product_retailer_ids: string[] }>).reduce((n, s) => n + s.product_retailer_ids.length, 0);
    if (count > MULTI_PRODUCT_MAX)
      errors.push(refusal('/content/sections', `at most ${MULTI_PRODUCT_MAX} products across all sections, here ${count}`));
    return errors;
  },
};

/** Resolves the spec's aliases so one schema per type can check the result. */
function resolveAliases(type: MessageType, raw: Json): { content: Json; errors: FieldError[] } {
  const content: Json = { ...raw };
  const errors: FieldError[] = [];
  const take = (target: string, aliases: string[]) => {
    for (const alias of aliases) {
      if (content[alias] === undefined) continue;
      if (content[target] === undefined) content[target] = content[alias];
      delete content[alias];
    }
  };
  if (type === 'text' || type === 'location_request') {
    if (content.text !== undefined) {
      const t = content.text;
      const body = typeof t === 'object' && t !== null && !Array.isArray(t) ? (t as Json).body : t;
      if (content.body === undefined) content.body = body;
      delete content.text;
    }
  }
  if (MEDIA_TYPES.has(type)) {
    take('media_url', type === 'sticker' ? ['sticker_url', 'media', 'url'] : ['media', 'url']);
    take('media_type', ['mediaType', 'type', 'mediatype']);
    take('file_name', ['fileName']);
    if (typeof content.media_type === 'string' && !content.media_type.toLowerCase().startsWith(type) && !content.media_type.includes('/')) {
      errors.push({ pointer: '/content/media_type', message: `media_type ${content.media_type} does not match type ${type}` });
    }
  }
  // Stored as the provider spells it.
  if (type === 'contact') {
    if (typeof content.phone_type === 'string') content.phone_type = content.phone_type.toUpperCase();
    for (const list of CARD_LISTS) {
      const entries = content[list];
      if (!Array.isArray(entries)) continue;
      content[list] = entries.map((e: unknown) =>
        typeof e === 'object' && e !== null && typeof (e as Json).type === 'string'
          ? { ...(e as Json), type: ((e as Json).type as string).toUpperCase() }
          : e,
      );
    }
  }
  if (type === 'template' && content.template_name !== undefined) {
    errors.push({
      pointer: '/content/template_name',
      message: 'wrong shape: use the nested content.template object ({name, language: {code}, components})',
    });
  }
  return { content, errors };
}

const describe = (errors: FieldError[]) => errors.map((f) => `${f.pointer.slice(9) || 'content'}: ${f.message}`).join('; ');

/**
 * Validates and normalizes `content` for `type`; throws `invalid` listing every malformed field, or
 * `unsupported` listing the fields well-formed content breaks the providers' rules with.
 */
export function parseContent(type: MessageType, raw: unknown): Json {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw invalid('content must be an object', [{ pointer: '/content', message: 'must be an object' }]);
  }
  const { content, errors } = resolveAliases(type, raw as Json);
  if (errors.length > 0) {
    throw invalid(`content is invalid: ${describe(errors)}`, errors);
  }
  const parsed = CONTENT_SCHEMAS[type].safeParse(content);
  if (!parsed.success) {
    const fieldErrors: FieldError[] = parsed.error.issues.map((issue) => ({
      pointer: `/content${issue.path.length ? '/' + issue.path.map(String).join('/') : ''}`,
      message:
        issue.code === 'unrecognized_keys' ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}` : issue.message,
    }));
    throw invalid(`content of a ${type} message is invalid: ${describe(fieldErrors)}`, fieldErrors);
  }
  const refused = PROVIDER_RULES[type]?.(parsed.data) ?? [];
  if (refused.length > 0) {
    throw new DomainError('unsupported', `content of a ${type} message cannot be sent: ${describe(refused)}`, { fieldErrors: refused });
  }
  return parsed.data;
}

/** A short preview of a message for conversation lists. */
export function previewOf(type: string, content: Json): string {
  const body = content.body ?? content.caption ?? content.question ?? content.title;
  if (typeof body === 'string' && body) return body.slice(0, 160);
  if (type === 'template') return `[template ${(content.template as Json | undefined)?.name ?? ''}]`;
  return `[${type}]`;
}
