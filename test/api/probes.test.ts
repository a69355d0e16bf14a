/**
 * Liveness (GET /livez: the process answers, whatever the database does) and readiness (GET
 * /readyz: 503 while the database does not answer or while migrations are being applied to it).
 * The database cut under running processes is in test/process/database-outage.test.ts.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { openDatabase } from '../../src/db/client.ts';
import { checkReadiness } from '../../src/db/readiness.ts';
import { MIGRATION_LOCK_KEY, MIGRATIONS_APPLYING_KEY, markMigrationsApplying, migrate } from '../../src/db/migrate.ts';
import { eventually } from '../eventually.ts';
import { createTestDatabaseUrl, request, startTestServer, usingPostgres, type TestServer } from '../harness.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

test('GET /livez and GET /readyz answer 200 without a credential while all is well', async () => {
  const live = await request(server, 'GET', '/livez');
  assert.equal(live.status, 200);
  assert.deepEqual(live.body, { status: 'alive' });
  const ready = await request(server, 'GET', '/readyz');
  assert.equal(ready.status, 200);
  assert.deepEqual(ready.body, { status: 'ready' });
  assert.equal(ready.headers.get('cache-control'), 'no-store');
});

test('GET /readyz answers 503 naming the database once it stops answering; /livez stays 200', async () => {
  const other = await startTestServer();
  try {
    await other.container.queue.stop({ graceful: false, timeoutMs: 100 });
    await other.container.database.close();
    const ready = await request(other, 'GET', '/readyz');
    assert.equal(ready.status, 503);
    assert.equal(ready.body.status, 'not_ready');
    assert.match(ready.body.reason, /database/);
    assert.equal(ready.headers.get('retry-after'), '5');
    assert.equal((await request(other, 'GET', '/livez')).status, 200);
  } finally {
    await other.app.close();
  }
});

test('GET /readyz answers 503 while another process applies migrations, 200 once they are done', {
  skip: !usingPostgres && 'PostgreSQL only (the embedded database serves one process)',
}, async () => {
  const migration = await holdMigrationMark(server.databaseUrl!);
  try {
    const during = await eventually('readiness to fail', async () => {
      const res = await request(server, 'GET', '/readyz');
      return res.status === 503 ? res : undefined;
    });
    assert.equal(during.body.reason, 'database migrations are being applied');
    // Liveness never looks at the database.
    assert.equal((await request(server, 'GET', '/livez')).status, 200);
    await migration.release();
    await eventually('readiness to come back', async () => ((await request(server, 'GET', '/readyz')).status === 200 ? true : undefined));
  } finally {
    await migration.release();
  }
});

test('readiness stays ready while migrations are applied to another database on the same server', {
  skip: !usingPostgres && 'PostgreSQL only',
}, async () => {
  const other = await createTestDatabaseUrl();
  const migration = await holdMigrationMark(other.url);
  try {
    // The mark is held (in the other database) while this database's readiness is checked (directly:
    // the route reuses an answer for a second).
    assert.deepEqual(await checkReadiness(server.container.database), { ready: true });
  } finally {
    await migration.release();
    await other.drop();
  }
});

/** Holds what migrate() holds around the statements it applies (src/db/migrate.ts) on a database, until released. */
async function holdMigrationMark(url: string): Promise<{ release(): Promise<void> }> {
  const migrator = await openDatabase({ kind: 'postgres', url });
  let letGo!: () => void;
  const released = new Promise<void>((resolve) => (letGo = resolve));
  let holding!: () => void;
  const held = new Promise<void>((resolve) => (holding = resolve));
  const migrating = migrator.withAdvisoryLock(MIGRATION_LOCK_KEY, async (tx) => {
    await markMigrationsApplying(tx);
    holding();
    await released;
  });
  await Promise.race([held, migrating]);
  let done: Promise<void> | undefined;
  return {
    release: () =>
      (done ??= (async () => {
        letGo();
        await migrating.finally(() => migrator.close());
      })()),
  };
}

test('migrate() marks the database as being migrated while it applies migrations', {
  skip: !usingPostgres && 'PostgreSQL only',
}, async () => {
  const fresh = await createTestDatabaseUrl();
  const database = await openDatabase({ kind: 'postgres', url: fresh.url });
  const watcher = new pg.Client({ connectionString: fresh.url });
  await watcher.connect();
  try {
    // The watcher holds the name of the first table the migrations create in an open transaction, so
    // the migrations stop there, mid-way, until it lets go: the mark is looked for while they wait.
    await watcher.query('begin');
    await watcher.query('create table api_keys (id int)');
    const migrating = migrate(database);
    const marked = async () => {
      const { rows } = await watcher.query(
        `select count(*)::int as n from pg_locks where locktype = 'advisory' and classid = 0 and objid = $1 and objsubid = 1 and granted and database = (select oid from pg_database where datname = current_database())`,
        [MIGRATIONS_APPLYING_KEY],
      );
      return rows[0].n > 0;
    };
    await eventually('the migrations to mark the database while they wait on the watcher', marked);
    await watcher.query('rollback');
    const { applied } = await migrating;
    assert.ok(applied.length > 1);
    assert.equal(await marked(), false, 'released with the migrations');
  } finally {
    await watcher.end();
    await database.close();
    await fresh.drop();
  }
});
