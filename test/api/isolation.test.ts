/**
 * Tenant isolation, table-driven over every operation of the OpenAPI document: organization A owns
 * one of everything; organization B, with its API key and with its dashboard session, asks for A's
 * resources by id (in the path, in the body, in list filters). Each answer must be exactly the
 * answer for an unknown id, A's resource must not change, and no list B reads may show A's rows.
 * Public per-channel routes must answer a real channel id as they answer an unknown one. A new
 * operation without a row here fails the test.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { createOtherOrganization, freePort, loginCookie, request, startTestServer, type ApiResponse, type TestServer } from '../harness.ts';
import { guardLoopback, type LoopbackGuard } from '../fuzz/loopback-guard.ts';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { eventually } from '../eventually.ts';
import { recordEvent } from '../../src/domain/events/outbox.ts';
import { encodeEventCursor } from '../../src/domain/events/replay.ts';
import { approvedTemplate, customerWrites, officialChannel, pairedGatewayChannel } from '../messages-helpers.ts';
import { jpegBytes, multipartBody, settledMedia } from '../media-helpers.ts';
import {
  approveDevice,
  authorizeQuery,
  createGrant,
  createOAuthClient,
  deviceFlowTokens,
  startDeviceFlow,
} from '../oauth-client-fixture.ts';

type Ids = {
  channel: string;
  /** A shared canned response of A's. */
  cannedResponse: string;
  /** An automation rule of A's. */
  automation: string;
  /** A team of A's, with A's member in it; A's channel routes to it. */
  team: string;
  /** A bot of A's (disabled: it takes none of A's conversations). */
  bot: string;
  /** A group of A's gateway channel's number. */
  group: string;
  /** A business label of A's gateway channel's number (its engine id), on a contact's chat. */
  chatLabel: string;
  official: string;
  contact: string;
  note: string;
  tag: string;
  template: string;
  message: string;
  /** An inbound message of A's with its media stored. */
  mediaMessage: string;
  conversation: string;
  /** A conversation label of A's (on A's conversation), and a private note in A's conversation. */
  conversationLabel: string;
  conversationNote: string;
  endpoint: string;
  delivery: string;
  key: string;
  session: string;
  phone: string;
  /** An authorization request A's owner approved, and a device code they approved. */
  authorizationRequest: string;
  userCode: string;
  /** A confidential OAuth client of A's (its client_id), and a grant A's owner gave. */
  oauthClient: string;
  grant: string;
  /** A's organization, a member of it, and an invitation it has pending. */
  organization: string;
  member: string;
  invitation: string;
  /** An access token of A's owner (from the approved device). */
  accessToken: string;
  /** A's CRM records: a company, a pipeline of its own, a stage of it, and a deal in that stage (with the contact and company). */
  company: string;
  pipeline: string;
  stage: string;
  deal: string;
  /** A task of A's on its deal and contact, a relationship label, a link (the contact works at the company), a comment on the deal. */
  task: string;
  label: string;
  relationship: string;
  comment: string;
  /** An order of A's contact, in its conversation. */
  order: string;
  /** A list of A's contacts holding A's contact, and a segment of A's. */
  list: string;
  segment: string;
  /** A draft broadcast of A's to its segment, on its official channel (with a template approved there). */
  broadcast: string;
  /** A call ringing on A's gateway channel (its id), and its record (a `call` message). */
  call: string;
  callMessage: string;
};
type IdName = keyof Ids;

/**
 * path: each path parameter's id (or a literal value, as `=value`); body and query may name ids as
 * `{{name}}`; form: a multipart body instead (an upload). probe: A's GETs that show the resource, compared before and after.
 */
type Row =
  | {
      kind: 'id';
      path?: Record<string, IdName | `=${string}`>;
      body?: unknown;
      form?: Parameters<typeof multipartBody>[0];
      query?: Record<string, string>;
      probe: string[];
    }
  | { kind: 'list'; query?: Record<string, string> }
  /** A live stream: B's, opened from before A's events (cursor 0), never carries them. */
  | { kind: 'stream' }
  | { kind: 'public-id'; path?: Record<string, IdName>; body?: unknown }
  | { kind: 'no tenant data'; why: string };

