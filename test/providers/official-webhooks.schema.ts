/**
 * The official provider's webhook payloads, as zod schemas written from the fields its published
 * document (the `/whatsapp/webhooks` payloads of business-messaging-api v23.0) and its developer
 * reference (message_template_status_update, template_category_update, message_template_quality_update,
 * account_update, phone_number_quality_update, the messages webhook's errors, system and call permission
 * references, the group webhooks) describe. Required fields are required; objects are
 * strict where the document lists their fields, so an invented field fails.
 */
import { z } from 'zod';

const digits = z.string().regex(/^\d+$/);
const unixSeconds = z.string().regex(/^\d{9,11}$/);

const Metadata = z.strictObject({ display_phone_number: digits, phone_number_id: digits });
const ContactProfile = z.strictObject({ profile: z.strictObject({ name: z.string() }), wa_id: digits, user_id: z.string().optional() });

const ErrorObject = z.strictObject({
  code: z.number().int(),
  title: z.string(),
  message: z.string(),
  error_data: z.strictObject({ details: z.string() }),
  href: z.string().optional(),
});

const Context = z.strictObject({
  from: digits,
  id: z.string().min(1),
  referred_product: z.strictObject({ catalog_id: z.string(), product_retailer_id: z.string() }).optional(),
  forwarded: z.boolean().optional(),
  frequently_forwarded: z.boolean().optional(),
});

const Referral = z.strictObject({
  source_url: z.string(),
  source_id: z.string(),
  source_type: z.enum(['ad', 'post']),
  body: z.string(),
  headline: z.string(),
  media_type: z.enum(['image', 'video']),
  image_url: z.string().optional(),
  video_url: z.string().optional(),
  thumbnail_url: z.string().optional(),
  ctwa_clid: z.string(),
  welcome_message: z.strictObject({ text: z.string() }).optional(),
});

const Base = { from: digits, id: z.string().min(1), timestamp: unixSeconds, context: Context.optional(), referral: Referral.optional() };

const Media = { mime_type: z.string().min(1), sha256: z.string().min(1), id: digits };

export const IncomingMessage = z.discriminatedUnion('type', [
  z.strictObject({ ...Base, type: z.literal('text'), text: z.strictObject({ body: z.string() }) }),
  z.strictObject({ ...Base, type: z.literal('reaction'), reaction: z.strictObject({ message_id: z.string(), emoji: z.string() }) }),
  z.strictObject({ ...Base, type: z.literal('image'), image: z.strictObject({ ...Media, caption: z.string().optional() }) }),
  z.strictObject({ ...Base, type: z.literal('video'), video: z.strictObject({ ...Media, caption: z.string().optional() }) }),
  z.strictObject({ ...Base, type: z.literal('audio'), audio: z.strictObject({ ...Media, voice: z.boolean() }) }),
  z.strictObject({
    ...Base,
    type: z.literal('document'),
    document: z.strictObject({ ...Media, filename: z.string(), caption: z.string().optional() }),
  }),
  z.strictObject({ ...Base, type: z.literal('sticker'), sticker: z.strictObject({ ...Media, animated: z.boolean() }) }),
  z.strictObject({
    ...Base,
    type: z.literal('location'),
    location: z.strictObject({
      latitude: z.number(),
      longitude: z.number(),
      name: z.string().optional(),
      address: z.string().optional(),
      url: z.string().optional(),
    }),
  }),
  z.strictObject({ ...Base, type: z.literal('contacts'), contacts: z.array(z.record(z.string(), z.unknown())).min(1) }),
  z.strictObject({ ...Base, type: z.literal('unsupported'), errors: z.array(ErrorObject).min(1) }),
  z.strictObject({
    ...Base,
    type: z.literal('button'),
    context: Context,
    button: z.strictObject({ payload: z.string(), text: z.string() }),
  }),
  z.strictObject({
    ...Base,
    type: z.literal('interactive'),
    context: Context,
    interactive: z.discriminatedUnion('type', [
      z.strictObject({
        type: z.literal('button_reply'),
        button_reply: z.strictObject({ id: z.string().min(1), title: z.string().min(1) }),
      }),
      z.strictObject({
        type: z.literal('list_reply'),
        list_reply: z.strictObject({ id: z.string().min(1), title: z.string().min(1), description: z.string().optional() }),
      }),
      z.strictObject({
        type: z.literal('nfm_reply'),
        nfm_reply: z.strictObject({ name: z.string().optional(), body: z.string(), response_json: z.string() }),
      }),
      // The customer's answer to a call permission request (the calling reference).
      z.strictObject({
        type: z.literal('call_permission_reply'),
        call_permission_reply: z.strictObject({
          response: z.enum(['accept', 'reject']),
          is_permanent: z.boolean().optional(),
          expiration_timestamp: z.number().int().optional(),
          response_source: z.enum(['user_action', 'automatic']).optional(),
        }),
      }),
    ]),
  }),
  z.strictObject({
    ...Base,
    type: z.literal('order'),
    order: z.strictObject({
      catalog_id: z.string(),
      text: z.string(),
      product_items: z.array(
        z.strictObject({ product_retailer_id: z.string(), quantity: z.number().int(), item_price: z.number(), currency: z.string() }),
      ),
    }),
  }),
  z.strictObject({
    ...Base,
    type: z.literal('system'),
    system: z.strictObject({
      body: z.string(),
      type: z.enum(['user_changed_number', 'customer_changed_number', 'customer_identity_changed', 'user_identity_changed']),
      wa_id: digits.optional(),
      new_wa_id: digits.optional(),
      // An identity change: the hash of the customer's new identity key, and whose it is.
      identity: z.string().optional(),
      customer: digits.optional(),
      user: digits.optional(),
    }),
  }),
]);

