/**
 * Deals through the API: the record (amount in minor units with a known currency, the stage in its
 * pipeline, status from the stage's kind), references refused naming the field when they are not the
 * organization's, stage changes (crm.deal.stage_changed on GET /v1/events, the stage history and who
 * moved the deal: API key, user, OAuth client), the list's filters and sorts, and the board (counts,
 * totals per currency, a stage paged further by its cursor).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { checkAuthCases } from '../auth-cases.ts';
import { insertChannel, insertMessage, postContact } from '../contacts-fixtures.ts';
import { allPages, assertNames, created, eventTail, recordEvent } from '../crm-helpers.ts';
import { createOtherOrganization, loginCookie, request, startTestServer, type TestServer } from '../harness.ts';
import { createGrant, createOAuthClient } from '../oauth-client-fixture.ts';

let server: TestServer;
let other: Awaited<ReturnType<typeof createOtherOrganization>>;
let userId: string;
let cookie: string;
/** The default pipeline (New, Qualified, Proposal, Negotiation, Won, Lost). */
let sales: { id: string; stages: Array<{ id: string; name: string }> };
const stage = (name: string) => sales.stages.find((s) => s.name === name)!.id;

before(async () => {
  server = await startTestServer({ worker: true });
  other = await createOtherOrganization(server, 'deals');
  cookie = await loginCookie(server);
  userId = (await request(server, 'GET', '/v1/auth/session', { cookie })).body.data.user.id;
  sales = (await request(server, 'GET', '/v1/pipelines', key())).body.data.find((p: { is_default: boolean }) => p.is_default);
});
after(() => server.close());

const key = () => ({ key: server.apiKey });
const post = (body: unknown) => request(server, 'POST', '/v1/deals', { ...key(), body });

test('a deal is created with its references, in the default pipeline’s first open stage unless told otherwise, and read back', async () => {
  const contact = await postContact(server, { phone_number: '+4915112300001', name: 'Deal Contact' });
  const company = await created(server, '/v1/companies', { name: 'Deal Company' });
  const channel = await insertChannel(server, server.organizationId);
  const { conversationId } = await insertMessage(server, server.organizationId, contact.id, channel);
  const events = await eventTail(server);
  const deal = await created(server, '/v1/deals', {
    name: ' Acme: 40 seats ',
    amount: 1250000,
    currency: 'eur',
    expected_close_date: '2025-07-31',
    owner_user_id: userId,
    company_id: company.id,
    contact_ids: [contact.id, contact.id.toUpperCase()],
    conversation_id: conversationId,
    custom_fields: { source: 'chat' },
  });
  assert.deepEqual(
    { ...deal, id: undefined, created_at: undefined, updated_at: undefined, stage_entered_at: undefined },
    {
      id: undefined,
      name: 'Acme: 40 seats',
      amount: 1250000,
      currency: 'EUR',
      pipeline_id: sales.id,
      stage_id: stage('New'),
      status: 'open',
      probability: 10,
      expected_close_date: '2025-07-31',
      owner_user_id: userId,
      company_id: company.id,
      contact_ids: [contact.id],
      conversation_id: conversationId,
      custom_fields: { source: 'chat' },
      stage_entered_at: undefined,
      created_at: undefined,
      updated_at: undefined,
    },
  );
  assert.equal(deal.stage_entered_at, deal.created_at);
  assert.deepEqual((await request(server, 'GET', `/v1/deals/${deal.id}`, key())).body.data, deal);
  assert.deepEqual(await events.take(1), [recordEvent('created', 'deal', deal.id, 'Acme: 40 seats', server.organizationId)]);

  // The links follow their records: a deleted contact leaves the deal, a deleted company unlinks it.
  assert.equal((await request(server, 'DELETE', `/v1/contacts/${contact.id}`, key())).status, 204);
  assert.equal((await request(server, 'DELETE', `/v1/companies/${company.id}`, key())).status, 204);
  const after = (await request(server, 'GET', `/v1/deals/${deal.id}`, key())).body.data;
  assert.deepEqual([after.contact_ids, after.company_id], [[], null]);
  assert.equal((await request(server, 'DELETE', `/v1/deals/${deal.id}`, key())).status, 204);
  assert.equal((await request(server, 'GET', `/v1/deals/${deal.id}`, key())).status, 404);
  assert.equal((await request(server, 'GET', `/v1/deals/${deal.id}/stage-history`, key())).status, 404);
  const tail = await events.take(3);
  assert.deepEqual(tail.at(-1), recordEvent('deleted', 'deal', deal.id, 'Acme: 40 seats', server.organizationId));
});

