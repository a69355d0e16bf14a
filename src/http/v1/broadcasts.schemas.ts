/** The broadcasts routes' schemas (broadcasts.ts). */
import { z } from 'zod';
import { AUDIENCE_MAX, SKIP_REASONS } from '../../domain/broadcasts/audience.ts';
import { MEDIA_HEADER_TYPES } from '../../domain/broadcasts/content.ts';
import { AB_METRICS, VARIANTS_MAX, VARIANTS_MIN } from '../../domain/broadcasts/variants.ts';
import { BROADCAST_STATUSES } from '../../domain/broadcasts/broadcasts.ts';
import { RECIPIENT_STATUSES } from '../../domain/broadcasts/recipients.ts';
import { REPORT_BUCKETS } from '../../domain/broadcasts/report.ts';
import { IsoTimestamp } from '../schemas.ts';

const CHANNEL_ID = '0190a5b3-1111-7e4f-8a1b-2c3d4e5f6a7b';
const SEGMENT_ID = '0190a5b3-7777-7e4f-8a1b-2c3d4e5f6a7b';

export const TemplateRefSchema = z.object({
  name: z
    .string()
    .regex(/^[a-z0-9_]{1,512}$/, { error: 'a template name: lower-case letters, digits and underscores' })
    .meta({ description: 'An approved template of the channel', example: 'june_newsletter' }),
  language: z
    .string()
    .regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, { error: "the template's locale code, e.g. en_US" })
    .meta({ example: 'en_US' }),
  variables: z
    .array(z.string().max(1024))
    .max(100)
    .default([])
    .meta({
      description:
        'The body parameters in order: text with `{{contact.name|there}}`-style placeholders (contact.name, contact.phone, contact.email, contact.custom.<key>), each with a default after `|` (contact.phone needs none). As many as the template body has parameters.',
      example: ['{{contact.name|there}}'],
    }),
  header: z
    .discriminatedUnion('type', [
      z.object({ type: z.literal('text'), text: z.string().min(1).max(1024) }).strict(),
      z
        .object({
          type: z.enum(MEDIA_HEADER_TYPES),
          link: z.string().min(1).max(2048).meta({ description: 'A public https URL (placeholders allowed)' }),
          filename: z.string().min(1).max(240).optional().meta({ description: 'A document’s file name as shown' }),
        })
        .strict(),
    ])
    .nullable()
    .optional()
    .meta({
      description:
        'The header’s parameter, when the template header has one: its text for a text header with a variable, the link of the image, video or document of a media header. Placeholders as in variables.',
      example: { type: 'image', link: 'https://cdn.example.com/june.jpg' },
    }),
  buttons: z
    .array(
      z
        .object({
          index: z.number().int().min(0).max(9).meta({ description: 'The button’s position in the template, from 0' }),
          value: z.string().min(1).max(2000).meta({
            description:
              'A URL button’s suffix (the {{1}} of its URL), a quick reply’s payload (optional), a copy-code button’s code. Placeholders as in variables.',
          }),
        })
        .strict(),
    )
    .max(10)
    .optional()
    .meta({
      description: 'The buttons’ parameters: every URL button with a variable and every copy-code button needs one.',
      example: [{ index: 0, value: 'june?c={{contact.custom.code|none}}' }],
    }),
});

export const AbTestSchema = z
  .object({
    variants: z.array(TemplateRefSchema).min(VARIANTS_MIN).max(VARIANTS_MAX).meta({
      description: 'The templates tested, each with its own variables; variant numbers are their positions (0, 1, …)',
    }),
    test_share: z.number().int().min(1).max(100).meta({
      description:
        'The percentage of the recipients to send to that get a variant, drawn at random when the audience is frozen and split evenly across the variants; the rest get the winner',
    }),
    metric: z
      .enum(AB_METRICS)
      .meta({ description: 'What wins: the best rate of read, or of replied within 72 hours, over each variant’s messages' }),
    decide_at: IsoTimestamp.meta({ description: 'When the winner is chosen and sent to the rest; after the send time' }),
  })
  .strict()
  .meta({ id: 'BroadcastAbTest' });

export const AudienceSchema = z
  .object({
    segment_id: z.string().max(64).optional().meta({ description: 'A saved segment: the contacts its filter finds when sending starts' }),
    list_id: z.string().max(64).optional().meta({ description: 'A contact list' }),
    tags: z
      .array(z.string().min(1).max(100))
      .max(100)
      .optional()
      .meta({ description: 'Contacts with any of these tags (case-insensitive)' }),
    contact_ids: z.array(z.string().max(64)).max(AUDIENCE_MAX).optional(),
    phones: z
      .array(z.string().max(64))
      .max(AUDIENCE_MAX)
      .optional()
      .meta({ description: 'Numbers in international form; a number of a contact is that contact' }),
  })
  .strict()
  .meta({
    id: 'BroadcastAudience',
    description:
      'Who receives it: the union of what is given (at least one). Resolved and frozen when sending starts; one send per number (the rest skipped as duplicate).',
  });

