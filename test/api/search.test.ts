/**
 * GET /v1/search: one ranked full-text search over contacts, companies, deals and message text, every
 * word a prefix; numbers as one number; the kinds a credential may read only; another organization's
 * records never; pages by cursor without gaps or repeats; bad input named.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { createKeyWith, createOtherOrganization, request, startTestServer, type TestServer } from '../harness.ts';
import { customerWrites, officialChannel } from '../messages-helpers.ts';

let server: TestServer;
let channel: { id: string };
before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '50' } });
  channel = await officialChannel(server, 'Search line');
  await seed();
});
after(() => server.close());

type Hit = { kind: string; id: string; title: string; snippet: string | null; rank: number; conversation_id: string | null };

async function find(query: string, key = server.apiKey) {
  const res = await request(server, 'GET', `/v1/search?${query}`, { key });
  return res;
}
async function hits(query: string, key = server.apiKey): Promise<Hit[]> {
  const res = await find(query, key);
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}
async function created(path: string, body: unknown, key = server.apiKey): Promise<string> {
  const res = await request(server, 'POST', path, { key, body });
  assert.equal(res.status, 201, res.text);
  return res.body.data.id;
}

let ana: string;
let acme: string;
let deal: string;
let parcel: string;
let caption: string;
async function seed() {
  ana = await created('/v1/contacts', { name: 'Ana Lima', phone_number: '+4915112340901', email: 'ana.lima@example.com' });
  await created('/v1/contacts', { name: 'Bruno Analyst', phone_number: '+4915112340902' });
  acme = await created('/v1/companies', { name: 'Acme Robotics', domain: 'acme-robotics.de' });
  deal = await created('/v1/deals', { name: 'Acme renewal 2026' });
  parcel = await customerWrites(server, channel.id, '4915112340901', 'text', { body: 'Where is my parcel? The tracking number is 4711' });
  caption = await customerWrites(server, channel.id, '4915112340903', 'image', {
    media_url: 'https://127.0.0.1:9/parcel.png',
    caption: 'Photo of the damaged parcel',
  });
}

test('every kind is found by the prefixes of its words, all words matching, best first', async () => {
  const byName = await hits('q=ana%20li');
  assert.deepEqual(
    byName.map((h) => [h.kind, h.id]),
    [['contact', ana]],
    'both words must match: "Bruno Analyst" has no word starting with li',
  );
  assert.equal(byName[0]!.title, 'Ana Lima');
  assert.deepEqual(
    (await hits('q=lima')).map((h) => h.id),
    [ana],
    'a part of the email address is a word',
  );
  assert.deepEqual(
    (await hits('q=acme')).map((h) => [h.kind, h.id]).sort(),
    [
      ['company', acme],
      ['deal', deal],
    ].sort(),
  );
  assert.deepEqual(
    (await hits('q=robotics.de')).map((h) => h.id),
    [acme],
    'the domain',
  );
  const parcels = await hits('q=PARCEL');
  assert.deepEqual(parcels.map((h) => h.id).sort(), [parcel, caption].sort(), 'a text’s words and a caption’s, any case');
  const text = parcels.find((h) => h.id === parcel)!;
  assert.equal(text.kind, 'message');
  assert.match(text.snippet!, /parcel/i);
  assert.ok(text.conversation_id);
  assert.ok(
    parcels.every((h, i) => i === 0 || parcels[i - 1]!.rank >= h.rank),
    'best first',
  );
  assert.deepEqual(
    (await hits('q=parcel%20damaged')).map((h) => h.id),
    [caption],
  );
});

test('a number is one number, in any format: the contact’s, and words of digits in messages', async () => {
  assert.deepEqual(
    (await hits('q=%2B49%20151%201234%200901')).map((h) => h.id),
    [ana],
  );
  const prefix = await hits('q=(0049)%20151-1234-09&kinds=contact');
  assert.ok(prefix.length >= 2 && prefix.some((h) => h.id === ana), 'every contact whose number starts so');
  assert.deepEqual(
    (await hits('q=4711&kinds=message')).map((h) => h.id),
    [parcel],
  );
});

test('kinds narrows the search; a key searches only what it may read, and asking for more is 403 naming the permission', async () => {
  assert.deepEqual(
    (await hits('q=acme&kinds=deal')).map((h) => h.id),
    [deal],
  );
  const contactsOnly = await createKeyWith(server, ['contacts:read']);
  assert.deepEqual(
    (await hits('q=a', contactsOnly)).map((h) => h.kind).filter((k) => k !== 'contact'),
    [],
  );
  assert.ok((await hits('q=ana', contactsOnly)).some((h) => h.id === ana));
  const refused = await find('q=parcel&kinds=message', contactsOnly);
  assert.equal(refused.status, 403, refused.text);
  assert.match(refused.body.detail, /messages:read/);
  const none = await find('q=parcel', await createKeyWith(server, ['channels:read']));
  assert.equal(none.status, 403, none.text);
});

test('another organization’s records and messages are never found', async () => {
  const other = await createOtherOrganization(server, 'search-other');
  await created('/v1/contacts', { name: 'Ana Lima Other', phone_number: '+4915112340999' }, other.apiKey);
  assert.deepEqual(await hits('q=parcel', other.apiKey), []);
  assert.deepEqual(
    (await hits('q=ana%20lima', other.apiKey)).map((h) => h.title),
    ['Ana Lima Other'],
  );
  assert.ok(!(await hits('q=ana%20lima')).some((h) => h.title === 'Ana Lima Other'));
});

test('a deleted message is not found', async () => {
  await queryRows(server.container.database.db, sql`update messages set deleted_at = now() where id = ${caption}`);
  assert.deepEqual(
    (await hits('q=damaged')).map((h) => h.id),
    [],
  );
  await queryRows(server.container.database.db, sql`update messages set deleted_at = null where id = ${caption}`);
});

test('pages by cursor: every match once, in rank order; bad input is 400 naming the field', async () => {
  for (let i = 0; i < 7; i++) await created('/v1/companies', { name: `Pager Company ${i}` });
  const all = await hits('q=pager&limit=50');
  assert.equal(all.length, 7);
  const paged: Hit[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 10; pages++) {
    const res = await find(`q=pager&limit=3${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(res.status, 200, res.text);
    paged.push(...res.body.data);
    cursor = res.body.meta.next_cursor;
    if (!cursor) break;
  }
  assert.deepEqual(
    paged.map((h) => h.id),
    all.map((h) => h.id),
  );

  const pointers = async (query: string) => {
    const res = await find(query);
    assert.equal(res.status, 400, res.text);
    return (res.body.errors as Array<{ pointer: string }>).map((e) => e.pointer);
  };
  assert.deepEqual(await pointers('q=%20%2B%2F%20'), ['/q']);
  assert.deepEqual(await pointers('q=acme&kinds=contact,people'), ['/kinds']);
  assert.deepEqual(await pointers('q=acme&cursor=forged'), ['/cursor']);
  assert.deepEqual(await pointers(''), ['/q']);
});