const ROWS: Record<string, Row> = {
  'GET /v1/health': { kind: 'no tenant data', why: 'liveness' },
  'POST /v1/auth/login': { kind: 'no tenant data', why: 'credentials in, a session of the caller out' },
  'POST /v1/auth/logout': { kind: 'no tenant data', why: "ends the caller's own session" },
  'GET /v1/auth/session': { kind: 'list' },
  'GET /v1/auth/sessions': { kind: 'list' },
  'DELETE /v1/auth/sessions/{sessionID}': { kind: 'id', path: { sessionID: 'session' }, probe: ['GET /v1/auth/sessions'] },
  'POST /v1/api-keys': { kind: 'no tenant data', why: 'creates a key in the caller’s organization' },
  'GET /v1/api-keys': { kind: 'list' },
  'DELETE /v1/api-keys/{keyID}': { kind: 'id', path: { keyID: 'key' }, probe: ['GET /v1/api-keys'] },
  'GET /v1/channels': { kind: 'list' },
  'POST /v1/channels': { kind: 'no tenant data', why: 'creates a channel in the caller’s organization' },
  'GET /v1/channels/{channelID}': { kind: 'id', path: { channelID: 'channel' }, probe: ['GET /v1/channels/{channel}'] },
  'PATCH /v1/channels/{channelID}': {
    kind: 'id',
    path: { channelID: 'channel' },
    body: { name: 'taken over' },
    probe: ['GET /v1/channels/{channel}'],
  },
  'DELETE /v1/channels/{channelID}': { kind: 'id', path: { channelID: 'channel' }, probe: ['GET /v1/channels/{channel}'] },
  'GET /v1/channels/{channelID}/status': { kind: 'id', path: { channelID: 'channel' }, probe: ['GET /v1/channels/{channel}'] },
  'GET /v1/channels/{channelID}/capabilities': { kind: 'id', path: { channelID: 'channel' }, probe: ['GET /v1/channels/{channel}'] },
  'POST /v1/channels/{channelID}/connect': { kind: 'id', path: { channelID: 'official' }, probe: ['GET /v1/channels/{official}'] },
  'GET /v1/channels/{channelID}/qr': { kind: 'id', path: { channelID: 'channel' }, probe: ['GET /v1/channels/{channel}'] },
  'POST /v1/channels/{channelID}/disconnect': { kind: 'id', path: { channelID: 'channel' }, probe: ['GET /v1/channels/{channel}'] },
  'POST /v1/channels/{channelID}/contacts/lookup': {
    kind: 'id',
    path: { channelID: 'channel' },
    body: { phone: '+4915112340001' },
    probe: ['GET /v1/channels/{channel}'],
  },
  'POST /v1/channels/{channelID}/media': {
    kind: 'id',
    path: { channelID: 'official' },
    form: { file: { data: jpegBytes(), type: 'image/jpeg', name: 'a.jpg' } },
    probe: ['GET /v1/channels/{official}'],
  },
  'POST /v1/channels/{channelID}/presence/subscribe': {
    kind: 'id',
    path: { channelID: 'channel' },
    body: { phone: '+4915112340101' },
    probe: ['GET /v1/channels/{channel}'],
  },
  'GET /v1/channels/{channelID}/labels': { kind: 'id', path: { channelID: 'channel' }, probe: ['GET /v1/channels/{channel}/labels'] },
  'POST /v1/channels/{channelID}/labels': {
    kind: 'id',
    path: { channelID: 'channel' },
    body: { name: 'stolen' },
    probe: ['GET /v1/channels/{channel}/labels'],
  },
  'GET /v1/channels/{channelID}/labels/{chatLabelID}': {
    kind: 'id',
    path: { channelID: 'channel', chatLabelID: 'chatLabel' },
    probe: ['GET /v1/channels/{channel}/labels/{chatLabel}'],
  },
  'PATCH /v1/channels/{channelID}/labels/{chatLabelID}': {
    kind: 'id',
    path: { channelID: 'channel', chatLabelID: 'chatLabel' },
    body: { name: 'renamed', color: 1 },
    probe: ['GET /v1/channels/{channel}/labels/{chatLabel}'],
  },
  'DELETE /v1/channels/{channelID}/labels/{chatLabelID}': {
    kind: 'id',
    path: { channelID: 'channel', chatLabelID: 'chatLabel' },
    probe: ['GET /v1/channels/{channel}/labels/{chatLabel}'],
  },
  'POST /v1/channels/{channelID}/labels/{chatLabelID}/chats': {
    kind: 'id',
    path: { channelID: 'channel', chatLabelID: 'chatLabel' },
    body: { chat: '+4915112340102' },
    probe: ['GET /v1/channels/{channel}/labels/{chatLabel}'],
  },
  'DELETE /v1/channels/{channelID}/labels/{chatLabelID}/chats/{chat}': {
    kind: 'id',
    path: { channelID: 'channel', chatLabelID: 'chatLabel', chat: '=+4915112340101' },
    probe: ['GET /v1/channels/{channel}/labels/{chatLabel}'],
  },
  'POST /v1/channels/{channelID}/status': {
    kind: 'id',
    path: { channelID: 'channel' },
    body: { type: 'text', text: 'not yours', recipients: ['+4915112340101'] },
    probe: ['GET /v1/channels/{channel}'],
  },
  'GET /v1/channels/{channelID}/groups': { kind: 'id', path: { channelID: 'channel' }, probe: ['GET /v1/channels/{channel}/groups'] },
  'POST /v1/channels/{channelID}/groups': {
    kind: 'id',
    path: { channelID: 'channel' },
    body: { subject: 'stolen', participants: ['+4915112340101'] },
    probe: ['GET /v1/channels/{channel}/groups'],
  },
  'POST /v1/channels/{channelID}/groups/join': {
    kind: 'id',
    path: { channelID: 'channel' },
    body: { code: 'NoSuchInvite123' },
    probe: ['GET /v1/channels/{channel}/groups'],
  },
  'GET /v1/channels/{channelID}/groups/{groupID}': {
    kind: 'id',
    path: { channelID: 'channel', groupID: 'group' },
    probe: ['GET /v1/channels/{channel}/groups/{group}'],
  },
  'PATCH /v1/channels/{channelID}/groups/{groupID}': {
    kind: 'id',
    path: { channelID: 'channel', groupID: 'group' },
    body: { subject: 'taken over', announcement: true },
    probe: ['GET /v1/channels/{channel}/groups/{group}'],
  },
  'PUT /v1/channels/{channelID}/groups/{groupID}/picture': {
    kind: 'id',
    path: { channelID: 'channel', groupID: 'group' },
    body: { url: 'https://cdn.example.com/stolen.jpg' },
    probe: ['GET /v1/channels/{channel}/groups/{group}'],
  },
  'DELETE /v1/channels/{channelID}/groups/{groupID}/picture': {
    kind: 'id',
    path: { channelID: 'channel', groupID: 'group' },
    probe: ['GET /v1/channels/{channel}/groups/{group}'],
  },
  'POST /v1/channels/{channelID}/groups/{groupID}/participants': {
    kind: 'id',
    path: { channelID: 'channel', groupID: 'group' },
    body: { action: 'remove', participants: ['+4915112340101'] },
    probe: ['GET /v1/channels/{channel}/groups/{group}'],
  },
  'GET /v1/channels/{channelID}/groups/{groupID}/invite': {
    kind: 'id',
    path: { channelID: 'channel', groupID: 'group' },
    probe: ['GET /v1/channels/{channel}/groups/{group}/invite'],
  },
  'POST /v1/channels/{channelID}/groups/{groupID}/invite/revoke': {
    kind: 'id',
    path: { channelID: 'channel', groupID: 'group' },
    probe: ['GET /v1/channels/{channel}/groups/{group}/invite'],
  },
  'POST /v1/channels/{channelID}/groups/{groupID}/leave': {
    kind: 'id',
    path: { channelID: 'channel', groupID: 'group' },
    probe: ['GET /v1/channels/{channel}/groups/{group}'],
  },
  // Chats (unofficial channels): A's channel and its chat through B's credentials are unknown ones, the chat unchanged.
  'GET /v1/channels/{channelID}/chats': { kind: 'id', path: { channelID: 'channel' }, probe: ['GET /v1/channels/{channel}/chats'] },
  'GET /v1/channels/{channelID}/chats/{chatID}': {
    kind: 'id',
    path: { channelID: 'channel', chatID: 'phone' },
    probe: ['GET /v1/channels/{channel}/chats/{phone}'],
  },
  'PATCH /v1/channels/{channelID}/chats/{chatID}': {
    kind: 'id',
    path: { channelID: 'channel', chatID: 'phone' },
    body: { archived: true, pinned: true },
    probe: ['GET /v1/channels/{channel}/chats/{phone}'],
  },
  'DELETE /v1/channels/{channelID}/chats/{chatID}': {
    kind: 'id',
    path: { channelID: 'channel', chatID: 'phone' },
    probe: ['GET /v1/channels/{channel}/chats/{phone}'],
  },
  'POST /v1/channels/{channelID}/chats/{chatID}/history': {
    kind: 'id',
    path: { channelID: 'channel', chatID: 'phone' },
    body: { count: 5 },
    probe: ['GET /v1/channels/{channel}/chats/{phone}', 'GET /v1/conversations/{conversation}/messages'],
  },
  'POST /v1/messages/{messageID}/forward': {
    kind: 'id',
    path: { messageID: 'message' },
    body: { to: '+4915112340101' },
    probe: ['GET /v1/messages/{message}'],
  },
  'POST /v1/messages/{messageID}/star': {
    kind: 'id',
    path: { messageID: 'message' },
    body: { starred: true },
    probe: ['GET /v1/messages/{message}'],
  },
  'POST /v1/messages/{messageID}/pin': {
    kind: 'id',
    path: { messageID: 'message' },
    body: { pinned: true },
    probe: ['GET /v1/messages/{message}'],
  },
  // Profiles and calls (unofficial channels): A's channel through B's credentials is an unknown channel.
  'GET /v1/channels/{channelID}/profiles/{phone}': {
    kind: 'id',
    path: { channelID: 'channel', phone: 'phone' },
    probe: ['GET /v1/channels/{channel}'],
  },
  'GET /v1/channels/{channelID}/profile': { kind: 'id', path: { channelID: 'channel' }, probe: ['GET /v1/channels/{channel}/profile'] },
  'PATCH /v1/channels/{channelID}/profile': {
    kind: 'id',
    path: { channelID: 'channel' },
    body: { name: 'Taken over', about: 'taken over' },
    probe: ['GET /v1/channels/{channel}/profile'],
  },
  'PUT /v1/channels/{channelID}/profile/picture': {
    kind: 'id',
    path: { channelID: 'channel' },
    // Never fetched: the channel is not found first.
    body: { url: 'http://127.0.0.1:9/taken.png' },
    probe: ['GET /v1/channels/{channel}/profile'],
  },
  'DELETE /v1/channels/{channelID}/profile/picture': {
    kind: 'id',
    path: { channelID: 'channel' },
    probe: ['GET /v1/channels/{channel}/profile'],
  },
  'GET /v1/channels/{channelID}/blocklist': { kind: 'id', path: { channelID: 'channel' }, probe: ['GET /v1/channels/{channel}/blocklist'] },
  'POST /v1/channels/{channelID}/blocklist': {
    kind: 'id',
    path: { channelID: 'channel' },
    body: { phone: '+4915112340001' },
    probe: ['GET /v1/channels/{channel}/blocklist'],
  },
  'DELETE /v1/channels/{channelID}/blocklist/{phone}': {
    kind: 'id',
    path: { channelID: 'channel', phone: 'phone' },
    probe: ['GET /v1/channels/{channel}/blocklist'],
  },
  'GET /v1/channels/{channelID}/privacy': { kind: 'id', path: { channelID: 'channel' }, probe: ['GET /v1/channels/{channel}/privacy'] },
  'PATCH /v1/channels/{channelID}/privacy': {
    kind: 'id',
    path: { channelID: 'channel' },
    body: { last_seen: 'none', read_receipts: 'none' },
    probe: ['GET /v1/channels/{channel}/privacy'],
  },
  'POST /v1/channels/{channelID}/lids/lookup': {
    kind: 'id',
    path: { channelID: 'channel' },
    body: { phone: '{{phone}}' },
    probe: ['GET /v1/channels/{channel}'],
  },
  'POST /v1/channels/{channelID}/calls/{callID}/reject': {
    kind: 'id',
    path: { channelID: 'channel', callID: 'call' },
    body: { message: 'taken over' },
    probe: ['GET /v1/messages/{callMessage}'],
  },
  'GET /v1/templates': { kind: 'list', query: { channel_id: '{{official}}' } },
  'POST /v1/templates': {
    kind: 'id',
    body: {
      channel_id: '{{official}}',
      name: 'stolen',
      language: 'en_US',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Hi' }],
    },
    probe: ['GET /v1/templates?channel_id={official}'],
  },
  'GET /v1/templates/{templateID}': { kind: 'id', path: { templateID: 'template' }, probe: ['GET /v1/templates/{template}'] },
  'POST /v1/templates/{templateID}/submit': { kind: 'id', path: { templateID: 'template' }, probe: ['GET /v1/templates/{template}'] },
  'POST /v1/templates/sync': { kind: 'id', body: { channel_id: '{{official}}' }, probe: ['GET /v1/templates?channel_id={official}'] },
  'POST /v1/bizapi/exchange-code': {
    kind: 'id',
    body: { code: 'a-code', channel_id: '{{official}}' },
    probe: ['GET /v1/channels/{official}'],
  },
  'POST /v1/bizapi/register-phone': {
    kind: 'id',
    body: { channel_id: '{{official}}', pin: '123456' },
    probe: ['GET /v1/channels/{official}'],
  },
  'POST /v1/contacts': {
    kind: 'no tenant data',
    why: 'creates or updates a contact of the caller’s organization (its phone matches nothing of A’s: checked by the list row)',
  },
  'GET /v1/contacts': { kind: 'list', query: { search: 'Isolated' } },
  'POST /v1/contacts/lookup': {
    kind: 'id',
    body: { identifiers: [{ type: 'contact_id', value: '{{contact}}' }] },
    probe: ['GET /v1/contacts/{contact}'],
  },
  'GET /v1/contacts/phone/{phone}': { kind: 'id', path: { phone: 'phone' }, probe: ['GET /v1/contacts/{contact}'] },
  'GET /v1/contacts/{contactID}': { kind: 'id', path: { contactID: 'contact' }, probe: ['GET /v1/contacts/{contact}'] },
  'PATCH /v1/contacts/{contactID}': {
    kind: 'id',
    path: { contactID: 'contact' },
    body: { name: 'taken over' },
    probe: ['GET /v1/contacts/{contact}'],
  },
  'DELETE /v1/contacts/{contactID}': { kind: 'id', path: { contactID: 'contact' }, probe: ['GET /v1/contacts/{contact}'] },
  'GET /v1/contacts/{contactID}/identities': {
    kind: 'id',
    path: { contactID: 'contact' },
    probe: ['GET /v1/contacts/{contact}/identities'],
  },
  'GET /v1/contacts/{contactID}/notes': { kind: 'id', path: { contactID: 'contact' }, probe: ['GET /v1/contacts/{contact}/notes'] },
  'POST /v1/contacts/{contactID}/notes': {
    kind: 'id',
    path: { contactID: 'contact' },
    body: { body: 'planted' },
    probe: ['GET /v1/contacts/{contact}/notes'],
  },
  'DELETE /v1/contacts/{contactID}/notes/{noteID}': {
    kind: 'id',
    path: { contactID: 'contact', noteID: 'note' },
    probe: ['GET /v1/contacts/{contact}/notes'],
  },
  // Another organization's contact in the path answers as an unknown one; in the body (duplicate_id) as an unknown one too (test/api/contacts-merge.test.ts).
  'POST /v1/contacts/{contactID}/merge': {
    kind: 'id',
    path: { contactID: 'contact' },
    body: { duplicate_id: '{{contact}}' },
    probe: ['GET /v1/contacts/{contact}'],
  },
  'POST /v1/contacts/{contactID}/merge/preview': {
    kind: 'id',
    path: { contactID: 'contact' },
    body: { duplicate_id: '{{contact}}' },
    probe: ['GET /v1/contacts/{contact}'],
  },
  'GET /v1/contacts/{contactID}/timeline': { kind: 'id', path: { contactID: 'contact' }, probe: ['GET /v1/contacts/{contact}/timeline'] },
  'GET /v1/contacts/{contactID}/tags': { kind: 'id', path: { contactID: 'contact' }, probe: ['GET /v1/contacts/{contact}/tags'] },
  'POST /v1/contacts/{contactID}/tags': {
    kind: 'id',
    path: { contactID: 'contact' },
    body: { tag: 'planted' },
    probe: ['GET /v1/contacts/{contact}/tags'],
  },
  'DELETE /v1/contacts/{contactID}/tags/{tag}': {
    kind: 'id',
    path: { contactID: 'contact', tag: 'tag' },
    probe: ['GET /v1/contacts/{contact}/tags'],
  },
  'PUT /v1/contacts/{contactID}/consent/{channel}': {
    kind: 'id',
    path: { contactID: 'contact', channel: '=all' },
    body: { state: 'revoked' },
    probe: ['GET /v1/contacts/{contact}/consents'],
  },
  'GET /v1/contacts/{contactID}/consents': { kind: 'id', path: { contactID: 'contact' }, probe: ['GET /v1/contacts/{contact}/consents'] },
  'GET /v1/contacts/{contactID}/suppressions': {
    kind: 'id',
    path: { contactID: 'contact' },
    probe: ['GET /v1/contacts/{contact}/suppressions'],
  },
  'POST /v1/contacts/{contactID}/suppressions': {
    kind: 'id',
    path: { contactID: 'contact' },
    body: { channel: 'all', reason: 'planted' },
    probe: ['GET /v1/contacts/{contact}/suppressions'],
  },
  'DELETE /v1/contacts/{contactID}/suppressions/{channel}': {
    kind: 'id',
    path: { contactID: 'contact', channel: '=all' },
    probe: ['GET /v1/contacts/{contact}/suppressions'],
  },
  'GET /v1/settings/opt-out': { kind: 'list' },
  'PATCH /v1/settings/opt-out': {
    kind: 'no tenant data',
    why: "changes the caller's own organization's opt-out keywords (another's stay: test/api/opt-out.test.ts)",
  },
  'GET /v1/settings/business-hours': { kind: 'list' },
  'PATCH /v1/settings/business-hours': {
    kind: 'no tenant data',
    why: "changes the caller's own organization's business hours (another's stay: test/api/business-hours.test.ts)",
  },
  'GET /v1/settings/business-hours/status': { kind: 'list' },
  'GET /v1/settings/csat': { kind: 'list' },
  'PATCH /v1/settings/csat': {
    kind: 'no tenant data',
    why: "changes the caller's own organization's survey settings (another's stay: test/api/csat.test.ts)",
  },
  'GET /v1/channels/{channelID}/business-hours': {
    kind: 'id',
    path: { channelID: 'channel' },
    probe: ['GET /v1/channels/{channel}/business-hours'],
  },
  'PATCH /v1/channels/{channelID}/business-hours': {
    kind: 'id',
    path: { channelID: 'channel' },
    body: { time_zone: 'Asia/Tokyo', away_message: 'taken over' },
    probe: ['GET /v1/channels/{channel}/business-hours'],
  },
  'GET /v1/channels/{channelID}/business-hours/status': {
    kind: 'id',
    path: { channelID: 'channel' },
    probe: ['GET /v1/channels/{channel}/business-hours'],
  },
  'POST /v1/contacts/import': {
    kind: 'no tenant data',
    why: 'imports into the caller’s organization (rows match nothing of A’s: checked by the list row)',
  },
  'POST /v1/companies/import': {
    kind: 'no tenant data',
    why: 'imports into the caller’s organization: a row with A’s domain creates B’s own company, never touches A’s (crm-import.test.ts)',
  },
  'POST /v1/deals/import': {
    kind: 'no tenant data',
    why: 'creates deals of the caller’s organization; A’s company, contacts, pipelines and members are refused as unknown ones (crm-import.test.ts)',
  },
  'POST /v1/canned-responses': {
    kind: 'no tenant data',
    why: 'creates a canned response of the caller’s organization (a shortcut is unique per organization: A’s never makes B’s a 409)',
  },
  'GET /v1/canned-responses': { kind: 'list', query: { q: 'isolated' } },
  'GET /v1/canned-responses/{cannedResponseID}': {
    kind: 'id',
    path: { cannedResponseID: 'cannedResponse' },
    probe: ['GET /v1/canned-responses/{cannedResponse}'],
  },
  'PATCH /v1/canned-responses/{cannedResponseID}': {
    kind: 'id',
    path: { cannedResponseID: 'cannedResponse' },
    body: { body: 'taken over' },
    probe: ['GET /v1/canned-responses/{cannedResponse}'],
  },
  'DELETE /v1/canned-responses/{cannedResponseID}': {
    kind: 'id',
    path: { cannedResponseID: 'cannedResponse' },
    probe: ['GET /v1/canned-responses/{cannedResponse}'],
  },
  'POST /v1/automations': {
    kind: 'no tenant data',
    why: 'creates a rule of the caller’s organization; A’s labels, lists, stages, members and channels named in it are refused as unknown ones (automations.test.ts)',
  },
  'GET /v1/automations': { kind: 'list' },
  'GET /v1/automations/{automationID}': { kind: 'id', path: { automationID: 'automation' }, probe: ['GET /v1/automations/{automation}'] },
  'PATCH /v1/automations/{automationID}': {
    kind: 'id',
    path: { automationID: 'automation' },
    body: { enabled: false },
    probe: ['GET /v1/automations/{automation}'],
  },
  'DELETE /v1/automations/{automationID}': {
    kind: 'id',
    path: { automationID: 'automation' },
    probe: ['GET /v1/automations/{automation}'],
  },
  'GET /v1/automations/{automationID}/runs': {
    kind: 'id',
    path: { automationID: 'automation' },
    probe: ['GET /v1/automations/{automation}/runs'],
  },
  // B's own rule dry-run on A's conversation is refused naming conversation_id (automations.test.ts).
  'POST /v1/automations/{automationID}/dry-run': {
    kind: 'id',
    path: { automationID: 'automation' },
    body: { conversation_id: '{{conversation}}' },
    probe: ['GET /v1/automations/{automation}'],
  },
  // B's own response rendered into A's conversation is refused (canned-responses.test.ts); A's response is unknown to B.
  'POST /v1/canned-responses/{cannedResponseID}/render': {
    kind: 'id',
    path: { cannedResponseID: 'cannedResponse' },
    body: { conversation_id: '{{conversation}}' },
    probe: ['GET /v1/canned-responses/{cannedResponse}'],
  },
  'POST /v1/bots': {
    kind: 'no tenant data',
    why: 'creates a bot of the caller’s organization (A’s channels are refused as unknown: bots.test.ts)',
  },
  'GET /v1/bots': { kind: 'list' },
  'GET /v1/bots/{botID}': { kind: 'id', path: { botID: 'bot' }, probe: ['GET /v1/bots/{bot}'] },
  'PATCH /v1/bots/{botID}': {
    kind: 'id',
    path: { botID: 'bot' },
    body: { enabled: true, name: 'taken over' },
    probe: ['GET /v1/bots/{bot}'],
  },
  'DELETE /v1/bots/{botID}': { kind: 'id', path: { botID: 'bot' }, probe: ['GET /v1/bots/{bot}'] },
  'GET /v1/conversations/{conversationID}/owner': {
    kind: 'id',
    path: { conversationID: 'conversation' },
    probe: ['GET /v1/conversations/{conversation}/owner'],
  },
  'POST /v1/conversations/{conversationID}/handoff': {
    kind: 'id',
    path: { conversationID: 'conversation' },
    body: { to: 'bot', bot_id: '{{bot}}' },
    probe: ['GET /v1/conversations/{conversation}/owner', 'GET /v1/conversations/{conversation}'],
  },
  'POST /v1/companies': {
    kind: 'no tenant data',
    why: 'creates a company of the caller’s organization (a domain is unique per organization: A’s never makes B’s a 409, crm-companies.test.ts)',
  },
  'POST /v1/teams': {
    kind: 'no tenant data',
    why: 'creates a team of the caller’s organization (a name is unique per organization: A’s never makes B’s a 409); A’s members are refused as unknown ones (teams.test.ts)',
  },
  'GET /v1/teams': { kind: 'list' },
  'GET /v1/teams/{teamID}': { kind: 'id', path: { teamID: 'team' }, probe: ['GET /v1/teams/{team}'] },
  'PATCH /v1/teams/{teamID}': {
    kind: 'id',
    path: { teamID: 'team' },
    body: { name: 'taken over', assignment_policy: 'least_busy' },
    probe: ['GET /v1/teams/{team}'],
  },
  'DELETE /v1/teams/{teamID}': { kind: 'id', path: { teamID: 'team' }, probe: ['GET /v1/teams/{team}'] },
  'PUT /v1/teams/{teamID}/members/{userID}': {
    kind: 'id',
    path: { teamID: 'team', userID: 'member' },
    body: { capacity: 1 },
    probe: ['GET /v1/teams/{team}'],
  },
  'DELETE /v1/teams/{teamID}/members/{userID}': {
    kind: 'id',
    path: { teamID: 'team', userID: 'member' },
    probe: ['GET /v1/teams/{team}'],
  },
  'GET /v1/me/availability': { kind: 'no tenant data', why: 'the caller’s own availability' },
  'PUT /v1/me/availability': { kind: 'no tenant data', why: 'sets the caller’s own availability' },
  'PUT /v1/members/{userID}/availability': {
    kind: 'id',
    path: { userID: 'member' },
    body: { availability: 'online' },
    probe: ['GET /v1/teams/{team}'],
  },
  'GET /v1/channels/{channelID}/assignment': {
    kind: 'id',
    path: { channelID: 'channel' },
    probe: ['GET /v1/channels/{channel}/assignment'],
  },
  'PUT /v1/channels/{channelID}/assignment': {
    kind: 'id',
    path: { channelID: 'channel' },
    body: { team_id: null },
    probe: ['GET /v1/channels/{channel}/assignment'],
  },
  'GET /v1/companies': { kind: 'list', query: { name_prefix: 'Isolated' } },
  'GET /v1/companies/{companyID}': { kind: 'id', path: { companyID: 'company' }, probe: ['GET /v1/companies/{company}'] },
  'GET /v1/companies/{companyID}/timeline': { kind: 'id', path: { companyID: 'company' }, probe: ['GET /v1/companies/{company}/timeline'] },
  'PATCH /v1/companies/{companyID}': {
    kind: 'id',
    path: { companyID: 'company' },
    body: { name: 'taken over' },
    probe: ['GET /v1/companies/{company}'],
  },
  'DELETE /v1/companies/{companyID}': { kind: 'id', path: { companyID: 'company' }, probe: ['GET /v1/companies/{company}'] },
  'POST /v1/pipelines': { kind: 'no tenant data', why: 'creates a pipeline of the caller’s organization' },
  'GET /v1/pipelines': { kind: 'list' },
  'GET /v1/pipelines/{pipelineID}': { kind: 'id', path: { pipelineID: 'pipeline' }, probe: ['GET /v1/pipelines/{pipeline}'] },
  'PATCH /v1/pipelines/{pipelineID}': {
    kind: 'id',
    path: { pipelineID: 'pipeline' },
    body: { name: 'taken over', is_default: true },
    probe: ['GET /v1/pipelines/{pipeline}'],
  },
  'DELETE /v1/pipelines/{pipelineID}': {
    kind: 'id',
    path: { pipelineID: 'pipeline' },
    probe: ['GET /v1/pipelines/{pipeline}', 'GET /v1/deals/{deal}'],
  },
  'POST /v1/pipelines/{pipelineID}/stages': {
    kind: 'id',
    path: { pipelineID: 'pipeline' },
    body: { name: 'planted', probability: 5 },
    probe: ['GET /v1/pipelines/{pipeline}'],
  },
  'PATCH /v1/pipelines/{pipelineID}/stages/{stageID}': {
    kind: 'id',
    path: { pipelineID: 'pipeline', stageID: 'stage' },
    body: { name: 'taken over', position: 0 },
    probe: ['GET /v1/pipelines/{pipeline}'],
  },
  'DELETE /v1/pipelines/{pipelineID}/stages/{stageID}': {
    kind: 'id',
    path: { pipelineID: 'pipeline', stageID: 'stage' },
    probe: ['GET /v1/pipelines/{pipeline}', 'GET /v1/deals/{deal}'],
  },
  'GET /v1/pipelines/{pipelineID}/board': { kind: 'id', path: { pipelineID: 'pipeline' }, probe: ['GET /v1/pipelines/{pipeline}/board'] },
  'GET /v1/pipelines/{pipelineID}/stages/{stageID}/deals': {
    kind: 'id',
    path: { pipelineID: 'pipeline', stageID: 'stage' },
    probe: ['GET /v1/pipelines/{pipeline}/board'],
  },
  // B's deal naming A's stage (the first reference a deal's write checks) is refused as for an unknown one;
  // A's contact, company, owner and conversation likewise (crm-deals.test.ts).
  'POST /v1/deals': {
    kind: 'id',
    body: { name: 'planted', stage_id: '{{stage}}', company_id: '{{company}}', contact_ids: ['{{contact}}'] },
    probe: ['GET /v1/pipelines/{pipeline}/board'],
  },
  'GET /v1/deals': { kind: 'list', query: { pipeline_id: '{{pipeline}}' } },
  'GET /v1/deals/{dealID}': { kind: 'id', path: { dealID: 'deal' }, probe: ['GET /v1/deals/{deal}'] },
  'PATCH /v1/deals/{dealID}': {
    kind: 'id',
    path: { dealID: 'deal' },
    body: { name: 'taken over', amount: 1, currency: 'EUR' },
    probe: ['GET /v1/deals/{deal}', 'GET /v1/deals/{deal}/stage-history'],
  },
  'DELETE /v1/deals/{dealID}': { kind: 'id', path: { dealID: 'deal' }, probe: ['GET /v1/deals/{deal}'] },
  'GET /v1/deals/{dealID}/stage-history': { kind: 'id', path: { dealID: 'deal' }, probe: ['GET /v1/deals/{deal}/stage-history'] },
  // B's order naming A's contact is refused as for an unknown one (crm-orders.test.ts).
  'POST /v1/orders': {
    kind: 'id',
    body: { currency: 'EUR', items: [{ product_retailer_id: 'planted', quantity: 1, unit_amount: 1 }], contact_id: '{{contact}}' },
    probe: ['GET /v1/orders/{order}'],
  },
  'GET /v1/orders': { kind: 'list', query: { contact_id: '{{contact}}' } },
  'GET /v1/orders/{orderID}': { kind: 'id', path: { orderID: 'order' }, probe: ['GET /v1/orders/{order}'] },
  'PATCH /v1/orders/{orderID}': {
    kind: 'id',
    path: { orderID: 'order' },
    body: { status: 'cancelled', payment_status: 'paid' },
    probe: ['GET /v1/orders/{order}'],
  },
  'GET /v1/deals/{dealID}/timeline': { kind: 'id', path: { dealID: 'deal' }, probe: ['GET /v1/deals/{deal}/timeline'] },
  // B's task, link or comment naming A's records is refused as for unknown ones (crm-tasks, crm-relationships, crm-comments tests).
  'POST /v1/tasks': {
    kind: 'id',
    body: {
      title: 'planted',
      targets: [
        { kind: 'deal', id: '{{deal}}' },
        { kind: 'contact', id: '{{contact}}' },
      ],
    },
    probe: ['GET /v1/tasks?record=deal:{deal}'],
  },
  'GET /v1/tasks': { kind: 'list', query: { record: 'deal:{{deal}}' } },
  // A's company and contact by their words: B's search never finds them.
  'GET /v1/search': { kind: 'list', query: { q: 'isolated' } },
  'GET /v1/tasks/{taskID}': { kind: 'id', path: { taskID: 'task' }, probe: ['GET /v1/tasks/{task}'] },
  'PATCH /v1/tasks/{taskID}': {
    kind: 'id',
    path: { taskID: 'task' },
    body: { title: 'taken over', due_at: '2030-01-01T00:00:00Z' },
    probe: ['GET /v1/tasks/{task}'],
  },
  'DELETE /v1/tasks/{taskID}': { kind: 'id', path: { taskID: 'task' }, probe: ['GET /v1/tasks/{task}'] },
  'POST /v1/tasks/{taskID}/complete': { kind: 'id', path: { taskID: 'task' }, probe: ['GET /v1/tasks/{task}'] },
  'POST /v1/tasks/{taskID}/reopen': { kind: 'id', path: { taskID: 'task' }, probe: ['GET /v1/tasks/{task}'] },
  'POST /v1/relationship-labels': {
    kind: 'no tenant data',
    why: 'creates a label of the caller’s organization (names are unique per organization: crm-relationships.test.ts)',
  },
  'GET /v1/relationship-labels': { kind: 'list' },
  'GET /v1/relationship-labels/{labelID}': { kind: 'id', path: { labelID: 'label' }, probe: ['GET /v1/relationship-labels/{label}'] },
  'PATCH /v1/relationship-labels/{labelID}': {
    kind: 'id',
    path: { labelID: 'label' },
    body: { name: 'taken over' },
    probe: ['GET /v1/relationship-labels/{label}'],
  },
  'DELETE /v1/relationship-labels/{labelID}': {
    kind: 'id',
    path: { labelID: 'label' },
    probe: ['GET /v1/relationship-labels/{label}', 'GET /v1/relationships?record=contact:{contact}'],
  },
  'POST /v1/relationships': {
    kind: 'id',
    body: { label_id: '{{label}}', from_id: '{{contact}}', to_id: '{{company}}' },
    probe: ['GET /v1/relationships?record=contact:{contact}'],
  },
  'GET /v1/relationships': { kind: 'list', query: { record: 'contact:{{contact}}' } },
  'GET /v1/relationships/{relationshipID}': {
    kind: 'id',
    path: { relationshipID: 'relationship' },
    probe: ['GET /v1/relationships/{relationship}'],
  },
  'DELETE /v1/relationships/{relationshipID}': {
    kind: 'id',
    path: { relationshipID: 'relationship' },
    probe: ['GET /v1/relationships/{relationship}'],
  },
  'POST /v1/comments': {
    kind: 'id',
    body: { record: { kind: 'deal', id: '{{deal}}' }, body: 'planted' },
    probe: ['GET /v1/comments?record=deal:{deal}'],
  },
  'GET /v1/comments': { kind: 'list', query: { record: 'deal:{{deal}}' } },
  'GET /v1/comments/{commentID}': { kind: 'id', path: { commentID: 'comment' }, probe: ['GET /v1/comments/{comment}'] },
  'PATCH /v1/comments/{commentID}': {
    kind: 'id',
    path: { commentID: 'comment' },
    body: { body: 'taken over' },
    probe: ['GET /v1/comments/{comment}'],
  },
  'DELETE /v1/comments/{commentID}': { kind: 'id', path: { commentID: 'comment' }, probe: ['GET /v1/comments/{comment}'] },
  'POST /v1/lists': { kind: 'no tenant data', why: 'creates a list of the caller’s organization (a name is unique per organization)' },
  'GET /v1/lists': { kind: 'list', query: { name_prefix: 'Isolated' } },
  'GET /v1/lists/{listID}': { kind: 'id', path: { listID: 'list' }, probe: ['GET /v1/lists/{list}'] },
  'PATCH /v1/lists/{listID}': { kind: 'id', path: { listID: 'list' }, body: { name: 'taken over' }, probe: ['GET /v1/lists/{list}'] },
  'DELETE /v1/lists/{listID}': { kind: 'id', path: { listID: 'list' }, probe: ['GET /v1/lists/{list}'] },
  // B's own list naming A's contact is refused as for an unknown id (crm-lists.test.ts).
  'POST /v1/lists/{listID}/entries': {
    kind: 'id',
    path: { listID: 'list' },
    body: { record_ids: ['{{contact}}'] },
    probe: ['GET /v1/lists/{list}/entries'],
  },
  'GET /v1/lists/{listID}/entries': { kind: 'id', path: { listID: 'list' }, probe: ['GET /v1/lists/{list}/entries'] },
  'DELETE /v1/lists/{listID}/entries/{recordID}': {
    kind: 'id',
    path: { listID: 'list', recordID: 'contact' },
    probe: ['GET /v1/lists/{list}/entries'],
  },
  'POST /v1/segments': {
    kind: 'no tenant data',
    why: 'saves a filter of the caller’s organization; one naming A’s list matches none of A’s contacts (the preview row, crm-segments.test.ts)',
  },
  'GET /v1/segments': { kind: 'list', query: { name_prefix: 'Isolated' } },
  // A filter naming A's list, tag and contacts' names finds nothing of A's, answered as for an unknown list.
  'POST /v1/segments/preview': {
    kind: 'id',
    body: {
      filter: {
        or: [
          { field: 'lists', op: 'in', value: '{{list}}' },
          { field: 'tags', op: 'has', value: 'isolated' },
          { field: 'name', op: 'starts_with', value: 'Isolated' },
        ],
      },
    },
    probe: ['GET /v1/lists/{list}/entries'],
  },
  'GET /v1/segments/{segmentID}': { kind: 'id', path: { segmentID: 'segment' }, probe: ['GET /v1/segments/{segment}'] },
  'PATCH /v1/segments/{segmentID}': {
    kind: 'id',
    path: { segmentID: 'segment' },
    body: { name: 'taken over', filter: { and: [{ field: 'name', op: 'exists', value: false }] } },
    probe: ['GET /v1/segments/{segment}'],
  },
  'DELETE /v1/segments/{segmentID}': { kind: 'id', path: { segmentID: 'segment' }, probe: ['GET /v1/segments/{segment}'] },
  // Probed by the preview: the count answers its time too.
  'GET /v1/segments/{segmentID}/count': { kind: 'id', path: { segmentID: 'segment' }, probe: ['GET /v1/segments/{segment}/preview'] },
  'GET /v1/segments/{segmentID}/preview': { kind: 'id', path: { segmentID: 'segment' }, probe: ['GET /v1/segments/{segment}/preview'] },
  'GET /v1/segments/{segmentID}/contacts': { kind: 'id', path: { segmentID: 'segment' }, probe: ['GET /v1/segments/{segment}/contacts'] },
  // Naming A's channel and segment: refused as an unknown channel.
  'POST /v1/broadcasts': {
    kind: 'id',
    body: {
      name: 'taken over',
      channel_id: '{{official}}',
      template: { name: 'isolated_broadcast', language: 'en_US', variables: ['x'] },
      audience: { segment_id: '{{segment}}' },
    },
    probe: ['GET /v1/broadcasts'],
  },
  'GET /v1/broadcasts': { kind: 'list' },
  'GET /v1/broadcasts/{broadcastID}': { kind: 'id', path: { broadcastID: 'broadcast' }, probe: ['GET /v1/broadcasts/{broadcast}'] },
  'PATCH /v1/broadcasts/{broadcastID}': {
    kind: 'id',
    path: { broadcastID: 'broadcast' },
    body: { name: 'taken over' },
    probe: ['GET /v1/broadcasts/{broadcast}'],
  },
  'DELETE /v1/broadcasts/{broadcastID}': { kind: 'id', path: { broadcastID: 'broadcast' }, probe: ['GET /v1/broadcasts/{broadcast}'] },
  'GET /v1/broadcasts/{broadcastID}/audience-count': {
    kind: 'id',
    path: { broadcastID: 'broadcast' },
    probe: ['GET /v1/broadcasts/{broadcast}'],
  },
  'POST /v1/broadcasts/{broadcastID}/schedule': {
    kind: 'id',
    path: { broadcastID: 'broadcast' },
    probe: ['GET /v1/broadcasts/{broadcast}'],
  },
  'POST /v1/broadcasts/{broadcastID}/cancel': { kind: 'id', path: { broadcastID: 'broadcast' }, probe: ['GET /v1/broadcasts/{broadcast}'] },
  'POST /v1/broadcasts/{broadcastID}/pause': { kind: 'id', path: { broadcastID: 'broadcast' }, probe: ['GET /v1/broadcasts/{broadcast}'] },
  'POST /v1/broadcasts/{broadcastID}/resume': { kind: 'id', path: { broadcastID: 'broadcast' }, probe: ['GET /v1/broadcasts/{broadcast}'] },
  'POST /v1/broadcasts/{broadcastID}/stop': { kind: 'id', path: { broadcastID: 'broadcast' }, probe: ['GET /v1/broadcasts/{broadcast}'] },
  'POST /v1/broadcasts/{broadcastID}/retry-failed': {
    kind: 'id',
    path: { broadcastID: 'broadcast' },
    probe: ['GET /v1/broadcasts/{broadcast}'],
  },
  'GET /v1/broadcasts/{broadcastID}/recipients': {
    kind: 'id',
    path: { broadcastID: 'broadcast' },
    probe: ['GET /v1/broadcasts/{broadcast}/recipients'],
  },
  'GET /v1/broadcasts/{broadcastID}/report': {
    kind: 'id',
    path: { broadcastID: 'broadcast' },
    probe: ['GET /v1/broadcasts/{broadcast}/report'],
  },
  'POST /v1/messages': {
    kind: 'id',
    body: { channel_id: '{{channel}}', to: '+4915112340001', type: 'text', content: { body: 'spoofed' } },
    probe: ['GET /v1/messages?channel_id={channel}'],
  },
  'GET /v1/messages': { kind: 'list', query: { channel_id: '{{channel}}' } },
  'GET /v1/messages/{messageID}': { kind: 'id', path: { messageID: 'message' }, probe: ['GET /v1/messages/{message}'] },
  'GET /v1/messages/{messageID}/status': { kind: 'id', path: { messageID: 'message' }, probe: ['GET /v1/messages/{message}'] },
  'GET /v1/messages/{messageID}/media': { kind: 'id', path: { messageID: 'mediaMessage' }, probe: ['GET /v1/messages/{mediaMessage}'] },
  'POST /v1/messages/{messageID}/typing': { kind: 'id', path: { messageID: 'mediaMessage' }, probe: ['GET /v1/messages/{mediaMessage}'] },
  'GET /v1/conversations': { kind: 'list', query: { contact_id: '{{contact}}' } },
  'GET /v1/conversations/{conversationID}': {
    kind: 'id',
    path: { conversationID: 'conversation' },
    probe: ['GET /v1/conversations/{conversation}'],
  },
  'PATCH /v1/conversations/{conversationID}': {
    kind: 'id',
    path: { conversationID: 'conversation' },
    body: { status: 'closed' },
    probe: ['GET /v1/conversations/{conversation}'],
  },
  // A's conversation has a customer message nobody read: B marking it read would show in its unread_count.
  'POST /v1/conversations/{conversationID}/read': {
    kind: 'id',
    path: { conversationID: 'conversation' },
    probe: ['GET /v1/conversations/{conversation}'],
  },
  'GET /v1/conversations/{conversationID}/messages': {
    kind: 'id',
    path: { conversationID: 'conversation' },
    probe: ['GET /v1/conversations/{conversation}/messages'],
  },
  'GET /v1/conversations/{conversationID}/csat-surveys': {
    kind: 'id',
    path: { conversationID: 'conversation' },
    probe: ['GET /v1/conversations/{conversation}/csat-surveys'],
  },
  'GET /v1/csat-responses': { kind: 'list' },
  'POST /v1/conversation-labels': {
    kind: 'no tenant data',
    why: 'creates a conversation label of the caller’s organization (a name is unique per organization: A’s never makes B’s a 409)',
  },
  'GET /v1/conversation-labels': { kind: 'list' },
  'GET /v1/conversation-labels/{conversationLabelID}': {
    kind: 'id',
    path: { conversationLabelID: 'conversationLabel' },
    probe: ['GET /v1/conversation-labels/{conversationLabel}'],
  },
  'PATCH /v1/conversation-labels/{conversationLabelID}': {
    kind: 'id',
    path: { conversationLabelID: 'conversationLabel' },
    body: { name: 'taken over' },
    probe: ['GET /v1/conversation-labels/{conversationLabel}'],
  },
  'DELETE /v1/conversation-labels/{conversationLabelID}': {
    kind: 'id',
    path: { conversationLabelID: 'conversationLabel' },
    probe: ['GET /v1/conversation-labels/{conversationLabel}', 'GET /v1/conversations/{conversation}'],
  },
  'POST /v1/conversations/{conversationID}/labels': {
    kind: 'id',
    path: { conversationID: 'conversation' },
    body: { label_ids: ['{{conversationLabel}}'] },
    probe: ['GET /v1/conversations/{conversation}'],
  },
  'DELETE /v1/conversations/{conversationID}/labels/{conversationLabelID}': {
    kind: 'id',
    path: { conversationID: 'conversation', conversationLabelID: 'conversationLabel' },
    probe: ['GET /v1/conversations/{conversation}'],
  },
  'GET /v1/conversations/{conversationID}/notes': {
    kind: 'id',
    path: { conversationID: 'conversation' },
    probe: ['GET /v1/conversations/{conversation}/notes'],
  },
  'POST /v1/conversations/{conversationID}/notes': {
    kind: 'id',
    path: { conversationID: 'conversation' },
    body: { body: 'planted' },
    probe: ['GET /v1/conversations/{conversation}/notes'],
  },
  'DELETE /v1/conversations/{conversationID}/notes/{conversationNoteID}': {
    kind: 'id',
    path: { conversationID: 'conversation', conversationNoteID: 'conversationNote' },
    probe: ['GET /v1/conversations/{conversation}/notes'],
  },
  'POST /v1/conversations/bulk': {
    kind: 'no tenant data',
    why: 'answers each id the caller sent beside its result: B naming A’s conversation gets not_found, as for an unknown id, and A’s is unchanged (inbox-workflow.test.ts)',
  },
  'GET /v1/settings/developer/webhooks': { kind: 'list' },
  'POST /v1/settings/developer/webhooks/endpoints': { kind: 'no tenant data', why: 'creates an endpoint of the caller’s organization' },
  'PATCH /v1/settings/developer/webhooks/endpoints/{endpointID}': {
    kind: 'id',
    path: { endpointID: 'endpoint' },
    body: { description: 'taken over' },
    probe: ['GET /v1/settings/developer/webhooks', 'GET /v1/settings/developer/webhooks/endpoints/{endpoint}/secret'],
  },
  'DELETE /v1/settings/developer/webhooks/endpoints/{endpointID}': {
    kind: 'id',
    path: { endpointID: 'endpoint' },
    probe: ['GET /v1/settings/developer/webhooks'],
  },
  'POST /v1/settings/developer/webhooks/endpoints/{endpointID}/rotate-secret': {
    kind: 'id',
    path: { endpointID: 'endpoint' },
    probe: ['GET /v1/settings/developer/webhooks/endpoints/{endpoint}/secret'],
  },
  'GET /v1/settings/developer/webhooks/endpoints/{endpointID}/secret': {
    kind: 'id',
    path: { endpointID: 'endpoint' },
    probe: ['GET /v1/settings/developer/webhooks'],
  },
  'POST /v1/settings/developer/webhooks/endpoints/{endpointID}/test': {
    kind: 'id',
    path: { endpointID: 'endpoint' },
    probe: ['GET /v1/settings/developer/webhooks/deliveries'],
  },
  'GET /v1/settings/developer/webhooks/deliveries': { kind: 'list', query: { endpoint_id: '{{endpoint}}' } },
  'POST /v1/settings/developer/webhooks/deliveries/{messageID}/retry': {
    kind: 'id',
    path: { messageID: 'delivery' },
    probe: ['GET /v1/settings/developer/webhooks/deliveries'],
  },
  'GET /v1/events': { kind: 'list' },
  'GET /v1/events/stream': { kind: 'stream' },
  'GET /v1/oauth/authorize': {
    kind: 'no tenant data',
    why: 'public: a client_id is public by design (RFC 6749), and the request it stores is no one’s until a user decides it',
  },
  'GET /v1/oauth/authorization-requests/{requestID}': {
    kind: 'id',
    path: { requestID: 'authorizationRequest' },
    probe: ['GET /v1/oauth/authorization-requests/{authorizationRequest}'],
  },
  'POST /v1/oauth/authorization-requests/{requestID}/approve': {
    kind: 'id',
    path: { requestID: 'authorizationRequest' },
    body: { organization_ids: ['0196b1f2-0a00-7000-8000-0000000000a1'] },
    probe: ['GET /v1/oauth/authorization-requests/{authorizationRequest}'],
  },
  'POST /v1/oauth/authorization-requests/{requestID}/deny': {
    kind: 'id',
    path: { requestID: 'authorizationRequest' },
    probe: ['GET /v1/oauth/authorization-requests/{authorizationRequest}'],
  },
  'POST /v1/oauth/device': {
    kind: 'no tenant data',
    why: 'public: a client_id is public by design (RFC 8628), and the codes it stores are no one’s until a user decides them',
  },
  'POST /v1/oauth/device/lookup': {
    kind: 'id',
    body: { user_code: '{{userCode}}' },
    probe: ['POST /v1/oauth/device/lookup {"user_code":"{userCode}"}'],
  },
  'POST /v1/oauth/device/approve': {
    kind: 'id',
    body: { user_code: '{{userCode}}', organization_ids: ['0196b1f2-0a00-7000-8000-0000000000a1'] },
    probe: ['POST /v1/oauth/device/lookup {"user_code":"{userCode}"}'],
  },
  'POST /v1/oauth/device/deny': {
    kind: 'id',
    body: { user_code: '{{userCode}}' },
    probe: ['POST /v1/oauth/device/lookup {"user_code":"{userCode}"}'],
  },
  'POST /v1/oauth/clients': { kind: 'no tenant data', why: 'registers a client in the caller’s organization' },
  'GET /v1/oauth/clients': { kind: 'list' },
  'GET /v1/oauth/clients/{clientID}': { kind: 'id', path: { clientID: 'oauthClient' }, probe: ['GET /v1/oauth/clients/{oauthClient}'] },
  'PATCH /v1/oauth/clients/{clientID}': {
    kind: 'id',
    path: { clientID: 'oauthClient' },
    body: { name: 'taken over', scopes: ['messages:send'] },
    probe: ['GET /v1/oauth/clients/{oauthClient}'],
  },
  'POST /v1/oauth/clients/{clientID}/secret': {
    kind: 'id',
    path: { clientID: 'oauthClient' },
    probe: ['GET /v1/oauth/clients/{oauthClient}'],
  },
  'DELETE /v1/oauth/clients/{clientID}': { kind: 'id', path: { clientID: 'oauthClient' }, probe: ['GET /v1/oauth/clients/{oauthClient}'] },
  'GET /v1/auth/authorizations': { kind: 'list' },
  'DELETE /v1/auth/authorizations/{grantID}': { kind: 'id', path: { grantID: 'grant' }, probe: ['GET /v1/auth/authorizations'] },
  'POST /v1/organizations': { kind: 'no tenant data', why: 'creates an organization the caller owns' },
  'GET /v1/organizations': { kind: 'list' },
  'GET /v1/organizations/{organizationID}': {
    kind: 'id',
    path: { organizationID: 'organization' },
    probe: ['GET /v1/organizations/{organization}'],
  },
  'PATCH /v1/organizations/{organizationID}': {
    kind: 'id',
    path: { organizationID: 'organization' },
    body: { name: 'taken over' },
    probe: ['GET /v1/organizations/{organization}'],
  },
  'POST /v1/organizations/{organizationID}/leave': {
    kind: 'id',
    path: { organizationID: 'organization' },
    probe: ['GET /v1/organizations/{organization}/members'],
  },
  'GET /v1/organizations/{organizationID}/members': {
    kind: 'id',
    path: { organizationID: 'organization' },
    probe: ['GET /v1/organizations/{organization}/members'],
  },
  'PATCH /v1/organizations/{organizationID}/members/{userID}': {
    kind: 'id',
    path: { organizationID: 'organization', userID: 'member' },
    body: { role: 'admin' },
    probe: ['GET /v1/organizations/{organization}/members'],
  },
  'DELETE /v1/organizations/{organizationID}/members/{userID}': {
    kind: 'id',
    path: { organizationID: 'organization', userID: 'member' },
    probe: ['GET /v1/organizations/{organization}/members'],
  },
  'GET /v1/organizations/{organizationID}/invitations': {
    kind: 'id',
    path: { organizationID: 'organization' },
    probe: ['GET /v1/organizations/{organization}/invitations'],
  },
  'POST /v1/organizations/{organizationID}/invitations': {
    kind: 'id',
    path: { organizationID: 'organization' },
    body: { email: 'intruder@example.com', role: 'owner' },
    probe: ['GET /v1/organizations/{organization}/invitations'],
  },
  'DELETE /v1/organizations/{organizationID}/invitations/{invitationID}': {
    kind: 'id',
    path: { organizationID: 'organization', invitationID: 'invitation' },
    probe: ['GET /v1/organizations/{organization}/invitations'],
  },
  'POST /v1/invitations/lookup': {
    kind: 'no tenant data',
    why: 'public: the one-time token is the credential, and an unknown one answers 404 whoever asks',
  },
  'POST /v1/invitations/accept': {
    kind: 'no tenant data',
    why: 'public: the one-time token is the credential; a signed-in caller joins only with the email invited',
  },
  'GET /.well-known/oauth-authorization-server': { kind: 'no tenant data', why: 'public RFC 8414 metadata of the installation' },
  'POST /v1/oauth/token': {
    kind: 'no tenant data',
    why: 'public: the code, device code or refresh token is the credential, bound to its client (RFC 6749)',
  },
  'POST /v1/oauth/introspect': {
    kind: 'id',
    body: { token: '{{accessToken}}' },
    probe: ['POST /v1/oauth/introspect {"token":"{accessToken}"}'],
  },
  'POST /v1/oauth/revoke': {
    kind: 'no tenant data',
    why: "public: the token is the credential, and whoever holds it may revoke it; client credentials, when sent, reach only that client's tokens (oauth-tokens.test.ts)",
  },
  'PATCH /v1/auth/account': { kind: 'no tenant data', why: "changes the caller's own account" },
  'POST /v1/auth/password': { kind: 'no tenant data', why: "changes the caller's own password" },
  'GET /v1/auth/signup': { kind: 'no tenant data', why: 'public: whether sign-up is open' },
  'POST /v1/auth/signup': { kind: 'no tenant data', why: 'public: makes a new user and a new organization of their own' },
  'POST /v1/auth/password-reset': {
    kind: 'no tenant data',
    why: 'public: the token names the one account it resets (an unknown one is 404)',
  },
  'POST /v1/organizations/{organizationID}/members/{userID}/password-reset': {
    kind: 'id',
    path: { organizationID: 'organization', userID: 'member' },
    probe: ['GET /v1/auth/sessions'],
  },
  'GET /v1/providers/chatapp_official/webhook': { kind: 'no tenant data', why: 'installation-wide challenge, no id' },
  'POST /v1/providers/chatapp_official/webhook': { kind: 'no tenant data', why: 'installation-wide, signed with the installation secret' },
  'GET /v1/providers/chatapp_official/webhook/{channelID}': { kind: 'public-id', path: { channelID: 'official' } },
  'POST /v1/providers/chatapp_official/webhook/{channelID}': {
    kind: 'public-id',
    path: { channelID: 'official' },
    body: { object: 'whatsapp_business_account', entry: [] },
  },
  'POST /v1/providers/chatapp_unofficial/webhook/{channelID}': {
    kind: 'public-id',
    path: { channelID: 'channel' },
    body: { event: 'message', payload: {} },
  },
};

