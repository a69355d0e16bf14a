/**
 * Statements sent often go named on PostgreSQL (src/db/auto-prepare.ts): each connection parses and
 * plans them once. Checked on the connection itself (pg_prepared_statements), through drizzle, in and
 * out of transactions, and when a prepared `select *` sees its table gain a column.
 * PostgreSQL only: PGlite has no named statements.
 */
// stores: postgres
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { AUTO_PREPARE } from '../../src/db/auto-prepare.ts';
import { openDatabase, queryRows, type Database } from '../../src/db/client.ts';
import { createTestDatabaseUrl, usingPostgres, type TestDatabaseUrl } from '../harness.ts';

const skip = !usingPostgres && 'PostgreSQL only (PGlite has no named statements)';
let fresh: TestDatabaseUrl | undefined;
let database: Database;

before(async () => {
  if (!usingPostgres) return;
  fresh = await createTestDatabaseUrl();
  // One connection: what it has prepared is what every call went through.
  database = await openDatabase({ kind: 'postgres', url: fresh.url, poolSize: 1 });
  await database.db.execute(sql`create table items (id int primary key, label text not null)`);
  await database.db.execute(sql`insert into items values (1, 'one'), (2, 'two')`);
});
after(async () => {
  await database?.close();
  await fresh?.drop();
});

/** The texts the connection holds prepared (this query has no parameters, so it is never named itself). */
async function preparedTexts(): Promise<string[]> {
  return (await queryRows<{ statement: string }>(database.db, sql`select statement from pg_prepared_statements`)).map((r) => r.statement);
}

const holds = (texts: string[], fragment: string) => texts.some((t) => t.includes(fragment));

test('a statement sent often is prepared on its connection; one sent rarely, or without parameters, is not', { skip }, async () => {
  for (let i = 0; i < AUTO_PREPARE.minUses + 2; i++) {
    const [row] = await queryRows<{ label: string }>(database.db, sql`select label from items where id = ${1 + (i % 2)} /* often */`);
    assert.equal(row?.label, i % 2 === 0 ? 'one' : 'two');
  }
  await queryRows(database.db, sql`select label from items where id = ${1} /* rarely */`);
  for (let i = 0; i < AUTO_PREPARE.minUses + 2; i++)
    await queryRows(database.db, sql`select label from items where id = 1 /* no parameters */`);
  const texts = await preparedTexts();
  assert.ok(holds(texts, '/* often */'), `prepared: ${JSON.stringify(texts)}`);
  assert.ok(!holds(texts, '/* rarely */'), `prepared: ${JSON.stringify(texts)}`);
  assert.ok(!holds(texts, '/* no parameters */'), `prepared: ${JSON.stringify(texts)}`);
});

test('inside transactions too, and a rolled-back transaction leaves the statement usable', { skip }, async () => {
  for (let i = 0; i < AUTO_PREPARE.minUses + 1; i++) {
    await database.db.transaction(async (tx) => {
      const [row] = await queryRows<{ label: string }>(tx, sql`select label from items where id = ${2} /* in a transaction */`);
      assert.equal(row?.label, 'two');
    });
  }
  await assert.rejects(
    database.db.transaction(async (tx) => {
      await queryRows(tx, sql`select label from items where id = ${2} /* in a transaction */`);
      throw new Error('rolled back');
    }),
    /rolled back/,
  );
  const [row] = await queryRows<{ label: string }>(database.db, sql`select label from items where id = ${2} /* in a transaction */`);
  assert.equal(row?.label, 'two');
  assert.ok(holds(await preparedTexts(), '/* in a transaction */'));
});

test('a prepared select * whose table gains a column answers with it outside a transaction; inside one it fails once, then the connection prepares it anew', {
  skip,
}, async () => {
  const read = (executor: Parameters<typeof queryRows>[0] = database.db) =>
    queryRows<Record<string, unknown>>(executor, sql`select * from items where id = ${1} /* star */`);
  for (let i = 0; i < AUTO_PREPARE.minUses + 1; i++) assert.deepEqual(await read(), [{ id: 1, label: 'one' }]);
  assert.ok(holds(await preparedTexts(), '/* star */'));

  await database.db.execute(sql`alter table items add column colour text not null default 'red'`);
  assert.deepEqual(await read(), [{ id: 1, label: 'one', colour: 'red' }]);

  await database.db.execute(sql`alter table items add column size int not null default 3`);
  await assert.rejects(
    database.db.transaction(async (tx) => read(tx)),
    (err: unknown) =>
      /cached plan must not change result type/.test(String((err as Error).message) + String((err as { cause?: Error }).cause?.message)),
  );
  assert.deepEqual(await read(), [{ id: 1, label: 'one', colour: 'red', size: 3 }]);
  await database.db.transaction(async (tx) => assert.deepEqual(await read(tx), [{ id: 1, label: 'one', colour: 'red', size: 3 }]));
});
