/** The OpenAPI document's frame (info, servers, security schemes) and how the route schemas become it. */
import swagger from '@fastify/swagger';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { Config } from '../../config.ts';
import { asReference, withErrorResponses } from '../openapi.ts';
import type { App } from '../types.ts';

/**
 * The groups of operations, in the order the reference shows them: each operation has one of these tags,
 * and the SDK (packages/sdk) groups its methods by them (`api-keys` is `parley.apiKeys`).
 */
export const OPENAPI_TAGS: ReadonlyArray<{ name: string; description: string }> = [
  { name: 'health', description: 'Whether the service and its database answer.' },
  { name: 'auth', description: 'Dashboard sessions, sign-up, passwords and the OAuth grants a user gave.' },
  { name: 'oauth', description: 'OAuth 2.0: authorization code with PKCE, the device flow, tokens, introspection and revocation.' },
  { name: 'api-keys', description: "The organization's API keys and their permissions." },
  { name: 'oauth-clients', description: 'OAuth clients registered by the organization (third-party apps and CLIs).' },
  { name: 'organizations', description: 'Organizations, their members and invitations.' },
  { name: 'channels', description: "Connected numbers: the provider's official API or a linked device, their status, QR and media." },
  {
    name: 'groups',
    description:
      "The groups of an unofficial channel's number: list and read them with their members, create them, change their subject, description, picture and settings, add, remove, promote and demote members, invite links, joining and leaving.",
  },
  {
    name: 'labels',
    description:
      "The business labels of an unofficial channel's number: list, create, rename, recolor and delete them, put them on chats (contacts and groups) or single messages and take them off; kept in step with the phone.",
  },
  {
    name: 'status',
    description: "Status posts (stories) of an unofficial channel's number: text, image or video to chosen contacts.",
  },
  {
    name: 'chats',
    description:
      "The chats of an unofficial channel's phone: the chat list with unread counts and the last message, archiving, pinning, muting, marking read or unread and deleting a chat, and fetching a chat's earlier messages from the phone.",
  },
  {
    name: 'profiles',
    description:
      "Through an unofficial channel's phone: numbers' profiles, the channel's own profile, blocking, privacy settings and privacy ids (provider data, not the CRM).",
  },
  {
    name: 'calls',
    description: "Calls to an unofficial channel's number: rejecting one as it rings (each call is a `call` message and call.* events).",
  },
  { name: 'templates', description: 'Message templates, submitted to the provider for approval and synced from it.' },
  { name: 'onboarding', description: 'Embedded sign-up with the provider: exchanging its code and registering a number.' },
  { name: 'contacts', description: 'The CRM: contacts, identities, notes, tags, consents, suppressions and imports.' },
  { name: 'companies', description: 'The CRM: companies (domain, phone, address, owner, custom fields).' },
  { name: 'pipelines', description: 'The CRM: pipelines with their ordered stages, and the board of a pipeline’s deals.' },
  {
    name: 'deals',
    description:
      'The CRM: deals in a pipeline’s stages, with amounts, contacts, company, the conversation they came from, and their stage history.',
  },
  {
    name: 'tasks',
    description: 'The CRM: tasks with a due time, an assignee and the records they are about; my tasks, overdue tasks, a record’s tasks.',
  },
  {
    name: 'lists',
    description: 'The CRM: static lists of contacts, companies or deals, their entries added (many at once) and removed.',
  },
  {
    name: 'broadcasts',
    description:
      'Broadcasts: an approved template sent to an audience (a segment, a list, tags, contacts or numbers) at a time and a pace, through the same accept path and dispatcher as every message, with a record and a status per recipient and a report.',
  },
  {
    name: 'segments',
    description:
      'The CRM: segments, saved filters over contacts (tags, lists, custom fields, consents, suppressions, last inbound message, company) with a live count and a preview.',
  },
  {
    name: 'relationships',
    description:
      'The CRM: labelled links between records (a contact works at a company), and the organization’s labels with their inverses.',
  },
  {
    name: 'orders',
    description:
      'Orders: placed by inbound order messages (a catalog’s cart) or created by the API, numbered per organization, with their status and payment status.',
  },
  { name: 'comments', description: 'The CRM: comments on contacts (their notes), companies, deals, tasks and conversations.' },
  { name: 'search', description: 'One ranked full-text search over contacts, companies, deals and message text.' },
  { name: 'messages', description: 'Sending messages of every kind and following their statuses.' },
  { name: 'conversations', description: 'Conversations with a contact on a channel: the inbox.' },
  {
    name: 'canned responses',
    description: 'Replies an agent inserts with /shortcut: shared or their own, with variables filled per conversation.',
  },
  {
    name: 'automations',
    description:
      'Automation rules: a trigger, conditions and actions run on conversations, with a run log and a dry run (docs/automations.md).',
  },
  {
    name: 'teams',
    description: 'Teams of members with an assignment policy and capacities, members’ availability, and the team a channel routes to.',
  },
  {
    name: 'bots',
    description: 'External URLs that own conversations until a member takes over: their triggers, and hand-offs between bots and people.',
  },
  { name: 'webhooks', description: 'Webhook endpoints, their signing secrets, and deliveries with their retries.' },
  { name: 'events', description: 'Every event, read as a list or as a live stream of server-sent events.' },
  { name: 'provider webhooks', description: 'Called by the providers (their webhooks and the gateway protocol), not by integrators.' },
];

