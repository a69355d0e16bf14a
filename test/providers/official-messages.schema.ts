/**
 * The official provider's outbound send bodies (POST /{version}/{phone-number-id}/messages), written
 * from its published OpenAPI document (business-messaging-api_v23.0.yaml: Message and the schemas it
 * names) and, where those are loose (cta_url, carousel, location request, address), from its
 * developer documentation. Strict: a field the provider does not document fails.
 *
 * Where the two disagree the documentation's narrower or later reading is taken and said so:
 * - template `language.policy` is optional (the examples send `{code}` alone);
 * - catalog_message `parameters` is optional (the documentation: without a thumbnail the catalog's
 *   first product is shown), but when sent it names `thumbnail_product_retailer_id` (the document
 *   requires it there, so `parameters: {}` is refused);
 * - list bodies may be 4096 characters (list documentation), other interactive bodies 1024;
 * - address messages: India only (documentation since 2025; Singapore was dropped).
 */
import { z } from 'zod';

const text = (max: number) => z.string().min(1).max(max);
const url = z.url({ protocol: /^https?$/ });

/** MediaObject: exactly one of id or link. */
const mediaObject = <T extends z.ZodRawShape>(extra: T) =>
  z.union([z.strictObject({ id: text(256), ...extra }), z.strictObject({ link: url, ...extra })]);

const caption = { caption: z.string().max(1024).optional() };
const media = {
  image: mediaObject(caption),
  video: mediaObject(caption),
  document: mediaObject({ ...caption, filename: z.string().min(1).max(240).optional() }),
  audio: mediaObject({}),
  sticker: mediaObject({}),
};

const coordinate = (limit: number) =>
  z
    .union([
      z.number(),
      z
        .string()
        .regex(/^-?\d+(\.\d+)?$/)
        .transform(Number),
    ])
    .pipe(z.number().min(-limit).max(limit));

const location = z.strictObject({
  latitude: coordinate(90),
  longitude: coordinate(180),
  name: z.string().optional(),
  address: z.string().optional(),
});

const typeOf = z.enum(['HOME', 'WORK']);
const contact = z.strictObject({
  addresses: z
    .array(
      z.strictObject({
        street: z.string().optional(),
        city: z.string().optional(),
        state: z.string().optional(),
        zip: z.string().optional(),
        country: z.string().optional(),
        country_code: z.string().optional(),
        type: typeOf.optional(),
      }),
    )
    .optional(),
  birthday: z.iso.date().optional(),
  emails: z.array(z.strictObject({ email: z.email(), type: typeOf.optional() })).optional(),
  name: z.strictObject({
    formatted_name: text(1024),
    first_name: z.string().optional(),
    last_name: z.string().optional(),
    middle_name: z.string().optional(),
    prefix: z.string().optional(),
    suffix: z.string().optional(),
  }),
  org: z.strictObject({ company: z.string().optional(), department: z.string().optional(), title: z.string().optional() }).optional(),
  phones: z.array(z.strictObject({ phone: text(64), type: typeOf.optional(), wa_id: z.string().optional() })).optional(),
  urls: z.array(z.strictObject({ url, type: typeOf.optional() })).optional(),
});

const reaction = z.strictObject({ message_id: text(256), emoji: z.string() });

const templateParameter = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: text(32768) }),
  z.strictObject({
    type: z.literal('currency'),
    currency: z.strictObject({ fallback_value: z.string(), code: z.string().length(3), amount_1000: z.number().int() }),
  }),
  z.strictObject({ type: z.literal('date_time'), date_time: z.looseObject({ fallback_value: z.string() }) }),
  z.strictObject({ type: z.literal('image'), image: mediaObject({}) }),
  z.strictObject({ type: z.literal('video'), video: mediaObject({}) }),
  z.strictObject({ type: z.literal('document'), document: mediaObject({ filename: z.string().optional() }) }),
  z.strictObject({ type: z.literal('payload'), payload: text(256) }),
]);
const template = z.strictObject({
  name: text(512),
  language: z.strictObject({ code: text(15), policy: z.literal('deterministic').optional() }),
  components: z
    .array(
      z.discriminatedUnion('type', [
        z.strictObject({ type: z.literal('header'), parameters: z.array(templateParameter).min(1) }),
        z.strictObject({ type: z.literal('body'), parameters: z.array(templateParameter) }),
        z.strictObject({
          type: z.literal('button'),
          sub_type: z.enum(['quick_reply', 'url', 'catalog']),
          index: z.string().regex(/^\d{1,2}$/),
          parameters: z.array(templateParameter).min(1),
        }),
      ]),
    )
    .optional(),
});