const StatusError = z.strictObject({
  code: z.number().int(),
  title: z.string(),
  message: z.string().optional(),
  error_data: z.strictObject({ details: z.string() }).optional(),
  href: z.string().optional(),
});

export const Status = z.strictObject({
  id: z.string().min(1),
  // `deleted`: the customer deleted a message they sent (the status names that inbound message).
  status: z.enum(['sent', 'delivered', 'read', 'failed', 'deleted']),
  timestamp: unixSeconds,
  recipient_id: digits,
  biz_opaque_callback_data: z.string().optional(),
  conversation: z
    .strictObject({ id: z.string(), expiration_timestamp: z.string().optional(), origin: z.strictObject({ type: z.string() }) })
    .optional(),
  pricing: z
    .strictObject({ billable: z.boolean(), pricing_model: z.enum(['CBP', 'PMP']), category: z.string(), type: z.string().optional() })
    .optional(),
  errors: z.array(StatusError).optional(),
});

const MessagesValue = z
  .strictObject({
    messaging_product: z.literal('whatsapp'),
    metadata: Metadata,
    contacts: z.array(ContactProfile).optional(),
    messages: z.array(IncomingMessage).optional(),
    statuses: z.array(Status).optional(),
    // System-, app- and account-level failures (the errors reference of the messages webhook).
    errors: z.array(ErrorObject).optional(),
  })
  .refine(
    (v) => (v.messages?.length ?? 0) + (v.statuses?.length ?? 0) + (v.errors?.length ?? 0) > 0,
    'a messages change carries messages, statuses or errors',
  )
  .refine((v) => !v.messages?.some((m) => m.type !== 'system') || (v.contacts?.length ?? 0) > 0, 'non-system messages come with contacts')
  .refine((v) => !v.statuses?.some((s) => s.status === 'failed' && !s.errors?.length), 'a failed status carries errors');

const Category = z.enum(['MARKETING', 'UTILITY', 'AUTHENTICATION']);

const TemplateStatusValue = z.strictObject({
  event: z.enum([
    'APPROVED',
    'ARCHIVED',
    'DELETED',
    'DISABLED',
    'FLAGGED',
    'IN_APPEAL',
    'LIMIT_EXCEEDED',
    'LOCKED',
    'PAUSED',
    'PENDING',
    'REINSTATED',
    'PENDING_DELETION',
    'REJECTED',
    'UNARCHIVED',
    'UNLOCKED',
  ]),
  message_template_id: z.number().int(),
  message_template_name: z.string(),
  message_template_language: z.string(),
  reason: z.string().nullable(),
  message_template_category: Category.optional(),
  disable_info: z.strictObject({ disable_date: z.union([z.string(), z.number()]) }).optional(),
  other_info: z.strictObject({ title: z.string(), description: z.string() }).optional(),
  rejection_info: z.strictObject({ reason: z.string(), recommendation: z.string() }).optional(),
});