let server: TestServer;
let ids: Ids;
let unknown: Ids;
let other: Awaited<ReturnType<typeof createOtherOrganization>>;
let otherCookie: string;
let doc: { paths: Record<string, Record<string, unknown>> };
/** Every id of A's, which no answer to B may contain. */
let secretsOfA: string[];

let closedPort: number;
let guard: LoopbackGuard;
before(async () => {
  closedPort = await freePort();
  guard = guardLoopback(closedPort);
  server = await startTestServer({
    worker: true,
    env: { SANDBOX_STATUS_DELAY_MS: '0', ALLOW_PRIVATE_NETWORK_TARGETS: 'true', OFFICIAL_API_BASE: `http://127.0.0.1:${closedPort}` },
  });
  const key = server.apiKey;
  const gateway = await pairedGatewayChannel(server, 'Isolated gateway');
  const official = await officialChannel(server, 'Isolated official');
  const group = await request(server, 'POST', `/v1/channels/${gateway.id}/groups`, {
    key,
    body: { subject: 'Isolated group', participants: ['+4915112340101'] },
  });
  assert.equal(group.status, 201, group.text);
  const chatLabel = await request(server, 'POST', `/v1/channels/${gateway.id}/labels`, { key, body: { name: 'Isolated label' } });
  assert.equal(chatLabel.status, 201, chatLabel.text);
  const labelled = await request(server, 'POST', `/v1/channels/${gateway.id}/labels/${chatLabel.body.data.id}/chats`, {
    key,
    body: { chat: '+4915112340101' },
  });
  assert.equal(labelled.status, 200, labelled.text);
  const phone = '+4915112349876';
  const contact = await request(server, 'POST', '/v1/contacts', {
    key,
    body: { phone_number: phone, name: 'Isolated Person', email: 'isolated@example.com' },
  });
  assert.equal(contact.status, 201, contact.text);
  const contactId = contact.body.data.id as string;
  const note = await request(server, 'POST', `/v1/contacts/${contactId}/notes`, { key, body: { body: 'private note' } });
  assert.equal(note.status, 201, note.text);
  assert.ok((await request(server, 'POST', `/v1/contacts/${contactId}/tags`, { key, body: { tag: 'isolated' } })).status < 300);
  assert.ok((await request(server, 'PUT', `/v1/contacts/${contactId}/consent/all`, { key, body: { state: 'granted' } })).status < 300);
  const template = await request(server, 'POST', '/v1/templates', {
    key,
    body: {
      channel_id: official.id,
      name: 'isolated_template',
      language: 'en_US',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Hi {{1}}' }],
    },
  });
  assert.equal(template.status, 201, template.text);
  await customerWrites(server, gateway.id, phone);
  // A call that keeps ringing (nobody answers it here).
  const ringing = await request(server, 'POST', '/sandbox/call', { key, body: { channel_id: gateway.id, from: phone } });
  assert.equal(ringing.status, 202, ringing.text);
  const call = ringing.body.call_id as string;
  const callMessage = await eventually('the call recorded', async () => {
    const [row] = await queryRows<{ id: string }>(
      server.container.database.db,
      sql`select id from messages where provider_message_id = ${call}`,
    );
    return row?.id;
  });
  const mediaMessage = await customerWrites(server, gateway.id, phone, 'image', {});
  assert.equal((await settledMedia(server, mediaMessage)).status, 'stored');
  const sent = await request(server, 'POST', '/v1/messages', {
    key,
    body: { channel_id: gateway.id, to: phone, type: 'text', content: { body: 'hello' } },
  });
  assert.equal(sent.status, 201, sent.text);
  // After the send: a suppression refuses sends to the contact.
  assert.ok(
    (await request(server, 'POST', `/v1/contacts/${contactId}/suppressions`, { key, body: { channel: 'all', reason: 'isolated reason' } }))
      .status < 300,
  );
  const endpoint = await request(server, 'POST', '/v1/settings/developer/webhooks/endpoints', {
    key,
    body: { url: `http://127.0.0.1:${closedPort}/isolated` },
  });
  assert.equal(endpoint.status, 201, endpoint.text);
  const delivery = await eventually('a webhook delivery', async () => {
    const res = await request(server, 'GET', '/v1/settings/developer/webhooks/deliveries', { key });
    return (res.body.data as Array<{ message_id: string }>)[0]?.message_id;
  });
  const keys = await request(server, 'GET', '/v1/api-keys', { key });
  const cookieA = await loginCookie(server);
  const session = await request(server, 'GET', '/v1/auth/session', { cookie: cookieA });
  const message = await request(server, 'GET', `/v1/messages/${sent.body.data.id}`, { key });
  const oauthClient = await createOAuthClient(server);
  const authorizing = await request(server, 'GET', `/v1/oauth/authorize?${authorizeQuery(oauthClient)}`);
  const authorizationRequest = new URL(authorizing.headers.get('location')!).searchParams.get('request')!;
  const approved = await request(server, 'POST', `/v1/oauth/authorization-requests/${authorizationRequest}/approve`, {
    cookie: cookieA,
    body: { organization_ids: [server.organizationId] },
  });
  assert.equal(approved.status, 200, approved.text);
  server.registerSensitive('an authorization code', new URL(approved.body.data.redirect_to).searchParams.get('code') ?? undefined);
  const device = await startDeviceFlow(server, { client_id: oauthClient.clientId });
  assert.equal((await approveDevice(server, cookieA, device.user_code, [server.organizationId])).status, 200);
  const registered = await request(server, 'POST', '/v1/oauth/clients', {
    key,
    body: {
      name: 'Isolated backend',
      type: 'confidential',
      redirect_uris: ['https://isolated.example.com/cb'],
      grant_types: ['authorization_code'],
      scopes: ['channels:read'],
    },
  });
  assert.equal(registered.status, 201, registered.text);
  const grant = await createGrant(server, {
    client: oauthClient,
    userId: session.body.data.user.id,
    organizationIds: [server.organizationId],
  });
  const joining = await request(server, 'POST', `/v1/organizations/${server.organizationId}/invitations`, {
    key,
    body: { email: 'isolated-member@example.com', role: 'member' },
  });
  assert.equal(joining.status, 201, joining.text);
  const joined = await request(server, 'POST', '/v1/invitations/accept', {
    body: { token: joining.body.data.token, name: 'Isolated Member', password: 'isolated member password' },
  });
  assert.equal(joined.status, 200, joined.text);
  const pending = await request(server, 'POST', `/v1/organizations/${server.organizationId}/invitations`, {
    key,
    body: { email: 'isolated-pending@example.com', role: 'member' },
  });
  assert.equal(pending.status, 201, pending.text);
  const company = await request(server, 'POST', '/v1/companies', {
    key,
    body: { name: 'Isolated Company', domain: 'isolated-company.example' },
  });
  assert.equal(company.status, 201, company.text);
  const canned = await request(server, 'POST', '/v1/canned-responses', {
    key,
    body: { name: 'Isolated canned', shortcut: 'isolatedcanned', body: 'Isolated canned words' },
  });
  assert.equal(canned.status, 201, canned.text);
  const team = await request(server, 'POST', '/v1/teams', {
    key,
    body: { name: 'Isolated Team', assignment_policy: 'round_robin', members: [{ user_id: joined.body.data.user_id }] },
  });
  assert.equal(team.status, 201, team.text);
  const routed = await request(server, 'PUT', `/v1/channels/${gateway.id}/assignment`, { key, body: { team_id: team.body.data.id } });
  assert.equal(routed.status, 200, routed.text);
  const bot = await request(server, 'POST', '/v1/bots', {
    key,
    body: { name: 'Isolated bot', url: 'https://bot.example.com/isolated', trigger: { type: 'all' }, enabled: false },
  });
  assert.equal(bot.status, 201, bot.text);
  const pipeline = await request(server, 'POST', '/v1/pipelines', {
    key,
    body: {
      name: 'Isolated Pipeline',
      stages: [
        { name: 'Isolated stage', probability: 30 },
        { name: 'Isolated won', probability: 100, kind: 'won' },
      ],
    },
  });
  assert.equal(pipeline.status, 201, pipeline.text);
  const deal = await request(server, 'POST', '/v1/deals', {
    key,
    body: {
      name: 'Isolated Deal',
      amount: 4200,
      currency: 'EUR',
      pipeline_id: pipeline.body.data.id,
      company_id: company.body.data.id,
      contact_ids: [contactId],
      owner_user_id: session.body.data.user.id,
      conversation_id: message.body.data.conversation_id,
    },
  });
  assert.equal(deal.status, 201, deal.text);
  const order = await request(server, 'POST', '/v1/orders', {
    key,
    body: {
      currency: 'EUR',
      items: [{ product_retailer_id: 'isolated-sku', quantity: 2, unit_amount: 350 }],
      contact_id: contactId,
      conversation_id: message.body.data.conversation_id,
      note: 'Isolated order note',
    },
  });
  assert.equal(order.status, 201, order.text);
  const task = await request(server, 'POST', '/v1/tasks', {
    key,
    body: {
      title: 'Isolated Task',
      due_at: '2030-01-01T00:00:00Z',
      assignee_user_id: session.body.data.user.id,
      targets: [
        { kind: 'deal', id: deal.body.data.id },
        { kind: 'contact', id: contactId },
      ],
    },
  });
  assert.equal(task.status, 201, task.text);
  const label = await request(server, 'POST', '/v1/relationship-labels', {
    key,
    body: { name: 'Isolated label', inverse_name: 'Isolated inverse', from_kind: 'contact', to_kind: 'company' },
  });
  assert.equal(label.status, 201, label.text);
  const relationship = await request(server, 'POST', '/v1/relationships', {
    key,
    body: { label_id: label.body.data.id, from_id: contactId, to_id: company.body.data.id },
  });
  assert.equal(relationship.status, 201, relationship.text);
  const comment = await request(server, 'POST', '/v1/comments', {
    key,
    body: { record: { kind: 'deal', id: deal.body.data.id }, body: 'isolated comment' },
  });
  assert.equal(comment.status, 201, comment.text);
  const list = await request(server, 'POST', '/v1/lists', { key, body: { name: 'Isolated List', kind: 'contact' } });
  assert.equal(list.status, 201, list.text);
  const entry = await request(server, 'POST', `/v1/lists/${list.body.data.id}/entries`, { key, body: { record_ids: [contactId] } });
  assert.equal(entry.status, 200, entry.text);
  const segment = await request(server, 'POST', '/v1/segments', {
    key,
    body: { name: 'Isolated Segment', filter: { and: [{ field: 'lists', op: 'in', value: list.body.data.id }] } },
  });
  assert.equal(segment.status, 201, segment.text);
  await approvedTemplate(server, official.id, 'isolated_broadcast');
  const broadcast = await request(server, 'POST', '/v1/broadcasts', {
    key,
    body: {
      name: 'Isolated Broadcast',
      channel_id: official.id,
      template: { name: 'isolated_broadcast', language: 'en_US', variables: ['{{contact.name|there}}'] },
      audience: { segment_id: segment.body.data.id },
    },
  });
  assert.equal(broadcast.status, 201, broadcast.text);
  const tokens = await deviceFlowTokens(server, {
    clientId: oauthClient.clientId,
    cookie: cookieA,
    organizationIds: [server.organizationId],
  });
  const conversationLabel = await request(server, 'POST', '/v1/conversation-labels', {
    key,
    body: { name: 'Isolated conversation label', color: '#123456' },
  });
  assert.equal(conversationLabel.status, 201, conversationLabel.text);
  const automation = await request(server, 'POST', '/v1/automations', {
    key,
    body: {
      name: 'Isolated rule',
      enabled: false,
      trigger: { type: 'message_received' },
      conditions: [{ kind: 'labels', op: 'has_any', label_ids: [conversationLabel.body.data.id] }],
      actions: [{ type: 'add_label', label_id: conversationLabel.body.data.id }],
    },
  });
  assert.equal(automation.status, 201, automation.text);
  const conversationLabelled = await request(server, 'POST', `/v1/conversations/${message.body.data.conversation_id}/labels`, {
    key,
    body: { label_ids: [conversationLabel.body.data.id] },
  });
  assert.equal(conversationLabelled.status, 200, conversationLabelled.text);
  const conversationNote = await request(server, 'POST', `/v1/conversations/${message.body.data.conversation_id}/notes`, {
    key,
    body: { body: 'Isolated conversation note' },
  });
  assert.equal(conversationNote.status, 201, conversationNote.text);
  ids = {
    channel: gateway.id,
    group: group.body.data.id,
    chatLabel: chatLabel.body.data.id,
    official: official.id,
    contact: contactId,
    note: note.body.data.id,
    tag: 'isolated',
    template: template.body.data.id,
    message: sent.body.data.id,
    mediaMessage,
    conversation: message.body.data.conversation_id,
    conversationLabel: conversationLabel.body.data.id,
    conversationNote: conversationNote.body.data.id,
    endpoint: endpoint.body.data.id,
    delivery,
    key: (keys.body.data as Array<{ id: string }>)[0]!.id,
    session: session.body.data.session.id,
    phone,
    authorizationRequest,
    userCode: device.user_code,
    oauthClient: registered.body.data.client_id,
    grant: grant.id,
    organization: server.organizationId,
    member: joined.body.data.user_id,
    invitation: pending.body.data.id,
    accessToken: tokens.access_token,
    company: company.body.data.id,
    cannedResponse: canned.body.data.id,
    automation: automation.body.data.id,
    team: team.body.data.id,
    bot: bot.body.data.id,
    pipeline: pipeline.body.data.id,
    stage: pipeline.body.data.stages[0].id,
    deal: deal.body.data.id,
    task: task.body.data.id,
    label: label.body.data.id,
    relationship: relationship.body.data.id,
    comment: comment.body.data.id,
    order: order.body.data.id,
    list: list.body.data.id,
    segment: segment.body.data.id,
    broadcast: broadcast.body.data.id,
    call,
    callMessage,
  };
  const unknownValue = (k: string) =>
    k === 'tag'
      ? 'never-made'
      : k === 'phone'
        ? '+4915112340000'
        : k === 'userCode'
          ? 'BBBB-BBBB'
          : k === 'group'
            ? '120363999999999999@g.us'
            : randomUUID();
  unknown = Object.fromEntries(Object.entries(ids).map(([k]) => [k, unknownValue(k)])) as Ids;
  secretsOfA = Object.entries(ids)
    .filter(([k]) => k !== 'tag' && k !== 'phone' && k !== 'chatLabel')
    .map(([, v]) => v)
    .concat([
      'Isolated Person',
      'Isolated group',
      'Isolated label',
      'isolated@example.com',
      'private note',
      'isolated reason',
      '4915112349876',
      'isolated-member@example.com',
      'isolated-pending@example.com',
      'Isolated Company',
      'isolated-company.example',
      'Isolated Pipeline',
      'Isolated stage',
      'Isolated Deal',
      'Isolated Task',
      'Isolated label',
      'Isolated inverse',
      'isolated comment',
      'Isolated order note',
      'isolated-sku',
      'Isolated canned words',
      'Isolated Team',
      'Isolated conversation label',
      'Isolated conversation note',
      'Isolated List',
      'Isolated Segment',
    ]);
  other = await createOtherOrganization(server, 'intruder');
  otherCookie = await loginCookie(server, other.email, other.password);
  doc = (await request(server, 'GET', '/v1/openapi.json')).body;
});
after(async () => {
  await server?.close();
  guard?.restore();
  assert.deepEqual(guard?.violations ?? [], [], 'every connection stayed on loopback');
});

