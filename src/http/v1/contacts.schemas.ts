/**
 * The contacts routes' schemas (contacts.ts): the records (their types inferred in
 * contacts.presenters.ts), the request bodies and the descriptions they share. The same schemas
 * make the OpenAPI document.
 */
import { z } from 'zod';
import { CONSENT_STATES } from '../../domain/contacts/consents.ts';
import { LOOKUP_TYPES } from '../../domain/contacts/contacts.ts';
import { ContactFieldsSchema } from '../../domain/contacts/fields.ts';
import { IDENTITY_TYPES } from '../../domain/contacts/identities.ts';
import { IMPORT_MAX_BYTES, IMPORT_MAX_REPORTED_ERRORS, IMPORT_MAX_ROWS } from '../../domain/contacts/import.ts';
import { NOTE_AUTHOR_TYPES } from '../../domain/contacts/notes.ts';
import { TAG_NAME_MAX } from '../../domain/contacts/tags.ts';
import { IsoTimestamp, PathId } from '../schemas.ts';

const EXAMPLE_ID = '0196a0e2-7c1e-7a59-9a4c-2f5d3f3b8a10';
const EXAMPLE_CHANNEL = '0196a0e1-1b2c-7d3e-8f40-5a6b7c8d9e0f';

export const UPSERT_RULE =
  'Create or upsert. The contact to update is the one holding the phone_number (in any format, compared in E.164); ' +
  'failing that, the one holding external_source + external_id; failing that, the one holding the email (case-insensitive). ' +
  'No match creates a contact (201); a match is updated with the fields given (200; fields left out keep their values, null or "" clears one, ' +
  'custom_fields is merged key by key). A new contact needs a phone_number, an email or an external_source + external_id. ' +
  'Giving the contact an identifier that another contact holds is a 409 naming the field. An impossible phone number is a 400 naming phone_number. ' +
  'Records crm.record.created, or crm.record.updated and contact.updated (nothing when an update changes nothing).';

export const CHANNEL_SCOPE_DOC =
  "A channel scope: the id of one of the organization's channels, `chatapp` (every chat-app channel) or `all` (every channel). " +
  'A send on a channel is refused while the contact is suppressed (and the suppression has not lapsed) on that channel, `chatapp` or `all`, ' +
  'or when the latest consent among those scopes is `revoked` (templates too).';