test('amount and currency are checked and go together; what is wrong is named', async () => {
  assertNames(await post({ amount: 5 }), 400, '/name');
  assertNames(await post({ name: 'D', amount: 5 }), 400, '/currency');
  assertNames(await post({ name: 'D', currency: 'EUR' }), 400, '/amount');
  assertNames(await post({ name: 'D', amount: 5, currency: 'XYZ' }), 400, '/currency');
  assertNames(await post({ name: 'D', amount: 5, currency: 'EURO' }), 400, '/currency');
  assertNames(await post({ name: 'D', amount: -1, currency: 'EUR' }), 400, '/amount');
  assertNames(await post({ name: 'D', amount: 1.5, currency: 'EUR' }), 400, '/amount');
  assertNames(await post({ name: 'D', amount: 1e16, currency: 'EUR' }), 400, '/amount');
  assertNames(await post({ name: 'D', expected_close_date: '2025-02-30' }), 400, '/expected_close_date');
  assertNames(await post({ name: 'D', expected_close_date: '2025-07-31T00:00:00Z' }), 400, '/expected_close_date');
  assertNames(await post({ name: 'D', contact_ids: Array.from({ length: 101 }, () => crypto.randomUUID()) }), 400, '/contact_ids');
  const deal = await created(server, '/v1/deals', { name: 'Priced', amount: 0, currency: 'JPY' });
  assert.deepEqual([deal.amount, deal.currency], [0, 'JPY']);
  const patch = (body: unknown) => request(server, 'PATCH', `/v1/deals/${deal.id}`, { ...key(), body });
  assert.deepEqual((await patch({ amount: 700 })).body.data.currency, 'JPY', 'the currency stays');
  assertNames(await patch({ currency: null }), 400, '/currency');
  const cleared = (await patch({ amount: null })).body.data;
  assert.deepEqual([cleared.amount, cleared.currency], [null, null], 'clearing the amount clears its currency');
  assertNames(await patch({ amount: 5 }), 400, '/currency');
  assertNames(await patch({ name: null }), 400, '/name');
  assertNames(await patch({ stage_id: null }), 400, '/stage_id');
});