function fill(template: string, values: Ids, braces: 'single' | 'double'): string {
  const pattern = braces === 'double' ? /\{\{(\w+)\}\}/g : /\{(\w+)\}/g;
  return template.replace(pattern, (_, name: string) => encodeURIComponent(values[name as IdName] ?? _));
}

function fillValue(value: unknown, values: Ids): unknown {
  if (typeof value === 'string') return fill(value, values, 'double');
  if (Array.isArray(value)) return value.map((v) => fillValue(v, values));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillValue(v, values)]));
  return value;
}

function urlOf(operation: string, row: { path?: Record<string, string>; query?: Record<string, string> }, values: Ids): string {
  let path = operation.split(' ')[1]!;
  for (const [param, id] of Object.entries(row.path ?? {})) {
    path = path.replace(`{${param}}`, encodeURIComponent(id.startsWith('=') ? id.slice(1) : values[id as IdName]));
  }
  const query = Object.entries(row.query ?? {}).map(([k, v]) => `${k}=${fill(v, values, 'double')}`);
  return query.length ? `${path}?${query.join('&')}` : path;
}

type As = { key?: string; cookie?: string };

async function call(
  operation: string,
  url: string,
  as: As,
  body: unknown,
  form?: Parameters<typeof multipartBody>[0],
): Promise<ApiResponse> {
  if (form) return request(server, operation.split(' ')[0]!, url, { ...as, ...(await multipartBody(form)) });
  return request(server, operation.split(' ')[0]!, url, { ...as, body: body === undefined ? undefined : body });
}