export const ContactSchema = z
  .object({
    id: z.uuid(),
    phone_number: z.string().nullable().meta({ description: 'E.164 with the leading `+`', example: '+4930123456' }),
    name: z.string().nullable(),
    email: z.string().nullable(),
    external_source: z.string().nullable(),
    external_id: z.string().nullable(),
    custom_fields: z.record(z.string(), z.unknown()),
    tags: z.array(z.string()).meta({ description: 'Names of the tags assigned' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({
    id: 'Contact',
    examples: [
      {
        id: EXAMPLE_ID,
        phone_number: '+4930123456',
        name: 'Ana Souza',
        email: 'ana@example.com',
        external_source: 'hubspot',
        external_id: '81723',
        custom_fields: { plan: 'pro' },
        tags: ['vip'],
        created_at: '2025-05-01T09:30:00.000Z',
        updated_at: '2025-05-02T10:00:00.000Z',
      },
    ],
  });

export const CreateContactBody = ContactFieldsSchema.meta({
  id: 'CreateContactRequest',
  description: UPSERT_RULE,
  examples: [
    {
      phone_number: '+49 30 123456',
      name: 'Ana Souza',
      email: 'ana@example.com',
      external_source: 'hubspot',
      external_id: '81723',
      custom_fields: { plan: 'pro' },
    },
    { email: 'lee@example.com', name: 'Lee' },
  ],
});

export const UpdateContactBody = ContactFieldsSchema.meta({
  id: 'UpdateContactRequest',
  description:
    'The fields to change; null or "" clears one; custom_fields is merged key by key (a null value removes its key). The contact must keep a phone_number, an email or an external id. 409 when another contact holds the new value.',
  examples: [{ name: 'Ana M. Souza', email: 'ana.souza@example.com' }, { custom_fields: { plan: 'enterprise', trial: null } }],
});

export type ContactFieldsRequest = z.input<typeof ContactFieldsSchema>;

export const IdentitySchema = z
  .object({
    type: z.enum(IDENTITY_TYPES).meta({
      description:
        "phone (E.164), chatapp_id (the chat app's user id, usually the number's digits), linked_id and business_scoped_user_id (the chat app's privacy ids), username, email (lower-case), external_id (with source)",
    }),
    value: z.string(),
    source: z.string().nullable().meta({ description: 'The external system of an external_id' }),
    created_at: z.string(),
  })
  .meta({
    id: 'ContactIdentity',
    examples: [{ type: 'chatapp_id', value: '4930123456', source: null, created_at: '2025-05-01T09:30:00.000Z' }],
  });

export const NoteSchema = z
  .object({
    id: z.uuid(),
    contact_id: z.uuid(),
    body: z.string(),
    author: z
      .object({ type: z.enum(NOTE_AUTHOR_TYPES), id: z.uuid().nullable() })
      .meta({ description: 'The user or API key that wrote it' }),
    created_at: z.string(),
  })
  .meta({
    id: 'ContactNote',
    examples: [
      {
        id: EXAMPLE_ID,
        contact_id: EXAMPLE_ID,
        body: 'Asked for a callback on Monday.',
        author: { type: 'user', id: EXAMPLE_CHANNEL },
        created_at: '2025-05-02T10:00:00.000Z',
      },
    ],
  });

export const CreateNoteBody = z.object({ body: z.string().trim().min(1).max(10_000) }).meta({
  id: 'CreateContactNoteRequest',
  description: 'Records crm.comment.created.',
  examples: [{ body: 'Asked for a callback on Monday.' }],
});

export const TagSchema = z
  .object({ name: z.string(), assigned_at: z.string() })
  .meta({ id: 'ContactTag', examples: [{ name: 'vip', assigned_at: '2025-05-02T10:00:00.000Z' }] });

export const AddTagBody = z
  .object({
    tag: z
      .string()
      .min(1)
      .max(TAG_NAME_MAX)
      .meta({ description: 'A tag name; made in the organization when new (names compare case-insensitively)' }),
  })
  .meta({
    id: 'AddContactTagRequest',
    description: 'Records crm.list.entry_added (list: the tag name) when newly assigned.',
    examples: [{ tag: 'vip' }],
  });

export const ChannelScopeSchema = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: CHANNEL_SCOPE_DOC, examples: ['all', 'chatapp', EXAMPLE_CHANNEL] });

export const ConsentSchema = z
  .object({
    channel: z.string().meta({ description: 'A channel id, `chatapp` or `all`' }),
    state: z.enum(CONSENT_STATES),
    source: z.string().nullable().meta({ description: 'Where the consent was given or revoked' }),
    recorded_at: z.string().meta({ description: 'When it was given or revoked' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({
    id: 'ContactConsent',
    examples: [
      {
        channel: 'chatapp',
        state: 'revoked',
        source: 'replied STOP',
        recorded_at: '2025-05-02T10:00:00.000Z',
        created_at: '2025-05-01T09:30:00.000Z',
        updated_at: '2025-05-02T10:00:00.000Z',
      },
    ],
  });

export const PutConsentBody = z
  .object({
    state: z.enum(CONSENT_STATES),
    source: z
      .string()
      .trim()
      .max(200)
      .nullable()
      .optional()
      .meta({ description: 'Where it was given or revoked: a form, a keyword, an agent' }),
    at: IsoTimestamp.optional().meta({ description: 'When it was given or revoked (default now; not in the future)' }),
  })
  .meta({
    id: 'PutContactConsentRequest',
    examples: [
      { state: 'granted', source: 'signup form', at: '2025-05-01T09:30:00Z' },
      { state: 'revoked', source: 'replied STOP' },
    ],
  });

export type PutContactConsentRequest = z.input<typeof PutConsentBody>;

export const SuppressionSchema = z
  .object({
    channel: z
      .string()
      .meta({ description: 'A channel id, `chatapp`, `all` or `marketing` (marketing sends: broadcasts skip the contact)' }),
    reason: z.string().meta({
      description: 'Why: as given through the API, or `opt_out_keyword` / `opt_out_button` for an opt-out by message',
    }),
    expires_at: z.string().nullable().meta({ description: 'When it lapses; null: until lifted' }),
    message_id: z.uuid().nullable().meta({
      description: 'The inbound message that opted the contact out (a stop keyword or the opt-out button); null when set through the API',
    }),
    active: z.boolean().meta({ description: 'false once expires_at has passed' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({
    id: 'ContactSuppression',
    examples: [
      {
        channel: 'all',
        reason: 'legal hold',
        expires_at: null,
        message_id: null,
        active: true,
        created_at: '2025-05-01T09:30:00.000Z',
        updated_at: '2025-05-01T09:30:00.000Z',
      },
    ],
  });

export const UpsertSuppressionBody = z
  .object({
    channel: ChannelScopeSchema.meta({
      description: `${CHANNEL_SCOPE_DOC} Or \`marketing\`: marketing sends (broadcasts) skip the contact on every channel; other sends are not refused.`,
      examples: ['all', 'marketing', EXAMPLE_CHANNEL],
    }),
    reason: z.string().trim().min(1).max(500),
    expires_at: IsoTimestamp.nullable().optional().meta({ description: 'When it lapses (in the future); absent or null: until lifted' }),
  })
  .meta({
    id: 'UpsertContactSuppressionRequest',
    description: 'Creates the suppression of the channel scope (201) or replaces its reason and expiry (200).',
    examples: [
      { channel: 'all', reason: 'legal hold' },
      { channel: EXAMPLE_CHANNEL, reason: 'complained about frequency', expires_at: '2025-06-01T00:00:00Z' },
    ],
  });

export type UpsertContactSuppressionRequest = z.input<typeof UpsertSuppressionBody>;

export const LookupBody = z
  .object({
    identifiers: z
      .array(
        z.object({
          type: z.enum(LOOKUP_TYPES).meta({
            description:
              'contact_id; phone (any common format); chatapp (a chat-app number in any format, or an address `<digits>@s.whatsapp.net`, `<digits>@c.us`, `<id>@lid`); ' +
              "chatapp_id (the chat app's id for the person: user id, linked id or business-scoped user id); email (case-insensitive); external_id (with source)",
          }),
          value: z.string().max(320),
          source: z.string().max(100).nullable().optional().meta({ description: 'The external system; required when type is external_id' }),
        }),
      )
      .min(1)
      .max(20),
  })
  .meta({
    id: 'ContactLookupRequest',
    description:
      'Resolves the identifiers to one stored contact: 200 with it; 404 `{error: "contact not found", code: "not_found"}` when none matches; ' +
      '409 code `conflict` when they match different contacts. Identifiers that match nothing do not stop the others from matching.',
    examples: [
      { identifiers: [{ type: 'phone', value: '+49 30 123456' }] },
      {
        identifiers: [
          { type: 'external_id', value: '81723', source: 'hubspot' },
          { type: 'email', value: 'ana@example.com' },
        ],
      },
      { identifiers: [{ type: 'chatapp', value: '4930123456@s.whatsapp.net' }] },
    ],
  });

/**
 * What every import answers about the rows it refused and where it stopped (the contacts' and the CRM's
 * CSV imports): `what` names the field of a row (field, or column).
 */
export function importReportFields(what: 'field' | 'column') {
  return {
    errors: z
      .array(
        z.object({
          row: z.number().int().meta({ description: '1-based data row number' }),
          line: z.number().int().meta({ description: 'The line of the file the row starts on' }),
          field: z
            .string()
            .nullable()
            .meta({ description: `The ${what} at fault (custom_fields.<key> for a custom field); null for the row as a whole` }),
          message: z.string(),
        }),
      )
      .meta({ description: `The rows not imported and why, by row; at most ${IMPORT_MAX_REPORTED_ERRORS}` }),
    errors_truncated: z.boolean().meta({ description: 'More rows failed than errors lists' }),
    truncated: z.boolean().meta({
      description: `The body went past ${IMPORT_MAX_ROWS} rows or ${IMPORT_MAX_BYTES / 1024 / 1024} MiB; the rows from the one named in errors on were not read`,
    }),
  };
}

export const ImportResultSchema = z
  .object({
    import_id: z.uuid().meta({ description: 'Also in the crm.import.committed event' }),
    format: z.enum(['csv', 'ndjson']),
    rows: z.number().int().meta({ description: 'Data rows read (a CSV header and blank lines are not rows)' }),
    created: z.number().int(),
    updated: z.number().int(),
    unchanged: z.number().int().meta({ description: 'Rows that matched a contact and changed nothing' }),
    failed: z.number().int(),
    ...importReportFields('field'),
  })
  .meta({
    id: 'ContactImportResult',
    examples: [
      {
        import_id: EXAMPLE_ID,
        format: 'csv',
        rows: 3,
        created: 1,
        updated: 1,
        unchanged: 0,
        failed: 1,
        errors: [{ row: 3, line: 4, field: 'phone_number', message: 'not a possible phone number (write it with its country code)' }],
        errors_truncated: false,
        truncated: false,
      },
    ],
  });

export const CSV_EXAMPLE =
  'phone_number,name,email,external_source,external_id,tags,custom_fields.plan\n+49 30 123456,Ana Souza,ana@example.com,hubspot,81723,VIP|Wholesale,pro\n';
export const NDJSON_EXAMPLE =
  '{"phone_number":"+49 30 123456","name":"Ana Souza","tags":["VIP","Wholesale"],"custom_fields":{"plan":"pro"}}\n{"email":"lee@example.com","name":"Lee"}\n';

export const ContactParams = z.object({ contactID: PathId });
