/** Helpers the contacts tests share: the outbox as a list, channel rows, messages linked to a contact. */
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { channels, conversations, messages } from '../src/db/schema.ts';
import { uuidv7 } from '../src/lib/ids.ts';
import { request, type TestServer } from './harness.ts';

export type OutboxEvent = { type: string; payload: Record<string, any> };

/** The outbox's newest sequence number, to read only what a step records. */
export async function outboxMark(server: TestServer): Promise<number> {
  const [row] = await queryRows<{ seq: string | number | null }>(server.container.database.db, sql`select max(seq) as seq from events`);
  return Number(row?.seq ?? 0);
}

/** The events recorded after the mark, oldest first (optionally only those whose type starts with a prefix). */
export async function eventsSince(server: TestServer, mark: number, prefix = ''): Promise<OutboxEvent[]> {
  const rows = await queryRows<{ type: string; payload: Record<string, any> }>(
    server.container.database.db,
    sql`select type, payload from events where seq > ${mark} and type like ${`${prefix}%`} order by seq`,
  );
  return rows.map((r) => ({ type: r.type, payload: typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload }));
}

/** A channel row of the organization (made directly: the contacts tests need only its id). */
export async function insertChannel(server: TestServer, organizationId: string, name = 'Support'): Promise<string> {
  const id = uuidv7();
  await server.container.database.db
    .insert(channels)
    .values({ id, organizationId, platform: 'chatapp_official', name, status: 'connected' });
  return id;
}

/** A conversation and an inbound message from the contact, as the messages module stores them. */
export async function insertMessage(
  server: TestServer,
  organizationId: string,
  contactId: string,
  channelId: string,
): Promise<{ messageId: string; conversationId: string }> {
  const db = server.container.database.db;
  const conversationId = uuidv7();
  const messageId = uuidv7();
  await db.insert(conversations).values({ id: conversationId, organizationId, channelId, peerPhone: `49${Date.now() % 1e9}`, contactId });
  await db.insert(messages).values({
    id: messageId,
    organizationId,
    channelId,
    conversationId,
    contactId,
    direction: 'inbound',
    toPhone: '4930999999',
    fromPhone: '4930123456',
    type: 'text',
    content: { body: 'hello' },
    status: 'received',
  });
  return { messageId, conversationId };
}

/** Creates (or upserts) a contact through the API and returns its record. */
export async function postContact(server: TestServer, body: Record<string, unknown>, key = server.apiKey): Promise<Record<string, any>> {
  const res = await request(server, 'POST', '/v1/contacts', { key, body });
  assert.ok(res.status === 201 || res.status === 200, `POST /v1/contacts: ${res.status} ${res.text}`);
  return res.body.data;
}

/** Asserts the contacts routes' code-shaped error. */
export function assertCodeError(
  res: { status: number; body: any; headers: Headers; text: string },
  status: number,
  code: string,
  error?: string | RegExp,
) {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(res.body.code, code, res.text);
  assert.equal(typeof res.body.error, 'string');
  assert.equal(res.body.detail, undefined, 'not a problem body');
  if (typeof error === 'string') assert.equal(res.body.error, error);
  else if (error) assert.match(res.body.error, error);
}