test('what a deal refers to must be the organization’s: another organization’s stage, pipeline, contact, company, owner or conversation is refused naming the field, like an unknown one', async () => {
  const theirPipeline = (await request(server, 'GET', '/v1/pipelines', { key: other.apiKey })).body.data[0];
  const theirContact = await postContact(server, { phone_number: '+4915112300002', name: 'Theirs' }, other.apiKey);
  const theirCompany = await created(server, '/v1/companies', { name: 'Theirs Inc' }, other.apiKey);
  const theirChannel = await insertChannel(server, other.organizationId);
  const { conversationId: theirConversation } = await insertMessage(server, other.organizationId, theirContact.id, theirChannel);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ stage_id: theirPipeline.stages[0].id }, '/stage_id'],
    [{ pipeline_id: theirPipeline.id }, '/pipeline_id'],
    [{ contact_ids: [theirContact.id] }, '/contact_ids/0'],
    [{ company_id: theirCompany.id }, '/company_id'],
    [{ owner_user_id: other.userId }, '/owner_user_id'],
    [{ conversation_id: theirConversation }, '/conversation_id'],
  ];
  for (const [fields, pointer] of cases) {
    const theirs = await post({ name: 'Reaching', ...fields });
    assertNames(theirs, 400, pointer);
    const unknown = await post({
      name: 'Reaching',
      ...Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Array.isArray(v) ? [crypto.randomUUID()] : crypto.randomUUID()])),
    });
    assert.equal(unknown.body.detail, theirs.body.detail, `${pointer}: answered as an unknown one`);
  }
  const mine = await created(server, '/v1/deals', { name: 'Mine' });
  for (const [fields, pointer] of cases)
    assertNames(await request(server, 'PATCH', `/v1/deals/${mine.id}`, { ...key(), body: fields }), 400, pointer);
  // A stage of another pipeline of mine: named too.
  const second = await created(server, '/v1/pipelines', { name: 'Second', stages: [{ name: 'S1', probability: 5 }] });
  assertNames(await post({ name: 'D', pipeline_id: sales.id, stage_id: second.stages[0].id }), 400, '/stage_id');
  assertNames(
    await request(server, 'PATCH', `/v1/deals/${mine.id}`, { ...key(), body: { stage_id: second.stages[0].id } }),
    400,
    '/stage_id',
  );
  const theirDeal = await created(server, '/v1/deals', { name: 'Their deal' }, other.apiKey);
  assert.equal((await request(server, 'GET', `/v1/deals/${theirDeal.id}`, key())).status, 404);
  assert.equal((await request(server, 'PATCH', `/v1/deals/${theirDeal.id}`, { ...key(), body: { name: 'x' } })).status, 404);
});

test('a stage change records crm.deal.stage_changed and a history row saying who moved the deal; the status follows the stage’s kind', async () => {
  const deal = await created(server, '/v1/deals', { name: 'Moving deal', amount: 1000, currency: 'USD' });
  const org = server.organizationId;
  const events = await eventTail(server);
  const byKey = await request(server, 'PATCH', `/v1/deals/${deal.id}`, { ...key(), body: { stage_id: stage('Qualified'), amount: 2000 } });
  assert.equal(byKey.status, 200, byKey.text);
  assert.deepEqual([byKey.body.data.stage_id, byKey.body.data.status, byKey.body.data.probability], [stage('Qualified'), 'open', 25]);
  assert.ok(byKey.body.data.stage_entered_at > deal.stage_entered_at);
  const bySession = await request(server, 'PATCH', `/v1/deals/${deal.id}`, { cookie, body: { stage_id: stage('Won') } });
  assert.equal(bySession.status, 200, bySession.text);
  assert.deepEqual([bySession.body.data.status, bySession.body.data.probability], ['won', 100]);
  const client = await createOAuthClient(server, { scopes: ['crm:read', 'crm:write'] });
  const grant = await createGrant(server, { client, userId, organizationIds: [org] });
  const byApp = await request(server, 'PATCH', `/v1/deals/${deal.id}`, { bearer: grant.accessToken, body: { stage_id: stage('Lost') } });
  assert.equal(byApp.status, 200, byApp.text);
  assert.equal(byApp.body.data.status, 'lost');
  // The same stage again, or a change that changes nothing: no event (the next one is the rename's).
  assert.equal(
    (await request(server, 'PATCH', `/v1/deals/${deal.id}`, { ...key(), body: { stage_id: stage('Lost'), amount: 2000 } })).status,
    200,
  );
  assert.equal((await request(server, 'PATCH', `/v1/deals/${deal.id}`, { ...key(), body: { name: 'Moved deal' } })).status, 200);

  const changed = (from: string, to: string) => ({
    type: 'crm.deal.stage_changed',
    data: { deal_id: deal.id, pipeline_id: sales.id, from_stage_id: stage(from), to_stage_id: stage(to), organization_id: org },
  });
  const updated = (name = 'Moving deal') => recordEvent('updated', 'deal', deal.id, name, org);
  assert.deepEqual(await events.take(7), [
    updated(),
    changed('New', 'Qualified'),
    updated(),
    changed('Qualified', 'Won'),
    updated(),
    changed('Won', 'Lost'),
    updated('Moved deal'),
  ]);

  const history = await request(server, 'GET', `/v1/deals/${deal.id}/stage-history?limit=2`, key());
  assert.equal(history.status, 200, history.text);
  const rows = [
    ...history.body.data,
    ...(await allPages(server, `/v1/deals/${deal.id}/stage-history?limit=2&cursor=${history.body.meta.next_cursor}`)),
  ];
  const keyId = (await request(server, 'GET', '/v1/api-keys?limit=200', key())).body.data.find(
    (k: { name: string }) => k.name === 'Bootstrap key',
  )?.id;
  assert.deepEqual(
    rows.map((r) => [r.stage_name, r.changed_by]),
    [
      ['New', { type: 'api_key', id: keyId ?? rows[0].changed_by.id, user_id: null }],
      ['Qualified', { type: 'api_key', id: keyId ?? rows[0].changed_by.id, user_id: null }],
      ['Won', { type: 'user', id: userId, user_id: userId }],
      ['Lost', { type: 'oauth_client', id: client.clientId, user_id: userId }],
    ],
  );
  for (const [i, row] of rows.entries()) {
    assert.equal(row.pipeline_id, sales.id);
    if (i < rows.length - 1) assert.equal(row.left_at, rows[i + 1].entered_at, 'a stay ends when the next begins');
  }
  assert.equal(rows.at(-1).left_at, null, 'the open row is the stage now');

  // pipeline_id alone: the new pipeline's first open stage.
  const second = await created(server, '/v1/pipelines', {
    name: 'Upsell',
    stages: [
      { name: 'Won already', probability: 100, kind: 'won' },
      { name: 'Talk', probability: 30 },
    ],
  });
  const across = await request(server, 'PATCH', `/v1/deals/${deal.id}`, { ...key(), body: { pipeline_id: second.id } });
  assert.deepEqual(
    [across.body.data.pipeline_id, across.body.data.stage_id, across.body.data.status],
    [second.id, second.stages[1].id, 'open'],
  );
  assert.deepEqual((await events.take(2)).at(-1), {
    type: 'crm.deal.stage_changed',
    data: {
      deal_id: deal.id,
      pipeline_id: second.id,
      from_stage_id: stage('Lost'),
      to_stage_id: second.stages[1].id,
      organization_id: org,
    },
  });
});

