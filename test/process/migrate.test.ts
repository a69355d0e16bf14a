/**
 * Migrations: `node src/main.ts migrate` applies them and exits; runs at the same moment (two pools,
 * two processes) apply each exactly once, and two services starting together bootstrap once.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import pg from 'pg';
import { openDatabase, queryRows, type Database } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { bootstrap } from '../../src/domain/organizations/bootstrap.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { sql } from 'drizzle-orm';
import { createTestDatabaseUrl, request } from '../harness.ts';
import { createDeployment, lockFile, runService, usingPostgres, type ServiceProcess } from './service.ts';

const journal = JSON.parse(readFileSync(new URL('../../src/db/migrations/meta/_journal.json', import.meta.url), 'utf8')) as {
  entries: Array<{ tag: string }>;
};
const TAGS = journal.entries.map((e) => e.tag);

async function runToExit(service: ServiceProcess, timeoutMs = 90_000) {
  const exit = await Promise.race([service.exited, new Promise<'late'>((r) => setTimeout(() => r('late'), timeoutMs).unref())]);
  assert.notEqual(exit, 'late', `did not exit within ${timeoutMs} ms\n${service.stdout}\n${service.stderr}`);
  return exit as Exclude<typeof exit, 'late'>;
}

async function migrationRows(database: Database) {
  return queryRows<{ tag: string; n: number }>(
    database.db,
    sql`select tag, count(*)::int as n from parley_migrations group by tag order by tag`,
  );
}

test('`node src/main.ts migrate` applies the migrations on an empty DATA_DIR and exits 0; a second run has nothing to do', async () => {
  const deployment = await createDeployment({ fresh: true });
  let service: ServiceProcess | undefined;
  try {
    service = await runService({ dataDir: deployment.dataDir, env: deployment.env, args: ['migrate'] });
    assert.deepEqual(await runToExit(service), { code: 0, signal: null }, service.stderr);
    const first = service.logs();
    assert.deepEqual(
      first.map((l) => l.msg),
      ['applied database migrations'],
      service.stdout,
    );
    assert.deepEqual(first[0]!.applied, TAGS);
    assert.equal(service.stderr, '');
    // It only migrates: no server, no bootstrap, no banner; the embedded database is released.
    assert.ok(!service.stdout.includes('Parley is ready'));
    if (!usingPostgres) assert.equal(existsSync(lockFile(deployment.dataDir)), false);

    service = await runService({ dataDir: deployment.dataDir, env: deployment.env, args: ['migrate'] });
    assert.deepEqual(await runToExit(service), { code: 0, signal: null }, service.stderr);
    const second = service.logs();
    assert.deepEqual(
      second.map((l) => l.msg),
      ['database is up to date'],
      service.stdout,
    );
    assert.deepEqual(second[0]!.applied, []);
  } finally {
    service?.kill();
    await service?.exited;
    await deployment.cleanup();
  }
});

test('an unknown command stops with exit code 1 and says which commands there are', async () => {
  const deployment = await createDeployment({ fresh: true });
  try {
    const service = await runService({ dataDir: deployment.dataDir, env: deployment.env, args: ['migrat'] });
    assert.deepEqual(await runToExit(service), { code: 1, signal: null });
    assert.match(service.stderr, /^parley: unknown command "migrat": use serve or migrate\n$/);
    assert.equal(service.stdout, '');
  } finally {
    await deployment.cleanup();
  }
});

test('migrate() run at the same moment applies each migration exactly once, and bootstrap() creates one organization', async () => {
  const fresh = usingPostgres ? await createTestDatabaseUrl() : undefined;
  const databases: Database[] = [];
  try {
    if (fresh) {
      // Separate pools: separate sessions, as separate processes would have.
      for (let i = 0; i < 3; i++) databases.push(await openDatabase({ kind: 'postgres', url: fresh.url, poolSize: 2 }));
    } else {
      const shared = await openDatabase({ kind: 'pglite', dataDir: null });
      databases.push(shared, shared, shared);
    }
    const results = await Promise.all(databases.map((database) => migrate(database)));
    const applied = results.flatMap((r) => r.applied).sort();
    assert.deepEqual(applied, [...TAGS].sort(), `applied: ${JSON.stringify(results)}`);
    assert.deepEqual(
      await migrationRows(databases[0]!),
      TAGS.map((tag) => ({ tag, n: 1 })),
    );

    const settings = { organizationName: 'Race', adminEmail: undefined, adminPassword: undefined, apiKey: undefined };
    const boots = await Promise.all(databases.map((database) => bootstrap(database, settings, systemClock)));
    assert.equal(boots.filter((b) => b.created).length, 1, JSON.stringify(boots));
    const [counts] = await queryRows<{ organizations: number; users: number; keys: number }>(
      databases[0]!.db,
      sql`select (select count(*)::int from organizations) as organizations, (select count(*)::int from users) as users, (select count(*)::int from api_keys) as keys`,
    );
    assert.deepEqual(counts, { organizations: 1, users: 1, keys: 1 });
  } finally {
    for (const database of new Set(databases)) await database.close();
    await fresh?.drop();
  }
});

test('two services started at the same moment on one fresh PostgreSQL database both come up, and one organization is bootstrapped', {
  skip: usingPostgres ? false : 'needs TEST_DATABASE_URL',
}, async () => {
  const deployment = await createDeployment({ fresh: true });
  const services: ServiceProcess[] = [];
  try {
    services.push(...(await Promise.all([0, 1].map(() => runService({ dataDir: deployment.dataDir, env: deployment.env })))));
    await Promise.all(services.map((s) => s.waitReady()));
    for (const service of services) {
      const health = await request(service, 'GET', '/v1/health');
      assert.equal(health.status, 200, health.text);
      assert.equal(health.body.components.queue.status, 'up', health.text);
    }

    const banners = services.filter((s) => s.stdout.includes('Parley is ready'));
    assert.equal(banners.length, 1, 'exactly one of the two must print the first-start banner');
    const migrated = services.filter((s) => s.logs().some((l) => l.msg === 'applied database migrations'));
    assert.equal(migrated.length, 1, 'exactly one of the two must apply the migrations');
    // The key from the one banner works on both.
    const apiKey = /^ {2}API key:\s+(\S+)$/m.exec(banners[0]!.stdout)?.[1];
    assert.ok(apiKey);
    for (const service of services) assert.equal((await request(service, 'GET', '/v1/channels', { key: apiKey })).status, 200);

    const client = new pg.Client({ connectionString: deployment.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ organizations: number; users: number; keys: number; migrations: number }>(
        'select (select count(*)::int from organizations) as organizations, (select count(*)::int from users) as users, (select count(*)::int from api_keys) as keys, (select count(*)::int from parley_migrations) as migrations',
      );
      assert.deepEqual(rows[0], { organizations: 1, users: 1, keys: 1, migrations: TAGS.length });
    } finally {
      await client.end();
    }

    for (const service of services) {
      assert.deepEqual(await service.stop(), { code: 0, signal: null }, service.stderr);
      assert.ok(!service.logs().some((l) => l.level === 'error' || l.level === 'fatal'), service.stdout);
    }
  } finally {
    for (const service of services) service.kill();
    await Promise.all(services.map((s) => s.exited));
    await deployment.cleanup();
  }
});
