/**
 * Canned responses: shared ones and a member's own (seen by that member only), found by a shortcut's
 * beginning or words, shortcuts unique in their scope, unknown variables refused, rendered for a
 * conversation's contact and the member asking, each change an event; another organization's never.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createOtherOrganization, loginCookie, request, startTestServer, type TestServer } from '../harness.ts';
import { customerWrites, eventsOf, officialChannel } from '../messages-helpers.ts';
import { inviteNewMember } from '../org-helpers.ts';

let server: TestServer;
let owner: string;
before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '50' } });
  owner = await loginCookie(server);
});
after(() => server.close());

type As = { key?: string; cookie?: string };
const call = (method: string, path: string, as: As, body?: unknown) => request(server, method, path, { ...as, body });
const asKey = (): As => ({ key: server.apiKey });
const pointers = (res: { body: { errors?: Array<{ pointer: string }> } }) => (res.body.errors ?? []).map((e) => e.pointer);

async function create(as: As, body: Record<string, unknown>) {
  const res = await call('POST', '/v1/canned-responses', as, body);
  assert.equal(res.status, 201, res.text);
  return res.body.data as { id: string; shortcut: string; shared: boolean; owner_user_id: string | null; body: string };
}
const shortcuts = async (as: As, query = '') =>
  ((await call('GET', `/v1/canned-responses${query}`, as)).body.data as Array<{ shortcut: string; shared: boolean }>).map(
    (r) => r.shortcut,
  );

test('shared and personal: a member’s own are theirs alone; shortcuts unique in their scope; found by a shortcut’s beginning or words', async () => {
  const hours = await create(asKey(), { name: 'Opening hours', shortcut: 'hours', body: 'We are open 9:00 to 18:00.' });
  assert.equal(hours.shared, true);
  await create(asKey(), { name: 'Refund policy', shortcut: 'refund', body: 'Refunds take up to 14 days.' });
  const mine = await create({ cookie: owner }, { name: 'My sign-off', shortcut: 'hours', body: 'Talk soon!', personal: true });
  assert.equal(mine.shared, false, 'the same shortcut as a shared one, as one’s own');
  assert.ok(mine.owner_user_id);

  const member = await inviteNewMember(server, { key: server.apiKey }, server.organizationId, 'member', 'canned');
  assert.deepEqual(await shortcuts(asKey()), ['hours', 'refund'], 'an API key sees the shared ones');
  assert.deepEqual(await shortcuts({ cookie: member.cookie }), ['hours', 'refund'], 'another member does not see the owner’s own');
  assert.deepEqual(
    (await call('GET', `/v1/canned-responses?scope=personal`, { cookie: owner })).body.data.map((r: { id: string }) => r.id),
    [mine.id],
  );
  assert.equal((await call('GET', `/v1/canned-responses/${mine.id}`, { cookie: member.cookie })).status, 404);
  assert.equal((await call('PATCH', `/v1/canned-responses/${mine.id}`, asKey(), { body: 'x' })).status, 404);

  assert.deepEqual(await shortcuts(asKey(), '?q=%2Fho'), ['hours'], 'a leading / as typed in the composer');
  assert.deepEqual(await shortcuts(asKey(), '?q=14%20days'), ['refund'], 'words of the body');
  assert.deepEqual(await shortcuts(asKey(), '?q=50%25'), [], 'a % is a character, not a wildcard');

  const taken = await call('POST', '/v1/canned-responses', asKey(), { name: 'Again', shortcut: 'hours', body: 'x' });
  assert.equal(taken.status, 409, taken.text);
  assert.deepEqual(pointers(taken), ['/shortcut']);
  const renamedOnto = await call('PATCH', `/v1/canned-responses/${hours.id}`, asKey(), { shortcut: 'refund' });
  assert.equal(renamedOnto.status, 409, renamedOnto.text);
  for (const [body, pointer] of [
    [{ name: 'x', shortcut: 'Bad Shortcut', body: 'x' }, '/shortcut'],
    [{ name: 'x', shortcut: 'ok', body: 'Hi {{contact.nmae}}' }, '/body'],
    [{ name: 'x', shortcut: 'ok2', body: 'x', personal: true }, '/personal'],
    [{ name: '', shortcut: 'ok3', body: 'x' }, '/name'],
  ] as const) {
    const res = await call('POST', '/v1/canned-responses', asKey(), body);
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
    assert.deepEqual(pointers(res), [pointer], JSON.stringify(body));
  }
  assert.deepEqual(await shortcuts(asKey()), ['hours', 'refund'], 'nothing stored by the refusals');

  // Paging by shortcut.
  for (const s of ['a1', 'a2', 'a3']) await create(asKey(), { name: s, shortcut: s, body: s });
  const first = await call('GET', '/v1/canned-responses?limit=2', asKey());
  const second = await call('GET', `/v1/canned-responses?limit=2&cursor=${first.body.meta.next_cursor}`, asKey());
  assert.deepEqual(
    [...first.body.data, ...second.body.data].map((r: { shortcut: string }) => r.shortcut),
    ['a1', 'a2', 'a3', 'hours'],
  );
});

test('rendered for a conversation: the contact’s fields, defaults, the member asking; what had no value is named', async () => {
  const channel = await officialChannel(server, 'Canned line');
  const messageId = await customerWrites(server, channel.id, '4915112349901', 'text', { body: 'hi' }, { name: 'Ana Souza' });
  const conversationId = (await call('GET', `/v1/messages/${messageId}`, asKey())).body.data.conversation_id as string;
  const contactId = (await call('GET', `/v1/conversations/${conversationId}`, asKey())).body.data.contact.id as string;
  await call('PATCH', `/v1/contacts/${contactId}`, asKey(), { name: 'Ana Souza', custom_fields: { order_no: 4711 } });
  const greeting = await create(asKey(), {
    name: 'Greeting',
    shortcut: 'greet',
    body: 'Hi {{contact.first_name|there}}, order {{contact.custom_fields.order_no}} ships today. {{agent.first_name}} at {{organization.name}} {{contact.email}}',
  });
  const asOwner = await call('POST', `/v1/canned-responses/${greeting.id}/render`, { cookie: owner }, { conversation_id: conversationId });
  assert.equal(asOwner.status, 200, asOwner.text);
  const ownerName = (await call('GET', '/v1/auth/session', { cookie: owner })).body.data.user.name as string;
  const orgName = (await call('GET', `/v1/organizations/${server.organizationId}`, { cookie: owner })).body.data.name as string;
  assert.equal(asOwner.body.data.body, `Hi Ana, order 4711 ships today. ${ownerName.split(' ')[0]} at ${orgName} `);
  assert.deepEqual(asOwner.body.data.missing, ['contact.email']);
  const noContact = await call('POST', `/v1/canned-responses/${greeting.id}/render`, asKey(), {});
  assert.match(noContact.body.data.body, /^Hi there, order {2}ships/, 'the default; an API key has no agent');
  assert.deepEqual(noContact.body.data.missing.sort(), ['agent.first_name', 'contact.custom_fields.order_no', 'contact.email']);

  const other = await createOtherOrganization(server, 'canned-other');
  const foreign = await call('POST', `/v1/canned-responses/${greeting.id}/render`, { key: other.apiKey }, {});
  assert.equal(foreign.status, 404, 'another organization’s response is unknown');
  const theirs = await create({ key: other.apiKey }, { name: 'Theirs', shortcut: 'greet', body: 'Hello' });
  const intoOurs = await call(
    'POST',
    `/v1/canned-responses/${theirs.id}/render`,
    { key: other.apiKey },
    { conversation_id: conversationId },
  );
  assert.equal(intoOurs.status, 400, intoOurs.text);
  assert.deepEqual(pointers(intoOurs), ['/conversation_id']);
  assert.deepEqual(await shortcuts({ key: other.apiKey }), ['greet']);
});

test('each change is an event; a deleted response is gone', async () => {
  const made = await create(asKey(), { name: 'Bye', shortcut: 'bye', body: 'Bye!' });
  const changed = await call('PATCH', `/v1/canned-responses/${made.id}`, asKey(), { shortcut: 'goodbye' });
  assert.equal(changed.status, 200, changed.text);
  assert.equal((await call('PATCH', `/v1/canned-responses/${made.id}`, asKey(), { shortcut: 'goodbye' })).status, 200, 'no change');
  assert.equal((await call('DELETE', `/v1/canned-responses/${made.id}`, asKey())).status, 204);
  assert.equal((await call('GET', `/v1/canned-responses/${made.id}`, asKey())).status, 404);
  const ofIt = async (type: string) => (await eventsOf(server, type)).filter((e) => e.payload.canned_response_id === made.id);
  assert.equal((await ofIt('canned_response.created')).length, 1);
  assert.deepEqual(
    (await ofIt('canned_response.updated')).map((e) => e.payload.shortcut),
    ['goodbye'],
    'one update: the unchanged write records none',
  );
  assert.deepEqual((await ofIt('canned_response.deleted'))[0]!.payload, {
    canned_response_id: made.id,
    shortcut: 'goodbye',
    owner_user_id: null,
    organization_id: server.organizationId,
  });
});