const TemplateCategoryValue = z.strictObject({
  message_template_id: z.number().int(),
  message_template_name: z.string(),
  message_template_language: z.string(),
  new_category: Category,
  previous_category: Category.optional(),
  correct_category: Category.optional(),
  category_update_timestamp: z.number().int().optional(),
});

const TemplateQualityValue = z.strictObject({
  previous_quality_score: z.enum(['GREEN', 'YELLOW', 'RED', 'UNKNOWN']).optional(),
  new_quality_score: z.enum(['GREEN', 'YELLOW', 'RED', 'UNKNOWN']),
  message_template_id: z.number().int(),
  message_template_name: z.string(),
  message_template_language: z.string(),
});

const AccountUpdateValue = z.looseObject({
  event: z.string().min(1),
  ban_info: z
    .strictObject({ waba_ban_state: z.enum(['DISABLE', 'REINSTATE', 'SCHEDULE_FOR_DISABLE']), waba_ban_date: z.string().optional() })
    .optional(),
  violation_info: z.strictObject({ violation_type: z.string() }).optional(),
  waba_info: z.looseObject({ waba_id: digits }).optional(),
  restriction_info: z
    .array(z.strictObject({ restriction_type: z.string(), expiration: z.union([z.string(), z.number()]).optional() }))
    .optional(),
});

const QualityValue = z.strictObject({
  display_phone_number: digits,
  event: z.enum(['DOWNGRADE', 'FLAGGED', 'ONBOARDING', 'UNFLAGGED', 'UPGRADE', 'THROUGHPUT_UPGRADE']),
  current_limit: z.string().optional(),
  old_limit: z.string().optional(),
  max_daily_conversations_per_business: z.string().optional(),
});

const GroupParticipant = z.strictObject({ input: z.string(), wa_id: z.string() });

/** The group webhooks' value: one item per group event (the document's GroupValue and Groups). */
const GroupValue = z.strictObject({
  messaging_product: z.literal('whatsapp'),
  metadata: Metadata,
  groups: z
    .array(
      z.strictObject({
        timestamp: z.union([z.number().int(), unixSeconds]),
        group_id: z.string().min(1),
        type: z.enum(['group_create', 'group_delete', 'group_settings_update', 'group_add_participants', 'group_remove_participants']),
        request_id: z.string(),
        subject: z.string().optional(),
        description: z.string().optional(),
        added_participants: z.array(GroupParticipant).optional(),
        removed_participants: z.array(GroupParticipant).optional(),
        profile_picture: z.strictObject({ mime_type: z.string(), sha256: z.string() }).optional(),
      }),
    )
    .min(1),
});

const Change = z.discriminatedUnion('field', [
  z.strictObject({ field: z.literal('messages'), value: MessagesValue }),
  z.strictObject({ field: z.literal('message_template_status_update'), value: TemplateStatusValue }),
  z.strictObject({ field: z.literal('template_category_update'), value: TemplateCategoryValue }),
  z.strictObject({ field: z.literal('message_template_quality_update'), value: TemplateQualityValue }),
  z.strictObject({ field: z.literal('account_update'), value: AccountUpdateValue }),
  z.strictObject({ field: z.literal('phone_number_quality_update'), value: QualityValue }),
  z.strictObject({ field: z.literal('group_lifecycle_update'), value: GroupValue }),
  z.strictObject({ field: z.literal('group_settings_update'), value: GroupValue }),
  // The document's field enum names it group_participant_update, its example group_participants_update.
  z.strictObject({ field: z.literal('group_participants_update'), value: GroupValue }),
  z.strictObject({ field: z.literal('group_participant_update'), value: GroupValue }),
]);

/** One webhook delivery: the business account's entries and their changes. */
export const WebhookPayload = z.strictObject({
  object: z.literal('whatsapp_business_account'),
  entry: z.array(z.strictObject({ id: digits, time: z.number().int().optional(), changes: z.array(Change).min(1) })).min(1),
});

/** The problems with a payload, or [] when it has the documented shape. */
export function webhookProblems(payload: unknown): string[] {
  const result = WebhookPayload.safeParse(payload);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}