/** An answer with the ids and request ids taken out, for comparing two answers. */
function normalized(res: ApiResponse, values: Ids): { status: number; body: string } {
  let text = res.text;
  // A label's id is a small number ("1"): too short to be told apart from any other digits, so left as it is.
  for (const v of Object.values(values)) if (v.length > 3) text = text.replaceAll(v, '<id>').replaceAll(encodeURIComponent(v), '<id>');
  text = text.replace(/"request_id":"[^"]*"/g, '"request_id":"<rid>"').replace(/quote request id [0-9a-f-]+/g, 'quote request id <rid>');
  return { status: res.status, body: text };
}

async function snapshot(probes: string[]): Promise<string[]> {
  return Promise.all(
    probes.map(async (probe) => {
      const [method, path, body] = probe.split(' ') as [string, string, string | undefined];
      const as = probe.includes('/auth/') || probe.includes('/oauth/') ? { cookie: await ownCookie() } : { key: server.apiKey };
      const res = await request(server, method, fill(path, ids, 'single'), {
        ...as,
        body: body === undefined ? undefined : JSON.parse(fill(body, ids, 'single')),
      });
      return `${res.status} ${JSON.stringify(stable(res.body, path))}`;
    }),
  );
}

/** What the worker changes by itself (health checks, key and session use, delivery attempts, message statuses) is left out. */
const VOLATILE = new Set(['health', 'last_used_at', 'last_seen_at', 'last_checked_at']);
const MESSAGE_PROGRESS = new Set(['status', 'updated_at', 'sent_at', 'delivered_at', 'read_at', 'failed_at', 'status_history', 'error']);
const DELIVERY_IDENTITY = new Set(['id', 'message_id', 'endpoint_id', 'event_type', 'test', 'created_at']);

