/**
 * Contact lookup by phone and by external id with 1,000,000 contacts in PostgreSQL, over HTTP,
 * against baselines measured in the same run: the bare `select 1` round trip to the same server, and
 * GET /v1/health (no credential, two trivial queries).
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/contacts-lookup.ts [--contacts 1000000] [--requests 3000] [--rounds 5 (or --runs 5)]
 *     [--keep]                 keep the seeded database and print its URL
 *     [--database-url <url>]   measure on a database seeded by an earlier --keep run (no seeding)
 *
 * The service runs as its own process (`node src/main.ts`, API role, log level warn) on a fresh
 * database made on TEST_DATABASE_URL's server; rows are generated inside PostgreSQL
 * (INSERT ... SELECT generate_series). The bench sends one request at a time over one keep-alive
 * connection, each for a random contact, phone numbers in every common format. Target: p99 under 5 ms.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Pool } from 'undici';
import { randomToken } from '../src/lib/crypto.ts';
import { machine, median, ms, percentile, writeSection } from './bench-report.ts';
import { createTestDatabaseUrl, freePort } from '../test/harness.ts';

const { values } = parseArgs({
  options: {
    contacts: { type: 'string', default: '1000000' },
    requests: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '5' },
    // bench/run-all.ts passes every benchmark --runs N --write: a run here is a round (the section is always written).
    runs: { type: 'string' },
    write: { type: 'boolean', default: false },
    concurrency: { type: 'string', default: '8' },
    keep: { type: 'boolean', default: false },
    'database-url': { type: 'string' },
  },
});
const CONTACTS = Number(values.contacts);
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.runs ?? values.rounds);
const CONCURRENCY = Number(values.concurrency);
if (!process.env.TEST_DATABASE_URL && !values['database-url']) {
  console.error('set TEST_DATABASE_URL to a PostgreSQL server (a fresh database is made on it), or pass --database-url of a kept one');
  process.exit(2);
}

const fresh = values['database-url'] ? undefined : await createTestDatabaseUrl();
const databaseUrl = values['database-url'] ?? fresh!.url;
const header = machine();
const port = await freePort();
const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-bench-'));
const apiKey = `prl_bench_${randomToken(24)}`;
const service = spawn(process.execPath, [path.join(import.meta.dirname, '..', 'src', 'main.ts')], {
  env: {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    ROLES: 'api',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
    BOOTSTRAP_ADMIN_EMAIL: 'bench@example.com',
    BOOTSTRAP_ADMIN_PASSWORD: 'correct horse battery staple',
    BOOTSTRAP_API_KEY: apiKey,
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const client = new pg.Client({ connectionString: databaseUrl });

try {
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const ok = await fetch(`${baseUrl}/v1/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (i > 600) throw new Error('the service did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  await client.connect();
  const { rows: orgs } = await client.query<{ id: string }>('select id from organizations order by created_at limit 1');
  const org = orgs[0]!.id;
  // On a kept database the bootstrap key is that run's: make one for this run.
  await client.query(
    `insert into api_keys (id, organization_id, name, prefix, last_four, secret_hash, permissions)
     values (gen_random_uuid(), $1, 'bench', $2, $3, encode(sha256($4::bytea), 'hex'), '{contacts:read}') on conflict do nothing`,
    [org, apiKey.slice(0, 8), apiKey.slice(-4), apiKey],
  );
  const { version } = (await client.query<{ version: string }>('select version()')).rows[0]!;

  let seedSeconds = 0;
  const existing = Number((await client.query('select count(*) as n from contacts where organization_id = $1', [org])).rows[0].n);
  if (existing < CONTACTS) {
    const t = performance.now();
    await client.query(
      `insert into contacts (id, organization_id, phone_number, name, email, external_source, external_id, custom_fields, created_at, updated_at)
       select gen_random_uuid(), $1, '+1415' || lpad(g::text, 7, '0'), 'Contact ' || g, 'c' || g || '@bench.example', 'crm', 'ext-' || g,
              jsonb_build_object('n', g), now() - make_interval(secs => g), now()
         from generate_series($2::int, $3::int) g`,
      [org, existing, CONTACTS - 1],
    );
    await client.query(
      `insert into contact_identities (id, organization_id, contact_id, type, source, value, created_at)
       select gen_random_uuid(), c.organization_id, c.id, k.type, k.source, k.value, now()
         from contacts c
        cross join lateral (values ('phone', '', c.phone_number), ('external_id', c.external_source, c.external_id), ('email', '', lower(c.email))) as k(type, source, value)
        where c.organization_id = $1
       on conflict do nothing`,
      [org],
    );
    await client.query(`insert into tags (id, organization_id, name) values (gen_random_uuid(), $1, 'vip') on conflict do nothing`, [org]);
    await client.query(
      `insert into contact_tags (contact_id, tag_id, organization_id)
       select c.id, t.id, $1 from contacts c, tags t
        where c.organization_id = $1 and t.organization_id = $1 and c.external_id like '%0'
       on conflict do nothing`,
      [org],
    );
    for (const table of ['contacts', 'contact_identities', 'contact_tags']) await client.query(`vacuum analyze ${table}`);
    seedSeconds = (performance.now() - t) / 1000;
  }
  const counts = (
    await client.query<{ contacts: number; identities: number }>(
      'select (select count(*)::int from contacts) as contacts, (select count(*)::int from contact_identities) as identities',
    )
  ).rows[0]!;
  console.log(
    `${counts.contacts} contacts, ${counts.identities} identities${seedSeconds ? ` (seeded in ${seedSeconds.toFixed(0)} s)` : ''}`,
  );

  const http = new Pool(baseUrl, { connections: CONCURRENCY, pipelining: 1 });
  const headers = { 'x-api-key': apiKey, 'content-type': 'application/json', accept: 'application/json' };
  const random = () => Math.floor(Math.random() * CONTACTS);
  /** The number as a person might write it. */
  const written = (n: number) => {
    const d = String(n).padStart(7, '0');
    return [
      `+1 415 ${d.slice(0, 3)} ${d.slice(3)}`,
      `001-415-${d.slice(0, 3)}-${d.slice(3)}`,
      `(+1) 415.${d.slice(0, 3)}.${d.slice(3)}`,
      `1415${d}`,
    ][n % 4]!;
  };
  const expect = async (promise: ReturnType<Pool['request']>, n: number | undefined) => {
    const res = await promise;
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}: ${text.slice(0, 200)}`);
    if (n !== undefined && !text.includes(`"external_id":"ext-${n}"`)) throw new Error(`wrong contact for ${n}: ${text.slice(0, 200)}`);
  };
  const lookup = (identifier: object, n: number) =>
    expect(http.request({ path: '/v1/contacts/lookup', method: 'POST', headers, body: JSON.stringify({ identifiers: [identifier] }) }), n);
  type Scenario = { name: string; run: (n: number) => Promise<unknown> };
  const scenarios: Scenario[] = [
    { name: 'baseline: select 1 (round trip to the same server)', run: () => client.query('select 1') },
    { name: 'baseline: GET /v1/health', run: () => expect(http.request({ path: '/v1/health', method: 'GET' }), undefined) },
    { name: 'POST /v1/contacts/lookup by phone', run: (n) => lookup({ type: 'phone', value: written(n) }, n) },
    { name: 'POST /v1/contacts/lookup by external id', run: (n) => lookup({ type: 'external_id', source: 'crm', value: `ext-${n}` }, n) },
    {
      name: 'GET /v1/contacts/phone/{phone}',
      run: (n) => expect(http.request({ path: `/v1/contacts/phone/${encodeURIComponent(written(n))}`, method: 'GET', headers }), n),
    },
  ];

  type Result = { p50: number; p90: number; p99: number; max: number; rps: number };
  async function measure(s: Scenario, concurrency: number): Promise<Result> {
    for (let i = 0; i < 200; i++) await s.run(random());
    const latencies: number[] = [];
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < REQUESTS) {
          next++;
          const n = random();
          const t0 = performance.now();
          await s.run(n);
          latencies.push(performance.now() - t0);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      p50: percentile(latencies, 50),
      p90: percentile(latencies, 90),
      p99: percentile(latencies, 99),
      max: latencies.at(-1)!,
      rps: REQUESTS / seconds,
    };
  }

  const results = new Map<string, Result[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of scenarios) {
      const r = await measure(s, 1);
      results.set(s.name, [...(results.get(s.name) ?? []), r]);
      console.log(`round ${round + 1} ${s.name}: p50 ${ms(r.p50)} p99 ${ms(r.p99)} max ${ms(r.max)}`);
    }
  }
  const concurrent = new Map<string, Result>();
  for (const s of scenarios.slice(1)) {
    const r = await measure(s, CONCURRENCY);
    concurrent.set(s.name, r);
    console.log(`c=${CONCURRENCY} ${s.name}: p50 ${ms(r.p50)} p99 ${ms(r.p99)} ${r.rps.toFixed(0)} req/s`);
  }
  await http.close();

  const med = (name: string, key: keyof Result) => median(results.get(name)!.map((r) => r[key]));
  const best = (name: string, key: keyof Result) => Math.min(...results.get(name)!.map((r) => r[key]));
  /** The median over rounds of this scenario's value divided by the baseline's in the same round. */
  const ratio = (name: string, base: string, key: keyof Result) =>
    median(results.get(name)!.map((r, i) => r[key] / results.get(base)![i]![key]));
  const [select1, health] = [scenarios[0]!.name, scenarios[1]!.name];
  const rows = scenarios
    .map(
      (s) =>
        `| ${s.name} | ${ms(med(s.name, 'p50'))} | ${ms(med(s.name, 'p90'))} | **${ms(med(s.name, 'p99'))}** | ${ms(best(s.name, 'p99'))} | ${ms(med(s.name, 'max'))} | ` +
        `${ratio(s.name, select1, 'p50').toFixed(1)}× | ${ratio(s.name, health, 'p50').toFixed(2)}× | ${ratio(s.name, health, 'p99').toFixed(2)}× |`,
    )
    .join('\n');
  const concurrentRows = [...concurrent].map(([name, r]) => `| ${name} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.rps.toFixed(0)} |`).join('\n');
  const report = `## Contacts lookup (bench/contacts-lookup.ts)