export const QuietHoursSchema = z
  .object({
    start: z.string().meta({ description: 'HH:MM in the organization’s time zone', example: '21:00' }),
    end: z.string().meta({ description: 'HH:MM; before start: the quiet hours cross midnight', example: '08:00' }),
  })
  .strict()
  .meta({
    id: 'BroadcastQuietHours',
    description:
      'Every day from start to end, in the organization’s time zone (its business hours’ time_zone), nothing is sent: the broadcast waits until end.',
  });

const BroadcastFields = {
  name: z.string().trim().min(1).max(200),
  channel_id: z.string().max(64).meta({ description: 'The channel to send on (connected when scheduled)' }),
  template: TemplateRefSchema.optional().meta({ description: 'The template; omitted with ab_test (whose variants are the templates)' }),
  ab_test: AbTestSchema.nullable().optional().meta({ description: 'An A/B test of 2 to 5 templates; null: none' }),
  audience: AudienceSchema,
  send_at: IsoTimestamp.nullable()
    .optional()
    .meta({ description: 'When to start sending; omitted or null: as soon as it is scheduled. Not in the past.' }),
  per_minute: z.number().int().min(1).max(100_000).nullable().optional().meta({
    description:
      'At most this many recipients handed to dispatch per minute (the channel’s own pace applies as well); null: no cap of its own',
  }),
  require_consent: z.boolean().optional().meta({
    description: 'Send only to contacts with a marketing consent granted on the channel (else skipped as no_consent). Default false.',
  }),
  quiet_hours: QuietHoursSchema.nullable().optional(),
  retry_marketing_limit_days: z.number().int().min(1).max(7).nullable().optional().meta({
    description:
      'Recipients the provider refused for its per-user marketing limit (131049, skipped as marketing_limit) are sent once more this many days later (1 to 7); null or omitted: never.',
  }),
  skip_open_conversations: z.boolean().optional().meta({
    description:
      'Skip recipients whose conversation on the channel is open and assigned to a person (skipped as open_conversation). Default false.',
  }),
};

export const CreateBroadcastBody = z
  .object({ ...BroadcastFields, audience: AudienceSchema })
  .refine((b) => (b.template === undefined) !== (b.ab_test === undefined || b.ab_test === null), {
    error: 'give template, or ab_test with its variants (not both)',
    path: ['template'],
  })
  .meta({
    id: 'CreateBroadcastRequest',
    description:
      'A draft: nothing is sent until it is scheduled. 400 naming the field: a template that is not approved or not on the channel, a variable without a default, a variable count that is not the template body’s parameter count, an audience naming nobody or an unknown segment or list, a send time in the past.',
    examples: [
      {
        name: 'June newsletter',
        channel_id: CHANNEL_ID,
        template: { name: 'june_newsletter', language: 'en_US', variables: ['{{contact.name|there}}'] },
        audience: { segment_id: SEGMENT_ID },
        send_at: '2025-06-10T09:00:00Z',
        per_minute: 600,
        quiet_hours: { start: '21:00', end: '08:00' },
        retry_marketing_limit_days: 3,
      },
      {
        name: 'June offer, A/B',
        channel_id: CHANNEL_ID,
        ab_test: {
          variants: [
            {
              name: 'june_offer',
              language: 'en_US',
              variables: ['{{contact.name|there}}'],
              header: { type: 'image', link: 'https://cdn.example.com/june.jpg' },
              buttons: [{ index: 0, value: 'june?c={{contact.custom.code|none}}' }],
            },
            { name: 'june_offer_short', language: 'en_US', variables: [], buttons: [{ index: 1, value: 'JUNE10' }] },
          ],
          test_share: 20,
          metric: 'read',
          decide_at: '2025-06-10T13:00:00Z',
        },
        audience: { segment_id: SEGMENT_ID },
        send_at: '2025-06-10T09:00:00Z',
      },
    ],
  });

export const UpdateBroadcastBody = z
  .object(BroadcastFields)
  .partial()
  .meta({
    id: 'UpdateBroadcastRequest',
    description: 'A draft’s fields to change; template and audience are each replaced as a whole. 409 unless it is a draft.',
    examples: [{ per_minute: 300 }],
  });

export const BroadcastSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    channel_id: z.uuid(),
    template: TemplateRefSchema.meta({ description: 'The template (variant 0’s with an A/B test)' }),
    ab_test: AbTestSchema.nullable(),
    winner_variant: z.number().int().nullable().meta({ description: 'The A/B test’s winning variant once decided' }),
    decided_at: z.string().nullable(),
    audience: AudienceSchema,
    status: z.enum(BROADCAST_STATUSES),
    send_at: z.string().nullable(),
    per_minute: z.number().int().nullable(),
    require_consent: z.boolean(),
    quiet_hours: QuietHoursSchema.nullable(),
    retry_marketing_limit_days: z.number().int().nullable(),
    skip_open_conversations: z.boolean(),
    pause_reason: z.string().nullable().meta({
      description:
        'Why it paused by itself: template_paused or template_disabled (the provider holds its template); null when a person paused it',
    }),
    retry_round: z.number().int().meta({ description: 'How many times retry-failed sent its failed recipients again' }),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    failure_reason: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Broadcast' });

