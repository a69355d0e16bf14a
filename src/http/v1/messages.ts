import { Readable } from 'node:stream';
import { z } from 'zod';
import type { Executor } from '../../db/client.ts';
import { openMessageMedia } from '../../domain/messages/inbound-media.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { contentDisposition, resolveRange } from '../range.ts';
import { MESSAGE_TYPES } from '../../domain/channels/capabilities.ts';
import { DomainError, invalid } from '../../domain/errors.ts';
import { CONTENT_SCHEMAS } from '../../domain/messages/content.ts';
import { acceptMessageOnce, IDEMPOTENCY_HOURS, type MessageDeps, type SendRefusal } from '../../domain/messages/accept.ts';
import { listMessages, loadMessage, MESSAGE_STATUSES, messageStatus } from '../../domain/messages/messages.ts';
import { showTyping } from '../../domain/messages/typing.ts';
import { actorOf } from '../auth/actor.ts';
import type { App } from '../types.ts';
import { errorResponses, HttpError } from '../errors.ts';
import { IDEMPOTENCY_KEY, requestHash } from '../idempotency-key.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, IsoTimestamp, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import { presentMessage, presentStatus, windowClosedDetail } from './messages.presenters.ts';

const ErrorSchema = z
  .object({
    code: z.string(),
    title: z.string(),
    message: z.string().nullable().meta({ description: "The provider's details, where it gave them" }),
    user_title: z.string().nullable().meta({ description: "The provider's title of the error for the end user, where it gave one" }),
    user_message: z
      .string()
      .nullable()
      .meta({ description: "The provider's explanation of the error for the end user, where it gave one" }),
  })
  .nullable();

export const MessageMediaSchema = z
  .object({
    status: z
      .enum(['pending', 'stored', 'failed'])
      .meta({ description: 'pending: being downloaded from the provider; stored: `url` serves it; failed: `error` says why' }),
    url: z.string().meta({
      description: 'Where the stored bytes are served (GET, same credentials as the message)',
      example: '/v1/messages/0190a5b4-2a7e-7c11-9d2f-5b6c7d8e9f01/media',
    }),
    content_type: z
      .string()
      .nullable()
      .meta({ description: 'Sniffed from the bytes once stored (application/octet-stream when they tell nothing); null before' }),
    size: z.number().int().nullable().meta({ description: 'Bytes, once stored' }),
    sha256: z.string().nullable().meta({ description: 'Hex SHA-256 of the bytes, once stored (also the ETag the media URL answers with)' }),
    file_name: z.string().nullable().meta({ description: 'The file name the sender gave (documents), where one was given' }),
    error: z
      .object({ code: z.string(), title: z.string() })
      .nullable()
      .meta({ description: 'Why it failed (e.g. media_too_large), or the last transient fault while pending' }),
  })
  .meta({ id: 'MessageMedia', description: "An inbound message's media, downloaded from the provider when the message arrived" });