/** Registers the document; the routes registered after it are in it. */
export async function registerOpenApiDocument(app: App, config: Pick<Config, 'baseUrl'>): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Parley API',
        version: '1.0.0',
        description:
          'Business messaging and CRM. Authenticate with `X-Api-Key`, an OAuth access token (`Authorization: Bearer`), or the dashboard session cookie. ' +
          'Lists return `{data: [...], meta: {next_cursor}}`; pass `cursor` (and `limit`, default 50, maximum 200) to page. ' +
          'Errors are RFC 9457 problem bodies, except the contacts routes (`{error, code}`) and the OAuth token endpoints (`{error, error_description}`). ' +
          'Requests are rate limited per API key, per OAuth client, per dashboard user, and per address without a credential: counted responses carry `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` and `RateLimit-Policy`; over a limit the answer is 429 with `Retry-After`.',
      },
      servers: [{ url: config.baseUrl }],
      tags: [...OPENAPI_TAGS],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'An API key; its permissions are the scopes below.' },
          bearer: { type: 'http', scheme: 'bearer', description: 'An OAuth 2.0 access token.' },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: 'parley_session',
            description:
              'Dashboard session cookie set by POST /v1/auth/login. Every write (POST, PUT, PATCH, DELETE) made with it must also send the `X-CSRF-Token` header holding the value of the readable `parley_csrf` cookie set beside it; without it the answer is 403. Reads need no token.',
          },
          clientBasic: {
            type: 'http',
            scheme: 'basic',
            description: 'OAuth client credentials (client_secret_basic): client_id and client_secret, form-encoded, as HTTP Basic.',
          },
        },
      },
      security: [{ apiKey: [] }, { bearer: [] }, { session: [] }],
    },
    transform: withErrorResponses(jsonSchemaTransform),
    transformObject: (input) => asReference(optionalNullableBodies(jsonSchemaTransformObject(input))),
  });
}

/**
 * A body schema that also accepts null (`.nullish()`: the route works without a body) is an optional
 * request body in the document; @fastify/swagger marks every body required.
 */
function optionalNullableBodies<T>(document: T): T {
  const paths =
    (
      document as {
        paths?: Record<
          string,
          Record<
            string,
            { requestBody?: { required?: boolean; content?: Record<string, { schema?: { anyOf?: Array<{ type?: string }> } }> } }
          >
        >;
      }
    ).paths ?? {};
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      const body = operation?.requestBody;
      if (!body?.content) continue;
      const acceptsNull = Object.values(body.content).every((media) => media.schema?.anyOf?.some((s) => s.type === 'null'));
      if (acceptsNull) body.required = false;
    }
  }
  return document;
}
