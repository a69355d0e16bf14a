/**
 * Companies through the API: the record and its normalization (domain, phone, address), fields named
 * when wrong, a domain unique in an organization (409), the owner a member, the events on GET
 * /v1/events, the list's filters, sorts and cursors, and the crm permissions.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { checkAuthCases } from '../auth-cases.ts';
import { allPages, assertNames, created, eventTail, recordEvent } from '../crm-helpers.ts';
import { createKeyWith, createOtherOrganization, loginCookie, request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
let other: Awaited<ReturnType<typeof createOtherOrganization>>;
let ownerId: string;
before(async () => {
  server = await startTestServer({ worker: true });
  other = await createOtherOrganization(server, 'companies');
  const session = await request(server, 'GET', '/v1/auth/session', { cookie: await loginCookie(server) });
  ownerId = session.body.data.user.id;
});
after(() => server.close());

const key = () => ({ key: server.apiKey });

test('a company is created with its fields normalized, read back, changed and deleted, each with its record event', async () => {
  const events = await eventTail(server);
  const company = await created(server, '/v1/companies', {
    name: '  Acme GmbH ',
    domain: 'https://WWW.Acme.com/about?x=1',
    phone: '+49 (30) 1234-567',
    address: { line1: 'Friedrichstraße 123', city: 'Berlin', postal_code: '10117', country: 'de' },
    owner_user_id: ownerId,
    custom_fields: { industry: 'logistics', seats: 40 },
  });
  assert.deepEqual(
    { ...company, id: undefined, created_at: undefined, updated_at: undefined },
    {
      id: undefined,
      name: 'Acme GmbH',
      domain: 'acme.com',
      phone: '+49301234567',
      address: { line1: 'Friedrichstraße 123', line2: null, city: 'Berlin', region: null, postal_code: '10117', country: 'DE' },
      owner_user_id: ownerId,
      custom_fields: { industry: 'logistics', seats: 40 },
      created_at: undefined,
      updated_at: undefined,
    },
  );
  assert.deepEqual((await request(server, 'GET', `/v1/companies/${company.id}`, key())).body.data, company);

  const changed = await request(server, 'PATCH', `/v1/companies/${company.id}`, {
    ...key(),
    body: { phone: '', address: null, custom_fields: { seats: null, tier: 'gold' }, domain: 'münchen-acme.de' },
  });
  assert.equal(changed.status, 200, changed.text);
  assert.equal(changed.body.data.phone, null, '"" clears');
  assert.equal(changed.body.data.address, null);
  assert.equal(changed.body.data.domain, 'münchen-acme.de', 'an international domain is kept in Unicode');
  assert.deepEqual(changed.body.data.custom_fields, { industry: 'logistics', tier: 'gold' }, 'merged key by key; null removes');

  // A change that changes nothing records nothing: the next event is the deletion's.
  const same = await request(server, 'PATCH', `/v1/companies/${company.id}`, {
    ...key(),
    body: { name: 'Acme GmbH', domain: 'xn--mnchen-acme-thb.de' },
  });
  assert.equal(same.status, 200, same.text);
  assert.equal(same.body.data.updated_at, changed.body.data.updated_at);
  assert.equal((await request(server, 'DELETE', `/v1/companies/${company.id}`, key())).status, 204);
  assert.equal((await request(server, 'GET', `/v1/companies/${company.id}`, key())).status, 404);
  assert.equal((await request(server, 'DELETE', `/v1/companies/${company.id}`, key())).status, 404);

  const org = server.organizationId;
  assert.deepEqual(await events.take(3), [
    recordEvent('created', 'company', company.id, 'Acme GmbH', org),
    recordEvent('updated', 'company', company.id, 'Acme GmbH', org),
    recordEvent('deleted', 'company', company.id, 'Acme GmbH', org),
  ]);
});

test('bad fields are refused with 400 naming each; an owner from another organization is no member', async () => {
  const post = (body: unknown) => request(server, 'POST', '/v1/companies', { ...key(), body });
  assertNames(await post({ domain: 'acme.com' }), 400, '/name');
  assertNames(await post({ name: '' }), 400, '/name');
  assertNames(await post({ name: 'X', domain: 'localhost' }), 400, '/domain');
  assertNames(await post({ name: 'X', domain: 'not a domain' }), 400, '/domain');
  assertNames(await post({ name: 'X', phone: '12' }), 400, '/phone');
  assertNames(await post({ name: 'X', address: { country: 'XX' } }), 400, '/address/country');
  assertNames(await post({ name: 'X', address: { planet: 'Mars' } }), 400, '/address');
  assertNames(await post({ name: 'X', owner_user_id: other.userId }), 400, '/owner_user_id');
  assertNames(await post({ name: 'X', owner_user_id: 'nobody' }), 400, '/owner_user_id');
  assertNames(
    await post({ name: 'X', custom_fields: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])) }),
    400,
    '/custom_fields',
  );
  assertNames(await post({ name: 'X', custom_fields: { big: 'x'.repeat(17 * 1024) } }), 400, '/custom_fields');
  assertNames(await post({ name: 'X', colour: 'red' }), 400, '/');
  const company = await created(server, '/v1/companies', { name: 'Valid' });
  assertNames(await request(server, 'PATCH', `/v1/companies/${company.id}`, { ...key(), body: { name: null } }), 400, '/name');
  assertNames(
    await request(server, 'PATCH', `/v1/companies/${company.id}`, { ...key(), body: { owner_user_id: other.userId } }),
    400,
    '/owner_user_id',
  );
});

test('a domain belongs to one company of an organization (409 naming it, in any of its forms); another organization may hold it too', async () => {
  const first = await created(server, '/v1/companies', { name: 'Initech', domain: 'initech.example' });
  const again = await request(server, 'POST', '/v1/companies', {
    ...key(),
    body: { name: 'Initech 2', domain: 'HTTP://www.initech.example/' },
  });
  assertNames(again, 409, '/domain');
  assert.equal(again.body.code, 'conflict');
  const second = await created(server, '/v1/companies', { name: 'Initrode', domain: 'initrode.example' });
  assertNames(
    await request(server, 'PATCH', `/v1/companies/${second.id}`, { ...key(), body: { domain: 'initech.example' } }),
    409,
    '/domain',
  );
  assert.equal((await request(server, 'PATCH', `/v1/companies/${first.id}`, { ...key(), body: { domain: null } })).status, 200);
  assert.equal(
    (await request(server, 'PATCH', `/v1/companies/${second.id}`, { ...key(), body: { domain: 'initech.example' } })).status,
    200,
    'free again',
  );
  await created(server, '/v1/companies', { name: 'Initech elsewhere', domain: 'initech.example' }, other.apiKey);
  // Companies without a domain are many.
  await created(server, '/v1/companies', { name: 'No domain 1' });
  await created(server, '/v1/companies', { name: 'No domain 2' });
});

test('the list filters by name prefix or part, domain and owner, sorts by name or time either way, and pages each sort with its own cursors', async () => {
  const names = ['delta Works', 'Alpha One', 'charlie Co', 'Bravo', 'alpha two', 'Echo'];
  const made = [];
  for (const [i, name] of names.entries())
    made.push(
      await created(server, '/v1/companies', {
        name: `Zlist ${name}`,
        owner_user_id: i % 2 === 0 ? ownerId : null,
        domain: `zlist${i}.example`,
      }),
    );
  const ids = new Set(made.map((c) => c.id));
  const mine = (items: Array<Record<string, any>>) => items.filter((c) => ids.has(c.id)).map((c) => c.name.slice('Zlist '.length));

  const byName = await allPages(server, '/v1/companies?sort=name&limit=2&name_prefix=zlist');
  assert.deepEqual(
    mine(byName),
    ['Alpha One', 'alpha two', 'Bravo', 'charlie Co', 'delta Works', 'Echo'],
    'case-insensitive, paged two at a time',
  );
  assert.equal(byName.length, 6, 'the prefix is case-insensitive and finds only these');
  assert.deepEqual(mine(await allPages(server, '/v1/companies?sort=-name&limit=4&name_prefix=ZLIST')), [
    'Echo',
    'delta Works',
    'charlie Co',
    'Bravo',
    'alpha two',
    'Alpha One',
  ]);
  assert.deepEqual(mine(await allPages(server, '/v1/companies?sort=created_at&limit=5&name_prefix=zlist')), names);
  assert.deepEqual(
    mine(await allPages(server, '/v1/companies?limit=5&name_prefix=zlist')),
    [...names].reverse(),
    'newest first by default',
  );
  assert.deepEqual(mine(await allPages(server, '/v1/companies?name_contains=ALPHA')), ['alpha two', 'Alpha One']);
  assert.deepEqual(mine(await allPages(server, '/v1/companies?name_contains=%25')), [], 'a % is a literal');
  assert.deepEqual(mine(await allPages(server, '/v1/companies?domain=https%3A%2F%2Fwww.ZLIST3.example%2F')), ['Bravo']);
  assert.deepEqual(mine(await allPages(server, `/v1/companies?owner=${ownerId}&sort=name`)), ['alpha two', 'charlie Co', 'delta Works']);
  assert.deepEqual(mine(await allPages(server, '/v1/companies?owner=none&sort=name&name_prefix=zlist')), ['Alpha One', 'Bravo', 'Echo']);
  const cookie = await loginCookie(server);
  const me = await request(server, 'GET', '/v1/companies?owner=me&sort=name&name_prefix=zlist', { cookie });
  assert.deepEqual(mine(me.body.data), ['alpha two', 'charlie Co', 'delta Works'], 'owner=me is the signed-in user');
  assertNames(await request(server, 'GET', '/v1/companies?owner=me', key()), 400, '/owner', 'query');
  assertNames(await request(server, 'GET', '/v1/companies?domain=nope', key()), 400, '/domain', 'query');
  assertNames(await request(server, 'GET', '/v1/companies?sort=colour', key()), 400, '/sort', 'query');

  // A cursor pages the sort that made it, and nothing else.
  const page = await request(server, 'GET', '/v1/companies?sort=name&limit=1&name_prefix=zlist', key());
  const cursor = page.body.meta.next_cursor as string;
  assertNames(await request(server, 'GET', `/v1/companies?sort=-created_at&cursor=${cursor}`, key()), 400, '/cursor', 'query');
  assertNames(await request(server, 'GET', '/v1/companies?cursor=bm9wZQ', key()), 400, '/cursor', 'query');
  const contactsCursor = (await request(server, 'GET', '/v1/contacts?limit=1', key())).body.meta.next_cursor;
  if (contactsCursor) assertNames(await request(server, 'GET', `/v1/companies?cursor=${contactsCursor}`, key()), 400, '/cursor', 'query');

  // Another organization's list shows none of them.
  const theirs = await allPages(server, '/v1/companies?name_prefix=zlist', other.apiKey);
  assert.deepEqual(mine(theirs), []);
});

test('the companies routes need crm:read or crm:write; a key with crm:read reads and cannot write', async () => {
  const company = await created(server, '/v1/companies', { name: 'Permissions Inc' });
  await checkAuthCases(server, [
    { method: 'POST', path: '/v1/companies', body: { name: 'X' }, permission: 'crm:write' },
    { method: 'GET', path: '/v1/companies', permission: 'crm:read' },
    { method: 'GET', path: `/v1/companies/${company.id}`, permission: 'crm:read' },
    { method: 'PATCH', path: `/v1/companies/${company.id}`, body: { name: 'Y' }, permission: 'crm:write' },
    { method: 'DELETE', path: `/v1/companies/${company.id}`, permission: 'crm:write' },
  ]);
  const reader = await createKeyWith(server, ['crm:read']);
  assert.equal((await request(server, 'GET', `/v1/companies/${company.id}`, { key: reader })).status, 200);
  const refused = await request(server, 'PATCH', `/v1/companies/${company.id}`, { key: reader, body: { name: 'Y' } });
  assert.equal(refused.status, 403);
  assert.match(refused.body.detail, /crm:write/);
  const contactsOnly = await createKeyWith(server, ['contacts:read', 'contacts:write']);
  assert.equal((await request(server, 'GET', '/v1/companies', { key: contactsOnly })).status, 403, 'contacts permissions are not crm ones');
});