export const MessageSchema = z
  .object({
    id: z.uuid(),
    channel_id: z.string(),
    conversation_id: z.uuid(),
    contact_id: z.string().nullable(),
    broadcast_id: z.uuid().nullable().meta({ description: 'The broadcast that sent it; null for any other message' }),
    direction: z.enum(['inbound', 'outbound']),
    to: z.string().meta({ description: 'Recipient, international digits without +; or a group id (`<digits>@g.us`)' }),
    to_phone: z.string().meta({ description: 'Same as `to`' }),
    from_phone: z.string().nullable(),
    type: z.string(),
    content: z
      .record(z.string(), z.unknown())
      .meta({ description: 'Normalized content (aliases resolved); for inbound interactive replies: {type, id, title}' }),
    status: z.enum(MESSAGE_STATUSES).meta({ description: 'Outbound: queued -> sent -> delivered -> read, or failed. Inbound: received.' }),
    provider_message_id: z.string().nullable(),
    error: ErrorSchema.meta({ description: "When failed: the provider's (or Parley's) code and title" }),
    edited_at: z
      .string()
      .nullable()
      .meta({ description: 'When the sender last changed its text (content shows the new text); null when never edited' }),
    deleted_at: z.string().nullable().meta({
      description:
        'When the sender deleted it for everyone (the record and its content are kept; inboxes show it as deleted); null when not deleted',
    }),
    starred: z.boolean().meta({ description: 'Starred on the linked phone (unofficial channels: POST /v1/messages/{messageID}/star)' }),
    pinned_until: z.string().nullable().meta({
      description: 'Pinned in its chat for everyone until then (unofficial channels: POST /v1/messages/{messageID}/pin); null when not',
    }),
    media: MessageMediaSchema.nullable().meta({
      description: 'The media an inbound message carried, stored by Parley; null for messages without',
    }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Message' });

export const MessageStatusSchema = z
  .object({
    message_id: z.uuid(),
    status: z.enum(MESSAGE_STATUSES),
    provider_message_id: z.string().nullable(),
    error: ErrorSchema,
    history: z.array(
      z.object({
        status: z.string(),
        at: z.string(),
        error: z.object({ code: z.string(), title: z.string() }).nullable(),
        pricing: z
          .object({
            billable: z.boolean().optional(),
            pricing_model: z.string().optional(),
            category: z.string().optional(),
            type: z.string().optional(),
          })
          .nullable()
          .meta({
            description:
              "What the provider's report of this status said about billing, as it sent it (official channels: `pricing`); null when it said nothing",
          }),
        conversation: z
          .object({
            id: z.string(),
            origin: z.object({ type: z.string().optional() }).optional(),
            expiration_timestamp: z.string().optional(),
          })
          .nullable()
          .meta({
            description:
              "The provider's billing conversation the report named (its own id, not Parley's conversation_id; expiration_timestamp in Unix seconds, as sent); null when it named none",
          }),
      }),
    ),
    updated_at: z.string(),
  })
  .meta({ id: 'MessageStatus' });

/** Why a send was refused, as the error the API answers. */
export function refusalError(refused: SendRefusal): DomainError {
  switch (refused.refusal) {
    case 'channel_not_connected':
      return new DomainError('conflict', `channel ${refused.channelId} is ${refused.status}; it must be connected to send`, {
        extra: { channel_status: refused.status },
      });
    case 'conversation_not_found':
      return invalid('conversation_id is not a conversation of this organization', [
        { pointer: '/conversation_id', location: 'body', message: 'conversation not found' },
      ]);
    case 'conversation_mismatch':
      return invalid('conversation_id belongs to another channel or number', [
        { pointer: '/conversation_id', location: 'body', message: 'does not match channel_id and to' },
      ]);
    case 'template_mismatch': {
      const { component, index, expected, given } = refused.mismatch;
      const name = component === 'button' ? `button ${index}` : component;
      return new DomainError(
        'template_mismatch',
        `the ${name} of template ${refused.template.name} (${refused.template.language}) takes ${expected} parameter${expected === 1 ? '' : 's'}; ${given} given`,
        { extra: { component, ...(index !== undefined ? { index } : {}), expected, given } },
      );
    }
    case 'window_closed':
      return new DomainError('window_closed', windowClosedDetail(refused), {
        extra: { last_inbound_at: refused.lastInboundAt?.toISOString() ?? null },
      });
    case 'send_refused':
      return new DomainError('send_refused', refused.reason, { extra: { reason: refused.code } });
    case 'contention':
      return new DomainError('conflict', 'the channel or conversation kept changing while the message was accepted; try again');
    case 'idempotency_conflict':
      return new DomainError(
        'conflict',
        refused.cause === 'other_request'
          ? 'Idempotency-Key was already used with a different request body'
          : 'the message this Idempotency-Key made no longer exists; use another key',
      );
    default:
      return refused satisfies never;
  }
}

const contentDescription = [
  'Shape depends on `type`:',
  ...MESSAGE_TYPES.map((t) => {
    const schema = CONTENT_SCHEMAS[t] as unknown as { def?: { shape?: Record<string, unknown> } };
    const shape = (schema as { shape?: Record<string, unknown> }).shape ?? schema.def?.shape;
    return `- \`${t}\`: ${shape ? Object.keys(shape).join(', ') : 'see examples'}`;
  }),
  'Aliases on image, video, audio, document: media_url = media | url; media_type = mediaType | type | mediatype; file_name = fileName. text: `text` may be a string or {body}. sticker: sticker_url.',
].join('\n');

const SendBody = z
  .object({
    channel_id: z.string().min(1).meta({ description: 'A connected channel of the organization' }),
    to: z
      .string()
      .min(1)
      .max(40)
      .optional()
      .meta({
        description:
          'Recipient, international format (digits; + and spaces accepted); on platforms with the `groups.send` operation (unofficial channels) also a group id, `<digits>@g.us` as inbound group messages name it in `content.group.id` (elsewhere 400 naming `/to`)',
        examples: ['4915112345678', '120363025246125486@g.us'],
      }),
    to_phone: z.string().min(1).max(40).optional().meta({ description: 'Alias for `to`' }),
    conversation_id: z
      .string()
      .optional()
      .meta({ description: 'If omitted, the conversation for `to` on the channel is resolved or created' }),
    type: z.enum(MESSAGE_TYPES),
    content: z.record(z.string(), z.unknown()).meta({ description: contentDescription }),
  })
  .meta({
    id: 'SendMessageRequest',
    examples: [
      { channel_id: '0196a0e2-7c1e-7a59-9a4c-2f5d3f3b8a10', to: '4915112345678', type: 'text', content: { body: 'Hello from Parley' } },
      {
        channel_id: '0196a0e2-7c1e-7a59-9a4c-2f5d3f3b8a10',
        to: '4915112345678',
        type: 'template',
        content: {
          template: {
            name: 'order_shipped',
            language: { code: 'en_US' },
            components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }] }],
          },
        },
      },
      {
        channel_id: '…',
        to: '4915112345678',
        type: 'image',
        content: { media_url: 'https://cdn.example.com/receipt.png', caption: 'Your receipt' },
      },
      {
        channel_id: '…',
        to: '4915112345678',
        type: 'buttons',
        content: {
          body: 'Was this helpful?',
          buttons: [
            { id: 'yes', title: 'Yes' },
            { id: 'no', title: 'No' },
          ],
        },
      },
      {
        channel_id: '…',
        to: '4915112345678',
        type: 'list',
        content: {
          body: 'Pick a slot',
          button_text: 'Slots',
          sections: [{ title: 'Tomorrow', rows: [{ id: 'am', title: 'Morning', description: '9–12' }] }],
        },
      },
      {
        channel_id: '…',
        to: '4915112345678',
        type: 'location',
        content: { name: 'Shop', address: 'Main St 1', latitude: 52.52, longitude: 13.405 },
      },
      {
        channel_id: '…',
        to: '4915112345678',
        type: 'cta_url',
        content: { body: 'Track your parcel', display_text: 'Track', url: 'https://example.com/t/1' },
      },
      {
        channel_id: '…',
        to: '4915112345678',
        type: 'media_carousel',
        content: {
          body: 'New arrivals',
          cards: [
            {
              media_type: 'image',
              media_url: 'https://cdn.example.com/a.jpg',
              body: 'Blue',
              buttons: [{ type: 'url', title: 'Buy', url: 'https://example.com/a' }],
            },
            {
              media_type: 'image',
              media_url: 'https://cdn.example.com/b.jpg',
              body: 'Red',
              buttons: [{ type: 'url', title: 'Buy', url: 'https://example.com/b' }],
            },
          ],
        },
      },
      {
        channel_id: '…',
        to: '4915112345678',
        type: 'product_carousel',
        content: { body: 'Picks', catalog_id: '123', products: [{ product_retailer_id: 'sku-1' }, { product_retailer_id: 'sku-2' }] },
      },
      {
        channel_id: '…',
        to: '4915112345678',
        type: 'single_product',
        content: { catalog_id: '123', product_retailer_id: 'sku-1', body: 'Back in stock' },
      },
      {
        channel_id: '…',
        to: '4915112345678',
        type: 'multi_product',
        content: {
          catalog_id: '123',
          header: 'Our picks',
          body: 'For you',
          sections: [{ title: 'Shoes', product_retailer_ids: ['sku-1', 'sku-2'] }],
        },
      },
      {
        channel_id: '…',
        to: '4915112345678',
        type: 'catalog',
        content: { body: 'Browse the catalog', thumbnail_product_retailer_id: 'sku-1' },
      },
      {
        channel_id: '…',
        to: '4915112345678',
        type: 'address',
        content: { body: 'Where should we deliver?', country: 'IN', values: { name: 'Ana' } },
      },
      {
        channel_id: '…',
        to: '4915112345678',
        type: 'link',
        content: { url: 'https://example.com/blog', body: 'Read this', title: 'Our blog' },
      },
      {
        channel_id: '…',
        to: '4915112345678',
        type: 'poll',
        content: { question: 'Best day?', options: ['Mon', 'Fri'], multiple_answers: false },
      },
      { channel_id: '…', to: '4915112345678', type: 'presence', content: { state: 'typing' } },
      { channel_id: '…', to: '4915112345678', type: 'edit_message', content: { message_id: '3EB0C767D26A1D', body: 'Corrected text' } },
      { channel_id: '…', to: '4915112345678', type: 'delete_message', content: { message_id: '3EB0C767D26A1D', for_everyone: true } },
      { channel_id: '…', to: '4915112345678', type: 'message_status_query', content: { message_id: '3EB0C767D26A1D' } },
      { channel_id: '…', to: '4915112345678', type: 'message_media_download', content: { message_id: '3EB0C767D26A1D' } },
      {
        channel_id: '…',
        to: '4915112345678',
        type: 'flow',
        content: {
          body: 'Book a table',
          flow_id: '1234567890',
          flow_cta: 'Book',
          flow_token: 'booking-42',
          flow_action_payload: { screen: 'START', data: { party: 2 } },
        },
      },
      { channel_id: '…', to: '4915112345678', type: 'reaction', content: { message_id: 'wamid.HBgM…', reaction: '👍' } },
      { channel_id: '…', to: '4915112345678', type: 'mark_as_read', content: { message_id: 'wamid.HBgM…' } },
    ],
  });