test('the list filters by pipeline, stage, status, owner, company, contact, conversation and expected close date, and sorts', async () => {
  const pipeline = await created(server, '/v1/pipelines', {
    name: 'Listing',
    stages: [
      { name: 'Open', probability: 50 },
      { name: 'Won', probability: 100, kind: 'won' },
    ],
  });
  const company = await created(server, '/v1/companies', { name: 'Listing Co' });
  const contact = await postContact(server, { phone_number: '+4915112300003', name: 'Listing Contact' });
  const channel = await insertChannel(server, server.organizationId);
  const { conversationId } = await insertMessage(server, server.organizationId, contact.id, channel);
  const make = (name: string, fields: Record<string, unknown> = {}) =>
    created(server, '/v1/deals', { name, pipeline_id: pipeline.id, ...fields });
  const a = await make('bravo', { expected_close_date: '2025-03-01', owner_user_id: userId, company_id: company.id });
  const b = await make('Alpha', { expected_close_date: '2025-01-15', contact_ids: [contact.id], stage_id: pipeline.stages[1].id });
  const c = await make('charlie', { conversation_id: conversationId, owner_user_id: userId });
  const d = await make('Delta', { expected_close_date: '2025-02-01' });
  const names = async (query: string) =>
    (await allPages(server, `/v1/deals?pipeline_id=${pipeline.id}&limit=2&${query}`)).map((x) => x.name);

  assert.deepEqual(await names(''), ['Delta', 'charlie', 'Alpha', 'bravo'], 'newest first');
  assert.deepEqual(await names('sort=name'), ['Alpha', 'bravo', 'charlie', 'Delta']);
  assert.deepEqual(await names('sort=-name'), ['Delta', 'charlie', 'bravo', 'Alpha']);
  assert.deepEqual(await names('sort=expected_close_date'), ['Alpha', 'Delta', 'bravo', 'charlie'], 'without a date: last');
  assert.deepEqual(await names('sort=-expected_close_date'), ['charlie', 'bravo', 'Delta', 'Alpha']);
  assert.equal((await request(server, 'PATCH', `/v1/deals/${a.id}`, { ...key(), body: { custom_fields: { touched: true } } })).status, 200);
  assert.deepEqual((await names('sort=-updated_at')).slice(0, 1), ['bravo']);
  assert.deepEqual(await names(`stage_id=${pipeline.stages[1].id}`), ['Alpha']);
  assert.deepEqual(await names('status=won'), ['Alpha']);
  assert.deepEqual(await names('status=open&sort=name'), ['bravo', 'charlie', 'Delta']);
  assert.deepEqual(await names('status=lost'), []);
  assert.deepEqual(await names(`owner=${userId}&sort=name`), ['bravo', 'charlie']);
  assert.deepEqual(await names('owner=none&sort=name'), ['Alpha', 'Delta']);
  assert.deepEqual(
    (await request(server, 'GET', `/v1/deals?pipeline_id=${pipeline.id}&owner=me&sort=name`, { cookie })).body.data.map(
      (x: { name: string }) => x.name,
    ),
    ['bravo', 'charlie'],
  );
  assert.deepEqual(await names(`company_id=${company.id}`), ['bravo']);
  assert.deepEqual(await names(`contact_id=${contact.id}`), ['Alpha']);
  assert.deepEqual(await names(`conversation_id=${conversationId}`), ['charlie']);
  assert.deepEqual(await names('expected_close_after=2025-02-01&sort=expected_close_date'), ['Delta', 'bravo']);
  assert.deepEqual(await names('expected_close_before=2025-02-01&sort=expected_close_date'), ['Alpha', 'Delta']);
  assert.deepEqual(await names('expected_close_after=2025-01-20&expected_close_before=2025-02-20'), ['Delta']);
  assert.deepEqual(
    (await allPages(server, `/v1/deals?company_id=${company.id}`, other.apiKey)).length,
    0,
    'another organization sees none',
  );
  assertNames(await request(server, 'GET', '/v1/deals?status=maybe', key()), 400, '/status', 'query');
  assertNames(await request(server, 'GET', '/v1/deals?expected_close_after=soon', key()), 400, '/expected_close_after', 'query');
  assertNames(await request(server, 'GET', '/v1/deals?pipeline_id=nope', key()), 400, '/pipeline_id', 'query');
  const page = await request(server, 'GET', `/v1/deals?pipeline_id=${pipeline.id}&limit=1&sort=expected_close_date`, key());
  assertNames(await request(server, 'GET', `/v1/deals?sort=name&cursor=${page.body.meta.next_cursor}`, key()), 400, '/cursor', 'query');
  void [b, c, d];
});

