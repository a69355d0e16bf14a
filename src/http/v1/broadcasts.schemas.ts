/** The broadcasts routes' schemas (broadcasts.ts). */
import { z } from 'zod';
import { AUDIENCE_MAX, SKIP_REASONS } from '../../domain/broadcasts/audience.ts';
import { BROADCAST_STATUSES } from '../../domain/broadcasts/broadcasts.ts';
import { RECIPIENT_STATUSES } from '../../domain/broadcasts/recipients.ts';
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
});

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
  template: TemplateRefSchema,
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

export const CreateBroadcastBody = z.object(BroadcastFields).meta({
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
    template: z.object({ name: z.string(), language: z.string(), variables: z.array(z.string()) }),
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
        'pending (not sent yet), deferred (over the channel’s 24-hour room: sent when it opens), skipped (see reason; marketing_limit when the provider refused it for its per-user marketing limit, 131049), sent, delivered, read, failed (error_code: the provider’s, or reason when it was never accepted); never moves backwards',
    }),
    reason: z.string().nullable().meta({ description: 'Why it was skipped or failed before sending' }),
    message_id: z.uuid().nullable(),
    error_code: z.string().nullable(),
    parameters: z.array(z.string()).nullable().meta({ description: 'The template parameters as filled for this recipient' }),
    updated_at: z.string(),
  })
  .meta({ id: 'BroadcastRecipient' });

export const RecipientsQuery = z.object({ status: z.enum(RECIPIENT_STATUSES).optional() });

export const ReportSchema = z
  .object({
    broadcast: BroadcastSchema,
    recipients: z.number().int(),
    by_status: z.object(
      Object.fromEntries(RECIPIENT_STATUSES.map((s) => [s, z.number().int()])) as Record<(typeof RECIPIENT_STATUSES)[number], z.ZodNumber>,
    ),
    skipped: z.record(z.string(), z.number().int()).meta({ description: 'Skipped recipients by reason' }),
  })
  .meta({ id: 'BroadcastReport' });

export const ListQuery = z.object({ status: z.enum(BROADCAST_STATUSES).optional() });