// Interactive parts.
const textHeader = z.strictObject({ type: z.literal('text'), text: text(60), sub_text: z.string().max(60).optional() });
const header = z.union([
  textHeader,
  z.strictObject({ type: z.literal('image'), image: mediaObject({}) }),
  z.strictObject({ type: z.literal('video'), video: mediaObject({}) }),
  z.strictObject({ type: z.literal('document'), document: mediaObject({ filename: z.string().optional() }) }),
]);
const body = (max = 1024) => z.strictObject({ text: text(max) });
const footer = z.strictObject({ text: text(60) });
const ctaParameters = z.strictObject({ display_text: text(20), url });

const unique = (values: string[]) => new Set(values).size === values.length;

/** 1 to 10 sections of items (list rows, products), at most `max` items in all, titled when several. */
function sections<K extends string, I extends z.ZodType>(key: K, item: I, max: number) {
  return z
    .array(
      z.strictObject({ title: z.string().max(24).optional(), [key]: z.array(item).min(1).max(max) } as {
        title: z.ZodOptional<z.ZodString>;
      } & Record<K, z.ZodArray<I>>),
    )
    .min(1)
    .max(10)
    .refine((s) => (s as Array<Record<string, unknown[]>>).reduce((n, x) => n + x[key]!.length, 0) <= max, `at most ${max} ${key} in all`)
    .refine(
      (s) => s.length === 1 || (s as Array<{ title?: string }>).every((x) => x.title),
      'a title on every section when there are several',
    );
}

const replyButtons = z.strictObject({
  type: z.literal('button'),
  header: header.optional(),
  body: body(),
  footer: footer.optional(),
  action: z.strictObject({
    buttons: z
      .array(z.strictObject({ type: z.literal('reply'), reply: z.strictObject({ id: text(256), title: text(20) }) }))
      .min(1)
      .max(3)
      .refine((b) => unique(b.map((x) => x.reply.id)) && unique(b.map((x) => x.reply.title)), 'button ids and titles are unique'),
  }),
});

const list = z.strictObject({
  type: z.literal('list'),
  // The provider allows only a text header on lists.
  header: textHeader.optional(),
  body: body(4096),
  footer: footer.optional(),
  action: z.strictObject({
    button: text(20),
    sections: sections('rows', z.strictObject({ id: text(200), title: text(24), description: z.string().max(72).optional() }), 10),
  }),
});

const ctaUrl = z.strictObject({
  type: z.literal('cta_url'),
  header: header.optional(),
  body: body(),
  footer: footer.optional(),
  action: z.strictObject({ name: z.literal('cta_url'), parameters: ctaParameters }),
});

const locationRequest = z.strictObject({
  type: z.literal('location_request_message'),
  body: body(),
  action: z.strictObject({ name: z.literal('send_location') }),
});

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
] as const;
const addressValues = z.strictObject(
  Object.fromEntries(
    ADDRESS_FIELDS.map((f) => [
      f,
      z
        .string()
        .max(f === 'in_pin_code' ? 6 : 512)
        .optional(),
    ]),
  ) as Record<(typeof ADDRESS_FIELDS)[number], z.ZodOptional<z.ZodString>>,
);
const address = z.strictObject({
  type: z.literal('address_message'),
  header: header.optional(),
  body: body(),
  footer: footer.optional(),
  action: z.strictObject({
    name: z.literal('address_message'),
    parameters: z.strictObject({
      country: z.literal('IN'),
      values: addressValues.optional(),
      saved_addresses: z.array(z.strictObject({ id: text(256), value: addressValues })).optional(),
      validation_errors: z.record(z.string(), z.string()).optional(),
    }),
  }),
});

const product = z.strictObject({
  type: z.literal('product'),
  // No header on a single product.
  body: body().optional(),
  footer: footer.optional(),
  action: z.strictObject({ catalog_id: text(64), product_retailer_id: text(100) }),
});

const productList = z.strictObject({
  type: z.literal('product_list'),
  header: textHeader,
  body: body(),
  footer: footer.optional(),
  action: z.strictObject({
    catalog_id: text(64),
    sections: sections('product_items', z.strictObject({ product_retailer_id: text(100) }), 30),
  }),
});

const catalog = z.strictObject({
  type: z.literal('catalog_message'),
  body: body(),
  footer: footer.optional(),
  action: z.strictObject({
    name: z.literal('catalog_message'),
    parameters: z.strictObject({ thumbnail_product_retailer_id: text(100) }).optional(),
  }),
});