function stable(value: unknown, path: string): unknown {
  const drop = (key: string) =>
    VOLATILE.has(key) ||
    (path.startsWith('/v1/messages') && MESSAGE_PROGRESS.has(key)) ||
    (path.includes('/deliveries') && !DELIVERY_IDENTITY.has(key) && key !== 'data' && key !== 'meta');
  const walk = (v: unknown, depth: number): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    if (!v || typeof v !== 'object') return v;
    // A probe answered with a problem (a decided OAuth request answers 409) differs only by its request id.
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => !(k === 'request_id' || (depth > 0 && drop(k))))
        .map(([k, x]) => [k, walk(x, depth + 1)]),
    );
  };
  return walk(value, 0);
}

let cookieOfA: string | undefined;
async function ownCookie(): Promise<string> {
  cookieOfA ??= await loginCookie(server);
  return cookieOfA;
}

test('the table has exactly one row per operation of the OpenAPI document', () => {
  const documented = new Set<string>();
  for (const [path, ops] of Object.entries(doc.paths))
    for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${path}`);
  const missing = [...documented].filter((op) => !(op in ROWS));
  const stale = Object.keys(ROWS).filter((op) => !documented.has(op));
  assert.deepEqual(missing, [], 'operations without an isolation row: add one to ROWS');
  assert.deepEqual(stale, [], 'rows for operations the document no longer has');
});

for (const [operation, row] of Object.entries(ROWS)) {
  if (row.kind === 'no tenant data') continue;
  test(`${operation}: ${row.kind === 'public-id' ? 'a real channel id answers as an unknown one' : row.kind === 'list' ? "B never sees A's rows" : row.kind === 'stream' ? "B's stream never carries A's events" : "B's key and session get A's id answered as unknown, and A's resource is unchanged"}`, async () => {
    if (row.kind === 'stream') {
      for (const [label, as] of [
        ['key', { 'x-api-key': other.apiKey }],
        ['session', { cookie: otherCookie }],
      ] as const) {
        const controller = new AbortController();
        // From the very start of the event log: every event B's organization may ever be shown.
        const res = await fetch(`${server.baseUrl}${operation.split(' ')[1]}?cursor=${encodeEventCursor(0)}`, {
          headers: { accept: 'text/event-stream', ...as },
          signal: controller.signal,
        });
        assert.equal(res.status, 200, `${label}: ${res.status}`);
        let text = '';
        const reading = (async () => {
          const decoder = new TextDecoder();
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
        })().catch(() => undefined);
        const emit = (organizationId: string, conversationId: string) =>
          server.container.database.db.transaction((tx) =>
            recordEvent(tx, organizationId, 'conversation.updated', { conversation_id: conversationId, status: 'open' }),
          );
        // A's event while B's stream is open, then B's own: once B's arrives, A's (sequenced before it) would have too.
        const ofA = await emit(ids.organization, ids.conversation);
        const ofB = await emit(other.organizationId, randomUUID());
        await eventually(`${label}: B's own event on its stream`, () => text.includes(ofB));
        controller.abort();
        await reading;
        for (const secret of [...secretsOfA, ofA]) assert.equal(text.includes(secret), false, `${label}: the stream shows A's ${secret}`);
      }
      return;
    }
    if (row.kind === 'list') {
      for (const [label, as] of [
        ['key', { key: other.apiKey }],
        ['session', { cookie: otherCookie }],
      ] as const) {
        const res = await call(operation, urlOf(operation, row, ids), as, undefined);
        assert.ok(res.status < 500, `${label}: ${res.status} ${res.text}`);
        for (const secret of secretsOfA)
          assert.equal(res.text.includes(secret), false, `${label}: the answer shows A's ${secret}: ${res.text}`);
      }
      return;
    }
    if (row.kind === 'public-id') {
      const body = row.body === undefined ? undefined : JSON.stringify(row.body);
      const real = await request(server, operation.split(' ')[0]!, urlOf(operation, row, ids), { rawBody: body });
      const fake = await request(server, operation.split(' ')[0]!, urlOf(operation, row, unknown), { rawBody: body });
      assert.deepEqual(normalized(real, ids), normalized(fake, unknown), 'a real channel id is told from an unknown one');
      return;
    }
    const before = await snapshot(row.probe);
    const statuses = new Set<number>();
    for (const [label, as] of [
      ['key', { key: other.apiKey }],
      ['session', { cookie: otherCookie }],
    ] as const) {
      const real = await call(operation, urlOf(operation, row, ids), as, fillValue(row.body, ids), row.form);
      const fake = await call(operation, urlOf(operation, row, unknown), as, fillValue(row.body, unknown), row.form);
      assert.ok(real.status < 500, `${label}: ${real.status} ${real.text}`);
      // With the id in the path, a 400 would mean the request never reached the lookup: the row is wrong, not the route.
      if (row.path) assert.notEqual(real.status, 400, `${label}: the row's request is invalid: ${real.text}`);
      statuses.add(real.status);
      assert.deepEqual(normalized(real, ids), normalized(fake, unknown), `${label}: A's id is answered differently from an unknown id`);
      for (const secret of secretsOfA) assert.equal(real.text.includes(secret), false, `${label}: the answer shows A's ${secret}`);
    }
    assert.deepEqual(await snapshot(row.probe), before, "A's resource changed");
    // The session row is the one answered 403 to keys (sessions only); every other reaches the lookup.
    if (row.path && !operation.includes('/auth/sessions/'))
      assert.ok(statuses.has(404) || statuses.has(422) || statuses.has(200), `answered ${[...statuses]}`);
  });
}

