/**
 * Companies and deals from CSV: rows upserted (companies, by domain) or created (deals), bad rows
 * named by row, line and column, references resolved by name, domain, phone or email (another
 * organization's answered as unknown), a dry run that reports the same and writes nothing, one
 * crm.import.committed per real import, and the refusals of the request as a whole.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { created } from '../crm-helpers.ts';
import { eventsOf } from '../messages-helpers.ts';
import { createKeyWith, createOtherOrganization, loginCookie, request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
let other: Awaited<ReturnType<typeof createOtherOrganization>>;
let ownerEmail: string;
let ownerId: string;
before(async () => {
  server = await startTestServer();
  other = await createOtherOrganization(server, 'imports');
  const session = await request(server, 'GET', '/v1/auth/session', { cookie: await loginCookie(server) });
  ownerId = session.body.data.user.id;
  ownerEmail = session.body.data.user.email;
});
after(() => server.close());

const post = (path: string, csv: string, { dryRun = false, key = server.apiKey, contentType = 'text/csv' } = {}) =>
  request(server, 'POST', `${path}${dryRun ? '?dry_run=true' : ''}`, { key, rawBody: csv, contentType });

const count = async (table: 'companies' | 'deals', organizationId = server.organizationId) =>
  (
    await queryRows<{ n: number }>(
      server.container.database.db,
      sql`select count(*)::int as n from ${sql.raw(table)} where organization_id = ${organizationId}`,
    )
  )[0]!.n;

const committed = async () => (await eventsOf(server, 'crm.import.committed')).map((e) => e.payload);

test('companies: a dry run reports what the import then does; rows match by domain; bad cells are named', async () => {
  await created(server, '/v1/companies', { name: 'Existing', domain: 'existing.example', custom_fields: { keep: 'yes' } });
  await created(server, '/v1/companies', { name: 'Same', domain: 'same.example' }, server.apiKey);
  await created(server, '/v1/companies', { name: 'Theirs', domain: 'theirs.example' }, other.apiKey);
  const csv = [
    '\uFEFFName,Website,Phone,address.city,Country,owner,custom_fields.tier',
    `"Acme, GmbH",https://www.acme.example/about,+49 30 1234567,Berlin,de,${ownerEmail},gold`, // 1: created
    ',existing.example,,,,,silver', // 2: updates (matched by domain; name kept)
    'Same,same.example,,,,,', // 3: unchanged
    'No Domain Co,,,,,,', // 4: created (no domain)
    ',,,,,,', // blank: not a row
    ',nobody.example,,,,,', // 5: no name to create with
    'Bad,bad domain,12,,XX,,', // 6: domain, phone, country
    'Stranger,theirs.example,,,,nobody@example.com,', // 7: created (another organization's domain is free here); owner unknown → failed
    'Acme again,acme.example,,,,,', // 8: updates row 1's company
  ].join('\n');
  const before = await count('companies');
  const dry = await post('/v1/companies/import', csv, { dryRun: true });
  assert.equal(dry.status, 200, dry.text);
  assert.equal(await count('companies'), before, 'a dry run writes nothing');
  assert.deepEqual(await committed(), [], 'and records no event');
  const real = await post('/v1/companies/import', csv);
  assert.equal(real.status, 200, real.text);
  const strip = (d: Record<string, any>) => ({ ...d, import_id: undefined, dry_run: undefined });
  assert.deepEqual(strip(dry.body.data), strip(real.body.data), 'the dry run said what the import did');
  const data = real.body.data;
  assert.equal(data.dry_run, false);
  assert.equal(data.object_kind, 'company');
  assert.deepEqual(
    { rows: data.rows, created: data.created, updated: data.updated, unchanged: data.unchanged, failed: data.failed },
    { rows: 8, created: 2, updated: 2, unchanged: 1, failed: 3 },
  );
  assert.deepEqual(
    data.errors.map((e: Record<string, unknown>) => [e.row, e.line, e.field]),
    [
      [5, 7, 'name'],
      [6, 8, 'domain'],
      [6, 8, 'phone'],
      [6, 8, 'address.country'],
      [7, 9, 'owner'],
    ],
  );
  const acme = (await request(server, 'GET', '/v1/companies?domain=acme.example', { key: server.apiKey })).body.data[0];
  assert.equal(acme.name, 'Acme again');
  assert.equal(acme.phone, '+49301234567');
  assert.deepEqual(acme.address, { line1: null, line2: null, city: 'Berlin', region: null, postal_code: null, country: 'DE' });
  assert.equal(acme.owner_user_id, ownerId);
  assert.deepEqual(acme.custom_fields, { tier: 'gold' });
  const existing = (await request(server, 'GET', '/v1/companies?domain=existing.example', { key: server.apiKey })).body.data[0];
  assert.equal(existing.name, 'Existing');
  assert.deepEqual(existing.custom_fields, { keep: 'yes', tier: 'silver' });
  assert.equal(await count('companies', other.organizationId), 1, 'the other organization’s companies are untouched');
  assert.deepEqual(await committed(), [
    {
      import_id: data.import_id,
      object_kind: 'company',
      created: 2,
      updated: 2,
      unchanged: 1,
      failed: 3,
      organization_id: server.organizationId,
    },
  ]);
});

test('deals: references resolved by name, domain, phone and email; bad ones named by column; a dry run writes nothing', async () => {
  const pipeline = await created(server, '/v1/pipelines', {
    name: 'Partners',
    stages: [
      { name: 'Lead', probability: 10 },
      { name: 'Won', probability: 100, kind: 'won' },
    ],
  });
  await created(server, '/v1/companies', { name: 'Deal Co', domain: 'dealco.example' });
  const ana = await created(server, '/v1/contacts', { phone_number: '+4915112340001', email: 'Ana@Example.com' });
  const bo = await created(server, '/v1/contacts', { phone_number: '+4915112340002' });
  const theirs = await request(server, 'POST', '/v1/contacts', { key: other.apiKey, body: { phone_number: '+4915112340009' } });
  assert.equal(theirs.status, 201, theirs.text);
  await created(server, '/v1/companies', { name: 'Their Co', domain: 'theirco.example' }, other.apiKey);
  const csv = [
    'name,amount,currency,pipeline,stage,company,contacts,owner,expected_close_date,custom_fields.source',
    `Big one,1250000,eur,partners,won,https://dealco.example,ana@example.com; 0049 151 12340002,${ownerEmail},2025-07-31,fair`, // 1
    'Plain,,,,,,,,,', // 2: the default pipeline's first open stage
    `By ids,5,JPY,${pipeline.id},${pipeline.stages[0].id},,+49 151 12340002,${ownerId},,`, // 3
    'Bad money,12.50,EUR,,,,,,,', // 4: amount
    'No currency,100,,,,,,,,', // 5: currency
    'Nowhere,,,Partners,Negotiation,,,,,', // 6: stage not in the pipeline
    'Strangers,,,,,theirco.example,+4915112340009,,,', // 7: another organization's company and contact
    ',,,Nope,,,,,2025-02-30,', // 8: name, date, pipeline
  ].join('\n');
  const before = await count('deals');
  const dry = await post('/v1/deals/import', csv, { dryRun: true });
  assert.equal(dry.status, 200, dry.text);
  assert.equal(await count('deals'), before, 'a dry run writes nothing');
  const real = await post('/v1/deals/import', csv);
  assert.equal(real.status, 200, real.text);
  const strip = (d: Record<string, any>) => ({ ...d, import_id: undefined, dry_run: undefined });
  assert.deepEqual(strip(dry.body.data), strip(real.body.data));
  const data = real.body.data;
  assert.deepEqual(
    { rows: data.rows, created: data.created, updated: data.updated, failed: data.failed },
    { rows: 8, created: 3, updated: 0, failed: 5 },
    JSON.stringify(data.errors),
  );
  assert.deepEqual(
    data.errors.map((e: Record<string, unknown>) => [e.row, e.field]),
    [
      [4, 'amount'],
      [5, 'currency'],
      [6, 'stage'],
      [7, 'company'],
      [7, 'contacts'],
      [8, 'name'],
      [8, 'expected_close_date'],
    ],
  );
  const deals = (await request(server, 'GET', '/v1/deals?sort=name&limit=100', { key: server.apiKey })).body.data as Array<
    Record<string, any>
  >;
  const big = deals.find((d) => d.name === 'Big one')!;
  assert.equal(big.amount, 1250000);
  assert.equal(big.currency, 'EUR');
  assert.equal(big.pipeline_id, pipeline.id);
  assert.equal(big.stage_id, pipeline.stages[1].id);
  assert.equal(big.status, 'won');
  assert.equal(big.owner_user_id, ownerId);
  assert.equal(big.expected_close_date, '2025-07-31');
  assert.deepEqual([...big.contact_ids].sort(), [ana.id, bo.id].sort());
  assert.deepEqual(big.custom_fields, { source: 'fair' });
  const plain = deals.find((d) => d.name === 'Plain')!;
  const defaults = (await request(server, 'GET', '/v1/pipelines', { key: server.apiKey })).body.data.find(
    (p: { is_default: boolean }) => p.is_default,
  );
  assert.equal(plain.stage_id, defaults.stages[0].id);
  const byIds = deals.find((d) => d.name === 'By ids')!;
  assert.deepEqual([byIds.amount, byIds.currency, byIds.stage_id, byIds.contact_ids], [5, 'JPY', pipeline.stages[0].id, [bo.id]]);
  const history = await request(server, 'GET', `/v1/deals/${big.id}/stage-history`, { key: server.apiKey });
  assert.equal(history.body.data.length, 1, 'an imported deal has its first stage history row');
  assert.equal((await committed()).at(-1)!.object_kind, 'deal');
});

test('the request as a whole: unknown columns, no rows, another content type, the permission', async () => {
  const unknown = await post('/v1/deals/import', 'name,colour\nA,red');
  assert.equal(unknown.status, 400, unknown.text);
  assert.ok(
    unknown.body.errors.some((e: { pointer: string }) => e.pointer === '/columns/1'),
    unknown.text,
  );
  const twice = await post('/v1/companies/import', 'name,Name\nA,B');
  assert.equal(twice.status, 400, twice.text);
  assert.equal((await post('/v1/companies/import', 'name,domain\n')).status, 400);
  assert.equal((await post('/v1/companies/import', '{"name":"A"}', { contentType: 'application/json' })).status, 415);
  assert.equal((await post('/v1/deals/import', 'name\nA', { contentType: 'application/x-ndjson' })).status, 415);
  const reader = await createKeyWith(server, ['crm:read']);
  const refused = await post('/v1/deals/import', 'name\nA', { key: reader });
  assert.equal(refused.status, 403, refused.text);
  assert.match(refused.body.detail, /crm:write/);
  assert.equal((await request(server, 'POST', '/v1/companies/import', { rawBody: 'name\nA', contentType: 'text/csv' })).status, 401);
});