const SkippedCounts = z.object(
  Object.fromEntries(SKIP_REASONS.map((r) => [r, z.number().int()])) as Record<(typeof SKIP_REASONS)[number], z.ZodNumber>,
);

export const AudienceCountSchema = z
  .object({
    total: z.number().int().meta({ description: 'Recipients the audience resolves to now' }),
    sendable: z.number().int().meta({ description: 'Of them, those that would be sent to' }),
    skipped: SkippedCounts.meta({ description: 'Of them, those that would be skipped, by reason' }),
    counted_at: z.string(),
  })
  .meta({ id: 'BroadcastAudienceCount' });

export const RecipientSchema = z
  .object({
    id: z.uuid(),
    contact_id: z.uuid().nullable(),
    phone: z.string().nullable(),
    status: z.enum(RECIPIENT_STATUSES).meta({
      description:
        'pending (not sent yet), deferred (over the channel’s 24-hour room: sent when it opens), skipped (see reason; marketing_limit when the provider refused it for its per-user marketing limit, 131049), sent, delivered, read, replied (the customer wrote within 72 hours), failed (error_code: the provider’s, or reason when it was never accepted); never moves backwards',
    }),
    reason: z.string().nullable().meta({ description: 'Why it was skipped or failed before sending' }),
    message_id: z.uuid().nullable(),
    error_code: z.string().nullable(),
    parameters: z.array(z.string()).nullable().meta({ description: 'The template parameters as filled for this recipient' }),
    variant: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'The A/B variant sent (null without a test, and for the rest before the decision)' }),
    sent_at: z.string().nullable().meta({ description: 'When its message was accepted for sending' }),
    replied_at: z.string().nullable().meta({ description: 'When the customer first wrote within 72 hours of the message' }),
    updated_at: z.string(),
  })
  .meta({ id: 'BroadcastRecipient' });

export const RecipientsQuery = z.object({
  status: z.enum(RECIPIENT_STATUSES).optional(),
  format: z.enum(['json', 'csv']).optional().meta({
    description: 'csv: every recipient (of the status) as CSV, streamed, without paging (as with Accept: text/csv)',
  }),
});

const StatusCounts = z.object(
  Object.fromEntries(RECIPIENT_STATUSES.map((s) => [s, z.number().int()])) as Record<(typeof RECIPIENT_STATUSES)[number], z.ZodNumber>,
);

const RatesSchema = z
  .object({
    delivered: z.number().meta({ description: 'Delivered (or read, or replied) of the sent' }),
    read: z.number().meta({ description: 'Read (or replied) of the sent' }),
    replied: z.number().meta({ description: 'Replied within 72 hours of the sent' }),
    failed: z.number().meta({ description: 'Failed of the sent' }),
  })
  .meta({ description: 'Fractions (0 to 1) of the messages sent' });

export const ReportSchema = z
  .object({
    broadcast: BroadcastSchema,
    recipients: z.number().int(),
    by_status: StatusCounts,
    skipped: z.record(z.string(), z.number().int()).meta({ description: 'Skipped recipients by reason' }),
    sent: z.number().int().meta({ description: 'Recipients whose message left the queue: sent, delivered, read, replied or failed' }),
    rates: RatesSchema,
    failed_by_code: z
      .record(z.string(), z.number().int())
      .meta({ description: 'Failed recipients by the provider’s error code (or why the message was refused before sending)' }),
    opted_out: z.number().int().meta({
      description: 'Recipients sent a message who are opted out of marketing now, by an opt-out recorded after the broadcast started',
    }),
    over_time: z
      .object({
        bucket: z.enum(REPORT_BUCKETS),
        points: z.array(
          z.object({
            at: z.string().meta({ description: 'The bucket’s start (UTC)' }),
            sent: z.number().int(),
            delivered: z.number().int(),
            read: z.number().int(),
            replied: z.number().int(),
            failed: z.number().int(),
          }),
        ),
      })
      .meta({ description: 'The messages by when they were sent, each bucket with how they fared since' }),
    variants: z
      .array(
        z.object({
          variant: z.number().int(),
          template: z.object({ name: z.string(), language: z.string() }),
          recipients: z.number().int(),
          by_status: StatusCounts,
          sent: z.number().int(),
          rates: RatesSchema,
        }),
      )
      .meta({ description: 'Per A/B variant (empty without a test): the test group and, after the decision, the rest sent the winner' }),
  })
  .meta({ id: 'BroadcastReport' });

export const ReportQuery = z.object({
  bucket: z
    .enum(REPORT_BUCKETS)
    .optional()
    .meta({ description: 'The over-time buckets; default by the send’s length (minute up to 2 h, hour up to 3 days)' }),
});

export const ListQuery = z.object({ status: z.enum(BROADCAST_STATUSES).optional() });