const cardHeader = z.union([
  z.strictObject({ type: z.literal('image'), image: mediaObject({}) }),
  z.strictObject({ type: z.literal('video'), video: mediaObject({}) }),
]);
const cardIndex = z.number().int().min(0).max(9);
const urlCard = z.strictObject({
  card_index: cardIndex,
  type: z.literal('cta_url'),
  header: cardHeader,
  body: z.strictObject({ text: text(160) }).optional(),
  action: z.strictObject({ name: z.literal('cta_url'), parameters: ctaParameters }),
});
const replyCard = z.strictObject({
  card_index: cardIndex,
  header: cardHeader,
  body: z.strictObject({ text: text(160) }).optional(),
  action: z.strictObject({
    buttons: z
      .array(z.strictObject({ type: z.literal('quick_reply'), quick_reply: z.strictObject({ id: text(256), title: text(20) }) }))
      .min(1),
  }),
});
const productCard = z.strictObject({
  card_index: cardIndex,
  type: z.literal('product'),
  action: z.strictObject({ product_retailer_id: text(100), catalog_id: text(64) }),
});
type Card = z.infer<typeof urlCard> | z.infer<typeof replyCard> | z.infer<typeof productCard>;
const kindOf = (card: Card) => ('type' in card ? card.type : `quick_reply×${card.action.buttons.length}`);
const carousel = z.strictObject({
  type: z.literal('carousel'),
  // No header or footer on a carousel.
  body: body(),
  action: z.strictObject({
    cards: z
      .array(z.union([urlCard, replyCard, productCard]))
      .min(2)
      .max(10)
      .refine((cards) => cards.every((c) => kindOf(c) === kindOf(cards[0]!)), 'every card has the same kind and number of buttons')
      .refine((cards) => cards.every((c, i) => c.card_index === i), 'card_index counts from 0'),
  }),
});

/** A flow message (the document's flow action, v3): a flow by id or by name, never both. */
const flow = z.strictObject({
  type: z.literal('flow'),
  header: header.optional(),
  body: body(),
  footer: footer.optional(),
  action: z.strictObject({
    name: z.literal('flow'),
    parameters: z
      .strictObject({
        flow_message_version: z.literal('3'),
        flow_id: text(256).optional(),
        flow_name: text(256).optional(),
        flow_cta: text(30),
        mode: z.enum(['draft', 'published']).optional(),
        flow_token: text(1024).optional(),
        flow_action: z.enum(['navigate', 'data_exchange']).optional(),
        flow_action_payload: z
          .strictObject({
            screen: text(256).optional(),
            data: z
              .record(z.string(), z.unknown())
              .refine((d) => Object.keys(d).length > 0, 'a non-empty object')
              .optional(),
          })
          .optional(),
      })
      .refine((p) => (p.flow_id === undefined) !== (p.flow_name === undefined), 'flow_id or flow_name, not both')
      .refine((p) => p.flow_action_payload === undefined || p.flow_action !== 'data_exchange', 'no payload with data_exchange'),
  }),
});

const interactive = z.discriminatedUnion('type', [
  replyButtons,
  list,
  ctaUrl,
  locationRequest,
  address,
  product,
  productList,
  catalog,
  carousel,
  flow,
]);

const envelope = {
  messaging_product: z.literal('whatsapp'),
  recipient_type: z.enum(['individual', 'group']).optional(),
  to: z.string().regex(/^\+?\d{6,20}$/),
  context: z.strictObject({ message_id: text(256) }).optional(),
  biz_opaque_callback_data: z.string().max(512).optional(),
};

const message = <T extends string, S extends z.ZodType>(type: T, object: S) =>
  z.strictObject({ ...envelope, type: z.literal(type), [type]: object } as { type: z.ZodLiteral<T> } & typeof envelope & Record<T, S>);

/** A message send body: one object named after its type. */
export const OfficialMessageBody = z.discriminatedUnion('type', [
  message('text', z.strictObject({ body: text(4096), preview_url: z.boolean().optional() })),
  message('image', media.image),
  message('video', media.video),
  message('audio', media.audio),
  message('document', media.document),
  message('sticker', media.sticker),
  message('location', location),
  message('contacts', z.array(contact).min(1).max(5)),
  message('reaction', reaction),
  message('template', template),
  message('interactive', interactive),
]);

/** The mark-as-read body (MarkMessageRequestPayload), with the typing indicator it may carry. */
export const OfficialMarkAsReadBody = z.strictObject({
  messaging_product: z.literal('whatsapp'),
  status: z.literal('read'),
  message_id: text(256),
  typing_indicator: z.strictObject({ type: z.literal('text') }).optional(),
});

/** Whatever POST /{phone-number-id}/messages accepts. */
export const OfficialSendBody = z.union([OfficialMarkAsReadBody, OfficialMessageBody]);

/** The problems with a body, as `path: message` lines; empty when it conforms. */
export function conformanceProblems(body: unknown): string[] {
  const isRead = typeof body === 'object' && body !== null && 'status' in body;
  const parsed = (isRead ? OfficialMarkAsReadBody : OfficialMessageBody).safeParse(body);
  if (parsed.success) return [];
  return parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
}