export type SendMessageRequest = z.input<typeof SendBody>;

const ListQuery = PageQuerySchema.extend({
  channel_id: z.string().optional(),
  conversation_id: z.string().optional(),
  status: z.enum(MESSAGE_STATUSES).optional(),
  direction: z.enum(['inbound', 'outbound']).optional(),
  to: z.string().max(40).optional(),
  created_after: IsoTimestamp.optional(),
  created_before: IsoTimestamp.optional(),
});

/** Types a browser may show inline from this origin: pictures (not SVG, which runs script), sound and video. */
function showsInline(contentType: string, messageType: string): boolean {
  if (messageType === 'document') return false;
  return (
    (contentType.startsWith('image/') && contentType !== 'image/svg+xml') ||
    contentType.startsWith('audio/') ||
    contentType.startsWith('video/')
  );
}

const BinaryBody = z.string().meta({ format: 'binary', description: 'The bytes, as stored', example: '<the media bytes>' });

export async function registerMessageRoutes(app: App, deps: MessageDeps, media: { db: Executor; store: MediaStore }) {
  app.post(
    '/v1/messages',
    {
      // Its keys are kept with the message, in the same transaction (domain/messages/accept.ts).
      config: { auth: { permission: 'messages:send' }, idempotency: 'own' },
      schema: {
        tags: ['messages'],
        summary: 'Send a message',
        description: [
          "Validates the message, checks the channel support matrix, the 24-hour customer-service window (official channels: outside it only `template` is allowed) and the contact's consent and suppressions, then queues it: 201 with status `queued`. Sending happens in the background; follow it with GET /v1/messages/{messageID}/status or the message.sent / message.status_update webhooks.",
          `Send \`Idempotency-Key\` to make a retry safe: the same key with the same body (in any key order) within ${IDEMPOTENCY_HOURS} hours returns the first answer without sending again, with \`Idempotent-Replayed: true\`; with another body it is 409.`,
          "Errors: 400 with `errors[]` naming each bad field (e.g. `/content/buttons`); 409 when the channel is not connected; 422 `unsupported` (type not on this platform), `template_mismatch` (a component's parameter count differs from the approved template's: `component`, `index` for buttons, `expected`, `given`), `window_closed` or `send_refused` (suppressed or consent revoked).",
          'Media limits (checked when the worker fetches the media; a violation fails the message with code media_too_large, media_type_unsupported or media_unreachable): image 5 MB JPEG/PNG, audio 16 MB AAC/AMR/MP3/M4A/OGG, video 16 MB MP4/3GPP, document 100 MB, sticker WebP 100 KB static / 500 KB animated. Media URLs must be public https addresses. Instead of a URL, `media_id` sends a file uploaded with POST /v1/channels/{channelID}/media (image, video, audio, document, sticker, interactive headers and carousel cards; platforms with media.upload, else 422 naming it); a document header takes `file_name`.',
        ].join('\n\n'),
        headers: z.object({ 'idempotency-key': z.string().regex(IDEMPOTENCY_KEY).optional() }).passthrough(),
        body: SendBody,
        response: { 201: dataOf(MessageSchema), ...errorResponses([400, 401, 403, 409, 422]) },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const b = request.body;
      const to = b.to ?? b.to_phone;
      if (!to)
        throw new DomainError('invalid', 'to is required', {
          fieldErrors: [{ pointer: '/to', location: 'body', message: 'required (or to_phone)' }],
        });
      const key = request.headers['idempotency-key'] as string | undefined;
      const outcome = await inputFrom(
        'body',
        acceptMessageOnce(deps, actor, {
          channelId: b.channel_id,
          to,
          conversationId: b.conversation_id,
          type: b.type,
          content: b.content,
          idempotency: key ? { key, requestHash: requestHash(b) } : undefined,
        }),
      );
      if (outcome.refusal !== null) throw refusalError(outcome);
      if (outcome.replayed) void reply.header('idempotent-replayed', 'true');
      return reply.code(201).send({ data: presentMessage(outcome.message) });
    },
  );

  app.get(
    '/v1/messages',
    {
      config: { auth: { permission: 'messages:read' } },
      schema: {
        tags: ['messages'],
        summary: 'List messages',
        description:
          'Newest first. `limit` 1–200 (default 50); `cursor` is `meta.next_cursor` of the previous page and stays valid while new messages arrive.',
        querystring: ListQuery,
        response: { 200: listOf(MessageSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await inputFrom(
        'query',
        listMessages(deps, actorOf(request), {
          limit: q.limit,
          cursor: q.cursor,
          channelId: q.channel_id,
          conversationId: q.conversation_id,
          status: q.status,
          direction: q.direction,
          to: q.to,
          createdAfter: q.created_after ? new Date(q.created_after) : undefined,
          createdBefore: q.created_before ? new Date(q.created_before) : undefined,
        }),
      );
      return { data: page.items.map(presentMessage), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/messages/:messageID',
    {
      config: { auth: { permission: 'messages:read' } },
      schema: {
        tags: ['messages'],
        summary: 'Get a message',
        description: "404 problem with detail `message not found` for an unknown id, or another organization's.",
        params: z.object({ messageID: PathId }),
        response: { 200: dataOf(MessageSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentMessage(await loadMessage(deps, actorOf(request), request.params.messageID)) }),
  );

  app.post(
    '/v1/messages/:messageID/typing',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags: ['messages'],
        summary: "Show typing in answer to a customer's message",
        description: [
          "Queues a `presence` message (`{state: typing, message_id}`) to the sender of this inbound message, in its conversation: 201 with it. On official channels the provider gets its read receipt with the typing indicator (the message is marked read; the indicator shows until the answer is sent, or about 25 seconds); on unofficial ones it is the chat's typing presence. It is accepted like any message: the support matrix, the customer-service window, consent and suppressions.",
          "409 when the message is not one a customer sent; 404 problem with detail `message not found` for an unknown id, or another organization's.",
        ].join('\n\n'),
        params: z.object({ messageID: PathId }),
        response: { 201: dataOf(MessageSchema), ...errorResponses([401, 403, 404, 409, 422]) },
      },
    },
    async (request, reply) => {
      const outcome = await showTyping(deps, actorOf(request), request.params.messageID);
      if (outcome.refusal !== null) throw refusalError(outcome);
      return reply.code(201).send({ data: presentMessage(outcome.message) });
    },
  );

  app.get(
    '/v1/messages/:messageID/status',
    {
      config: { auth: { permission: 'messages:read' } },
      schema: {
        tags: ['messages'],
        summary: "Poll a message's delivery",
        description:
          'The current status, every reported change with its time (late or out-of-order reports are kept in the history but never move the status back), and the error when failed.',
        params: z.object({ messageID: PathId }),
        response: { 200: dataOf(MessageStatusSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentStatus(await messageStatus(deps, actorOf(request), request.params.messageID)) }),
  );

  app.get(
    '/v1/messages/:messageID/media',
    {
      config: { auth: { permission: 'messages:read', organizationQuery: 'organization_id' } },
      schema: {
        tags: ['messages'],
        summary: "Download a message's media",
        description: [
          "The bytes of an inbound message's media, as Parley downloaded and stored them when the message arrived (provider links expire; this one does not). The message record's `media.url` points here.",
          "`Content-Type` is the type sniffed from the bytes (`application/octet-stream` when they tell nothing), never the type the provider declared. `ETag` is the SHA-256 of the bytes (`If-None-Match` answers 304). Documents, and anything a browser should not render, come as `Content-Disposition: attachment` with the sender's file name; pictures, audio and video `inline`.",
          'One byte range (`Range: bytes=0-1023`, `bytes=1024-`, `bytes=-1024`) answers 206 with `Content-Range`; a range past the end answers 416 with `Content-Range: bytes */<size>`; several ranges are answered whole (200), unless they overlap or touch (one range then).',
          "404 for an unknown message, another organization's, or a message without media; 409 while the media is still `pending` or when it `failed` (`media_status`, and `media_error` with its code, e.g. `media_too_large`).",
          'A dashboard session (cookie) may name its organization with `organization_id` (an `<img>` or `<video>` element cannot send X-Organization-Id); the same rules as the header apply.',
        ].join('\n\n'),
        params: z.object({ messageID: PathId }),
        querystring: z.object({
          organization_id: z
            .uuid()
            .optional()
            .meta({ description: 'The organization, for a session that cannot send X-Organization-Id (a media element)' }),
        }),
        headers: z
          .object({
            range: z.string().max(200).optional().meta({ description: 'One byte range, e.g. bytes=0-1023' }),
            'if-range': z
              .string()
              .max(200)
              .optional()
              .meta({ description: 'The ETag the client holds: the range is served only while it still matches' }),
            'if-none-match': z.string().max(200).optional().meta({ description: 'The ETag the client holds: 304 while it still matches' }),
          })
          .passthrough(),
        response: {
          200: {
            description: 'The whole media',
            headers: {
              'content-type': { type: 'string', description: 'Sniffed from the bytes' },
              'content-length': { type: 'integer' },
              etag: { type: 'string', description: 'The SHA-256 of the bytes, quoted' },
              'accept-ranges': { type: 'string', example: 'bytes' },
              'content-disposition': {
                type: 'string',
                example: `attachment; filename="Relat_rio.pdf"; filename*=UTF-8''Relat%C3%B3rio.pdf`,
              },
            },
            content: { 'application/octet-stream': { schema: BinaryBody } },
          },
          206: {
            description: 'The byte range asked for',
            headers: {
              'content-range': { type: 'string', example: 'bytes 0-1023/48213' },
              'content-length': { type: 'integer' },
              etag: { type: 'string' },
            },
            content: { 'application/octet-stream': { schema: BinaryBody } },
          },
          304: z.null().describe('Not modified: If-None-Match names the current ETag (no body)'),
          ...errorResponses([401, 403, 404, 409, 416]),
        },
      },
    },
    async (request, reply) => {
      const opened = await openMessageMedia(media, actorOf(request), request.params.messageID);
      const { contentType, size, sha256, fileName } = opened.media;
      const etag = `"${sha256}"`;
      const known = request.headers['if-none-match'];
      if (known !== undefined && known.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
        return reply.code(304).header('etag', etag).header('cache-control', 'private, max-age=3600').send(null);
      }
      const ifRange = request.headers['if-range'];
      const range =
        ifRange !== undefined && ifRange.trim() !== etag ? { kind: 'whole' as const } : resolveRange(request.headers.range, size);
      if (range.kind === 'unsatisfiable') {
        void reply.header('content-range', `bytes */${size}`);
        throw new HttpError('range_not_satisfiable', `the range is outside the media (${size} bytes)`);
      }
      const inline = showsInline(contentType, opened.messageType);
      void reply
        .header('etag', etag)
        .header('accept-ranges', 'bytes')
        .header('cache-control', 'private, max-age=3600')
        .header('x-content-type-options', 'nosniff')
        // Opened directly, the bytes are an inert document: no script, no plugins, no same-origin access.
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('content-disposition', contentDisposition(inline ? 'inline' : 'attachment', fileName));
      const partial = range.kind === 'partial' ? { start: range.start, end: range.end } : undefined;
      const body = await opened.read(partial);
      void reply.type(contentType);
      if (partial) {
        void reply
          .code(206)
          .header('content-range', `bytes ${partial.start}-${partial.end}/${size}`)
          .header('content-length', String(partial.end - partial.start + 1));
      } else {
        void reply.code(200).header('content-length', String(size));
      }
      // Streamed as it is read from the store (the schema above describes the bytes for the document).
      return reply.send(Readable.from(body, { objectMode: false }) as unknown as string);
    },
  );
}