test('the board: stages in order with deal counts, totals per currency (weighted by probability), first deals per stage and a per-stage cursor', async () => {
  const pipeline = await created(server, '/v1/pipelines', {
    name: 'Board',
    stages: [
      { name: 'Lead', probability: 10 },
      { name: 'Deal', probability: 55 },
      { name: 'Won', probability: 100, kind: 'won' },
    ],
  });
  const [lead, mid, won] = pipeline.stages as Array<{ id: string }>;
  const leads = [];
  for (let i = 0; i < 5; i++)
    leads.push(
      await created(server, '/v1/deals', {
        name: `Lead ${i}`,
        pipeline_id: pipeline.id,
        amount: 1000 + i,
        currency: i % 2 ? 'USD' : 'EUR',
        owner_user_id: i < 2 ? userId : null,
      }),
    );
  await created(server, '/v1/deals', { name: 'No amount', pipeline_id: pipeline.id, stage_id: mid!.id });
  await created(server, '/v1/deals', { name: 'Mid EUR', pipeline_id: pipeline.id, stage_id: mid!.id, amount: 333, currency: 'EUR' });
  // Lead 0 goes to Won and back: it is the last to arrive in Lead.
  await request(server, 'PATCH', `/v1/deals/${leads[0]!.id}`, { ...key(), body: { stage_id: won!.id } });
  await request(server, 'PATCH', `/v1/deals/${leads[0]!.id}`, { ...key(), body: { stage_id: lead!.id } });

  const board = await request(server, 'GET', `/v1/pipelines/${pipeline.id}/board?limit=2`, key());
  assert.equal(board.status, 200, board.text);
  assert.deepEqual(board.body.data.pipeline, { id: pipeline.id, name: 'Board', is_default: false });
  const [first, second, third] = board.body.data.stages;
  assert.deepEqual(
    board.body.data.stages.map((s: { name: string; position: number; deal_count: number }) => [s.name, s.position, s.deal_count]),
    [
      ['Lead', 0, 5],
      ['Deal', 1, 2],
      ['Won', 2, 0],
    ],
  );
  assert.deepEqual(first.totals, [
    { currency: 'EUR', deal_count: 3, amount: 1000 + 1002 + 1004, weighted_amount: 301 },
    { currency: 'USD', deal_count: 2, amount: 1001 + 1003, weighted_amount: 200 },
  ]);
  assert.deepEqual(
    second.totals,
    [{ currency: 'EUR', deal_count: 1, amount: 333, weighted_amount: 183 }],
    'a deal without an amount counts, in no total',
  );
  assert.deepEqual(third.totals, []);
  assert.deepEqual(third.deals, []);
  assert.equal(third.next_cursor, null);
  assert.deepEqual(
    first.deals.map((d: { name: string }) => d.name),
    ['Lead 0', 'Lead 4'],
    'most recently arrived in the stage first',
  );
  assert.equal(first.deals[0].status, 'open');
  const rest = await allPages(server, `/v1/pipelines/${pipeline.id}/stages/${lead!.id}/deals?limit=2&cursor=${first.next_cursor}`);
  assert.deepEqual(
    rest.map((d) => d.name),
    ['Lead 3', 'Lead 2', 'Lead 1'],
    'the stage paged on from its cursor',
  );
  assert.equal(second.next_cursor, null);

  const mine = await request(server, 'GET', `/v1/pipelines/${pipeline.id}/board?owner=${userId}`, key());
  assert.deepEqual(
    mine.body.data.stages.map((s: { deal_count: number; deals: Array<{ name: string }> }) => [s.deal_count, s.deals.map((d) => d.name)]),
    [
      [2, ['Lead 0', 'Lead 1']],
      [0, []],
      [0, []],
    ],
  );
  assert.equal(
    (await request(server, 'GET', `/v1/pipelines/${pipeline.id}/stages/${sales.stages[0]!.id}/deals`, key())).status,
    404,
    'a stage of another pipeline',
  );
  assert.equal((await request(server, 'GET', `/v1/pipelines/${crypto.randomUUID()}/board`, key())).status, 404);
  assertNames(await request(server, 'GET', `/v1/pipelines/${pipeline.id}/board?limit=0`, key()), 400, '/limit', 'query');
});

test('the deals routes need crm:read or crm:write', async () => {
  const deal = await created(server, '/v1/deals', { name: 'Guarded deal' });
  await checkAuthCases(server, [
    { method: 'POST', path: '/v1/deals', body: { name: 'X' }, permission: 'crm:write' },
    { method: 'GET', path: '/v1/deals', permission: 'crm:read' },
    { method: 'GET', path: `/v1/deals/${deal.id}`, permission: 'crm:read' },
    { method: 'PATCH', path: `/v1/deals/${deal.id}`, body: { name: 'Y' }, permission: 'crm:write' },
    { method: 'DELETE', path: `/v1/deals/${deal.id}`, permission: 'crm:write' },
    { method: 'GET', path: `/v1/deals/${deal.id}/stage-history`, permission: 'crm:read' },
  ]);
});