test('sandbox provider routes answer a real session or phone number id as an unknown one, to a caller without its credentials', async () => {
  const channel = async (id: string) =>
    (await request(server, 'GET', `/v1/channels/${id}`, { key: server.apiKey })).body.data.settings as Record<string, string>;
  const gateway = await channel(ids.channel);
  const official = await channel(ids.official);
  const real: Record<string, string> = {
    session: gateway.session!,
    id: official.phone_number_id!,
    version: 'v21.0',
    mediaId: 'media-x',
    phone: '4915112340003',
  };
  const fake: Record<string, string> = { ...real, session: `sbx_${'0'.repeat(24)}`, id: '999999999999999' };
  const routes = server.app.routeSummaries.filter(
    (r) => r.url.startsWith('/sandbox/') && /:(session|id)\b/.test(r.url) && r.method !== 'HEAD' && !r.url.startsWith('/sandbox/media/'),
  );
  assert.ok(routes.length >= 10, `${routes.length} sandbox routes with ids`);
  const differences: string[] = [];
  for (const route of routes) {
    const url = (values: Record<string, string>) =>
      route.url.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(values[name] ?? 'x'));
    const body = route.method === 'GET' ? undefined : {};
    const a = await request(server, route.method, url(real), { body, bearer: 'not-the-token-of-this-account' });
    const b = await request(server, route.method, url(fake), { body, bearer: 'not-the-token-of-this-account' });
    const norm = (res: ApiResponse, values: Record<string, string>) => ({
      status: res.status,
      body: res.text
        .replaceAll(values.session!, '<s>')
        .replaceAll(values.id!, '<id>')
        .replace(/"(request_id|fbtrace_id)":"[^"]*"/g, ''),
    });
    if (JSON.stringify(norm(a, real)) !== JSON.stringify(norm(b, fake)))
      differences.push(`${route.method} ${route.url}: ${a.status} ${a.text.slice(0, 120)} vs ${b.status} ${b.text.slice(0, 120)}`);
  }
  assert.deepEqual(differences, [], 'sandbox routes that tell a real id from an unknown one');
});

test("/sandbox/inbound answers A's channel to B's key and session as an unknown one, and delivers nothing", async () => {
  const body = (channel: string) => ({ channel_id: channel, from: '+4915112340002', type: 'text', content: { body: 'hi' } });
  const before = (await request(server, 'GET', `/v1/conversations?channel_id=${ids.official}`, { key: server.apiKey })).text;
  for (const as of [{ key: other.apiKey }, { cookie: otherCookie }]) {
    const real = await request(server, 'POST', '/sandbox/inbound', { ...as, body: body(ids.official) });
    const fake = await request(server, 'POST', '/sandbox/inbound', { ...as, body: body(unknown.official) });
    assert.equal(real.status, 404, real.text);
    assert.deepEqual(normalized(real, ids), normalized(fake, unknown));
  }
  const anonymous = await request(server, 'POST', '/sandbox/inbound', { body: body(ids.official) });
  assert.equal(anonymous.status, 401, 'playing a customer needs a credential');
  assert.equal(
    (await request(server, 'GET', `/v1/conversations?channel_id=${ids.official}`, { key: server.apiKey })).text,
    before,
    "A's channel got nothing",
  );
});