Command: \`TEST_DATABASE_URL=postgres://... node bench/contacts-lookup.ts --contacts ${CONTACTS} --requests ${REQUESTS} --rounds ${ROUNDS}\` (${new Date().toISOString().slice(0, 10)})

${header}
- Database: ${version.split(' on ')[0]} on the same machine: ${counts.contacts.toLocaleString('en')} contacts, ${counts.identities.toLocaleString('en')} identities (phone, email and external id of each), every tenth contact tagged${seedSeconds ? `; seeded in ${seedSeconds.toFixed(0)} s` : ''}
- Service: \`node src/main.ts\` as its own process (API role, log level warn, pool of 10); client: undici, one keep-alive connection

One request at a time, ${REQUESTS.toLocaleString('en')} per scenario and round after 200 warm-up requests, each for a random contact (phone numbers in four written formats).
The scenarios take turns in each of ${ROUNDS} rounds, so a baseline and a lookup see the same machine; values are medians over the rounds (best round p99 beside), ratios are taken within a round.
Target: p99 under 5 ms.

| Scenario | p50 | p90 | p99 | best round p99 | max | p50 / select 1 | p50 / health | p99 / health p99 |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${rows}

With ${CONCURRENCY} requests in flight (one round):

| Scenario | p50 | p99 | Requests/s |
| --- | --- | --- | --- |
${concurrentRows}
`;
  console.log(report);
  writeSection('contacts-lookup', report);
} finally {
  await client.end().catch(() => undefined);
  service.kill('SIGTERM');
  await new Promise((r) => service.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
  if (fresh && values.keep) console.log(`kept the database: --database-url ${fresh.url}`);
  else await fresh?.drop();
}
