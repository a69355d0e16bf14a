/**
 * What refers to any CRM record (comments, task targets, relationships), in the database: migration
 * crm_tasks_relationships_comments turns a contact's notes into its comments (same ids, bodies, times
 * and authors); a record's deletion takes what refers to it (the foreign keys of the generated
 * per-kind columns); a merge of contacts brings what referred to the merged ones to the survivor,
 * without a repeated or looping link.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { openDatabase, queryRows, type Database } from '../../src/db/client.ts';
import { mergeContacts } from '../../src/domain/contacts/merge.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { createTestDatabaseUrl, usingPostgres } from '../harness.ts';

const MIGRATIONS = new URL('../../src/db/migrations/', import.meta.url);
const journal = JSON.parse(readFileSync(new URL('meta/_journal.json', MIGRATIONS), 'utf8')) as { entries: Array<{ tag: string }> };

async function apply(database: Database, tag: string): Promise<void> {
  const text = readFileSync(new URL(`${tag}.sql`, MIGRATIONS), 'utf8');
  for (const statement of text.split('--> statement-breakpoint')) if (statement.trim()) await database.db.execute(sql.raw(statement));
}

let database: Database;
let fresh: Awaited<ReturnType<typeof createTestDatabaseUrl>> | undefined;
const org = uuidv7();
const rows = <T>(query: ReturnType<typeof sql>) => queryRows<T>(database.db, query);
const contact = async (name: string, createdAt: string) => {
  const id = uuidv7();
  await database.db.execute(
    sql`insert into contacts (id, organization_id, name, created_at, updated_at) values (${id}, ${org}, ${name}, ${createdAt}::timestamptz, now())`,
  );
  return id;
};

before(async () => {
  fresh = usingPostgres ? await createTestDatabaseUrl() : undefined;
  database = fresh
    ? await openDatabase({ kind: 'postgres', url: fresh.url, poolSize: 2 })
    : await openDatabase({ kind: 'pglite', dataDir: null });
});
after(async () => {
  await database?.close();
  await fresh?.drop();
});

test('the migration makes a contact’s notes its comments: ids, bodies, times and authors kept', async () => {
  const tags = journal.entries.map((e) => e.tag);
  const at = tags.findIndex((t) => /_crm_tasks_relationships_comments$/.test(t));
  assert.ok(at > 0, 'the migration is in the journal');
  for (const tag of tags.slice(0, at)) await apply(database, tag);
  await database.db.execute(sql`insert into organizations (id, name) values (${org}, 'Before comments')`);
  const ada = await contact('Ada', '2024-01-01T00:00:00Z');
  const [byUser, byKey, bySystem, user, key] = [uuidv7(), uuidv7(), uuidv7(), uuidv7(), uuidv7()];
  await database.db.execute(sql`
    insert into contact_notes (id, organization_id, contact_id, author_type, author_id, body, created_at) values
      (${byUser}, ${org}, ${ada}, 'user', ${user}, 'by a person', '2024-02-01T10:00:00Z'),
      (${byKey}, ${org}, ${ada}, 'api_key', ${key}, 'by a script', '2024-02-02T10:00:00Z'),
      (${bySystem}, ${org}, ${ada}, 'system', null, 'by Parley', '2024-02-03T10:00:00Z')`);
  for (const tag of tags.slice(at)) await apply(database, tag);

  const comments = await rows<Record<string, unknown>>(
    sql`select id, organization_id, record_kind, record_id, contact_id, author_type, author_id, author_user_id, body,
               to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') as created_at, edited_at
          from comments order by created_at`,
  );
  const row = (id: string, type: string, authorId: string | null, userId: string | null, body: string, day: string) => ({
    id,
    organization_id: org,
    record_kind: 'contact',
    record_id: ada,
    contact_id: ada,
    author_type: type,
    author_id: authorId,
    author_user_id: userId,
    body,
    created_at: `2024-02-0${day}T10:00:00`,
    edited_at: null,
  });
  assert.deepEqual(comments, [
    row(byUser, 'user', user, user, 'by a person', '1'),
    row(byKey, 'api_key', key, null, 'by a script', '2'),
    row(bySystem, 'system', null, null, 'by Parley', '3'),
  ]);
  assert.deepEqual(await rows(sql`select to_regclass('contact_notes') as t`), [{ t: null }], 'the notes table is gone');

  // The contact's deletion takes its comments (the generated contact_id's foreign key).
  await database.db.execute(sql`delete from contacts where id = ${ada}`);
  assert.deepEqual(await rows(sql`select id from comments`), []);
});

test('a merge brings the merged contacts’ comments, task links and relationships to the survivor, with no repeated or looping link', async () => {
  const older = await contact('Older', '2024-03-01T00:00:00Z');
  const younger = await contact('Younger', '2024-03-02T00:00:00Z');
  const youngest = await contact('Youngest', '2024-03-03T00:00:00Z');
  const [acme, globex] = [uuidv7(), uuidv7()];
  await database.db.execute(
    sql`insert into companies (id, organization_id, name) values (${acme}, ${org}, 'Acme'), (${globex}, ${org}, 'Globex')`,
  );
  const [worksAt, colleague] = [uuidv7(), uuidv7()];
  await database.db.execute(sql`
    insert into relationship_labels (id, organization_id, name, inverse_name, from_kind, to_kind) values
      (${worksAt}, ${org}, 'works at', 'employs', 'contact', 'company'),
      (${colleague}, ${org}, 'colleague', null, 'contact', 'contact')`);
  const link = async (label: string, fromKind: string, from: string, toKind: string, to: string) => {
    const id = uuidv7();
    await database.db.execute(sql`
      insert into relationships (id, organization_id, label_id, from_kind, from_id, to_kind, to_id, created_by_type)
      values (${id}, ${org}, ${label}, ${fromKind}, ${from}, ${toKind}, ${to}, 'system')`);
    return id;
  };
  const olderAtAcme = await link(worksAt, 'contact', older, 'company', acme);
  await link(worksAt, 'contact', younger, 'company', acme); // repeats the survivor's
  const youngerAtGlobex = await link(worksAt, 'contact', younger, 'company', globex);
  await link(worksAt, 'contact', youngest, 'company', globex); // repeats another merged one's
  await link(colleague, 'contact', older, 'contact', younger); // would loop
  await link(colleague, 'contact', youngest, 'contact', younger); // repeats the survivor's once merged
  const [task, other] = [uuidv7(), uuidv7()];
  await database.db.execute(sql`
    insert into tasks (id, organization_id, title, created_by_type) values (${task}, ${org}, 'Both', 'system'), (${other}, ${org}, 'Younger''s', 'system')`);
  await database.db.execute(sql`
    insert into task_targets (task_id, organization_id, record_kind, record_id) values
      (${task}, ${org}, 'contact', ${older}), (${task}, ${org}, 'contact', ${younger}), (${other}, ${org}, 'contact', ${youngest})`);
  const note = uuidv7();
  await database.db.execute(sql`
    insert into comments (id, organization_id, record_kind, record_id, author_type, body) values (${note}, ${org}, 'contact', ${younger}, 'system', 'a note')`);

  const { survivor } = await database.db.transaction((tx) => mergeContacts(tx, org, [youngest, older, younger], new Date()));
  assert.equal(survivor.id, older);

  assert.deepEqual(await rows(sql`select id, record_id, contact_id from comments where id = ${note}`), [
    { id: note, record_id: older, contact_id: older },
  ]);
  assert.deepEqual(
    (await rows<{ task_id: string; record_id: string }>(sql`select task_id, record_id from task_targets order by task_id`)).map((r) => [
      r.task_id,
      r.record_id,
    ]),
    [
      [task, older],
      [other, older],
    ].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
  );
  const links = await rows<{ id: string; label_id: string; from_id: string; to_id: string; from_contact_id: string }>(
    sql`select id, label_id, from_id, to_id, from_contact_id from relationships order by id`,
  );
  assert.deepEqual(
    links.map((l) => [l.label_id, l.from_id, l.to_id, l.from_contact_id]),
    [
      [worksAt, older, acme, older],
      [worksAt, older, globex, older],
    ],
  );
  assert.deepEqual(
    links.map((l) => l.id),
    [olderAtAcme, youngerAtGlobex],
    'the survivor’s own link, and the oldest of the merged ones’ links to Globex, kept with their ids',
  );
});

test('a merge brings every kind to the survivor: identities, tags, consents, suppressions, conversations, messages and deal links', async () => {
  const keep = await contact('Keep', '2024-04-01T00:00:00Z');
  const dup = await contact('Dup', '2024-04-02T00:00:00Z');
  const [pipeline, stage, shared, own] = [uuidv7(), uuidv7(), uuidv7(), uuidv7()];
  await database.db.execute(sql`insert into pipelines (id, organization_id, name) values (${pipeline}, ${org}, 'Merge')`);
  await database.db.execute(sql`
    insert into pipeline_stages (id, organization_id, pipeline_id, name, probability, kind, position)
    values (${stage}, ${org}, ${pipeline}, 'New', 10, 'open', 0)`);
  await database.db.execute(sql`
    insert into deals (id, organization_id, name, pipeline_id, stage_id, stage_entered_at) values
      (${shared}, ${org}, 'Both', ${pipeline}, ${stage}, now()), (${own}, ${org}, 'Dup''s', ${pipeline}, ${stage}, now())`);
  await database.db.execute(sql`
    insert into deal_contacts (deal_id, contact_id, organization_id) values
      (${shared}, ${keep}, ${org}), (${shared}, ${dup}, ${org}), (${own}, ${dup}, ${org})`);
  await database.db.execute(sql`
    insert into contact_identities (id, organization_id, contact_id, type, value) values
      (${uuidv7()}, ${org}, ${dup}, 'email', 'dup-merge@example.com')`);
  const tag = uuidv7();
  await database.db.execute(sql`insert into tags (id, organization_id, name) values (${tag}, ${org}, 'merge-vip')`);
  await database.db.execute(sql`insert into contact_tags (contact_id, tag_id, organization_id) values (${dup}, ${tag}, ${org})`);
  await database.db.execute(sql`
    insert into contact_consents (id, organization_id, contact_id, channel, state, recorded_at) values
      (${uuidv7()}, ${org}, ${dup}, 'all', 'granted', now())`);
  await database.db.execute(sql`
    insert into contact_suppressions (id, organization_id, contact_id, channel, reason) values
      (${uuidv7()}, ${org}, ${dup}, 'chatapp', 'asked')`);
  const [conversation, message] = [uuidv7(), uuidv7()];
  await database.db.execute(sql`
    insert into conversations (id, organization_id, channel_id, peer_phone, contact_id) values (${conversation}, ${org}, ${uuidv7()}, '4915100000001', ${dup})`);
  await database.db.execute(sql`
    insert into messages (id, organization_id, channel_id, conversation_id, contact_id, direction, to_phone, type, content, status)
    values (${message}, ${org}, ${uuidv7()}, ${conversation}, ${dup}, 'inbound', '4915100000002', 'text', '{"body":"hi"}'::jsonb, 'received')`);

  const { survivor, merged } = await database.db.transaction((tx) => mergeContacts(tx, org, [dup, keep], new Date()));
  assert.equal(survivor.id, keep);
  assert.deepEqual(
    merged.map((m) => m.id),
    [dup],
  );
  const one = async (query: ReturnType<typeof sql>) => (await rows<{ n: number }>(query))[0]!.n;
  assert.deepEqual(
    (await rows<{ deal_id: string }>(sql`select deal_id from deal_contacts where contact_id = ${keep} order by deal_id`)).map(
      (r) => r.deal_id,
    ),
    [shared, own].sort(),
    'the duplicate’s deals now list the survivor (once, where both were)',
  );
  assert.equal(await one(sql`select count(*)::int as n from contact_identities where contact_id = ${keep} and type = 'email'`), 1);
  assert.equal(await one(sql`select count(*)::int as n from contact_tags where contact_id = ${keep}`), 1);
  assert.equal(await one(sql`select count(*)::int as n from contact_consents where contact_id = ${keep}`), 1);
  assert.equal(await one(sql`select count(*)::int as n from contact_suppressions where contact_id = ${keep}`), 1);
  assert.equal(await one(sql`select count(*)::int as n from conversations where contact_id = ${keep}`), 1);
  assert.equal(await one(sql`select count(*)::int as n from messages where contact_id = ${keep}`), 1);
  assert.equal(await one(sql`select count(*)::int as n from contacts where id = ${dup}`), 0);
});
