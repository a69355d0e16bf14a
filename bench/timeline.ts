/**
 * A contact's timeline (GET /v1/contacts/{contactID}/timeline) for a contact with 10,000 messages,
 * on PGlite and PostgreSQL. Target: the first page under 50 ms.
 *
 *   node bench/timeline.ts --pglite [--messages 10000] [--others 50000] [--requests 200] [--rounds 3 (or --runs 3)] [--write]
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/timeline.ts --pg [...]
 *
 * The service is built in this process (container and Fastify app; no worker started) on a fresh
 * database: in-memory PGlite, or a new database on TEST_DATABASE_URL's server. Rows are generated
 * inside the database (INSERT ... SELECT generate_series) at times spread over a year, below the
 * millisecond as now() writes them: the contact's messages (both directions), 200 comments, 40 tasks
 * (half completed), 5 deals with 4 stage changes each, 3 consents and 2 suppressions; and `--others`
 * messages of 500 other contacts beside them. Requests go through Fastify's inject (the whole
 * request path: authentication, validation, the statement, the presenter; no socket), one at a time.
 * The baseline, in the same run and process: GET /v1/contacts/{contactID}, one row on the same path.
 */
import { parseArgs } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../src/config.ts';
import { buildContainer, type Container } from '../src/container.ts';
import { openDatabase, queryRows, type Database } from '../src/db/client.ts';
import { buildApp } from '../src/http/app.ts';
import { getTimeline, timelineStatement, type TimelineKind } from '../src/domain/crm/timeline.ts';
import { createLogger } from '../src/lib/logger.ts';
import { machine, median, ms, percentile, writeSection } from './bench-report.ts';
import { freshPgDatabase } from './lib/common.ts';

const { values } = parseArgs({
  options: {
    pglite: { type: 'boolean', default: false },
    pg: { type: 'boolean', default: false },
    messages: { type: 'string', default: '10000' },
    others: { type: 'string', default: '50000' },
    requests: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    runs: { type: 'string' },
    write: { type: 'boolean', default: false },
    // Print EXPLAIN ANALYZE of the first page's statement (of these kinds, comma-separated; empty: every kind).
    explain: { type: 'string' },
  },
});
const MESSAGES = Number(values.messages);
const OTHERS = Number(values.others);
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.runs ?? values.rounds);
const TARGET_MS = 50;
const postgres = values.pg || (!values.pglite && Boolean(process.env.TEST_DATABASE_URL));
if (postgres && !process.env.TEST_DATABASE_URL) {
  console.error('set TEST_DATABASE_URL to a PostgreSQL server (a fresh database is made on it), or pass --pglite');
  process.exit(2);
}
const store = postgres ? 'PostgreSQL' : 'PGlite';

const header = machine();
const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-bench-timeline-'));
const fresh = postgres ? await freshPgDatabase() : undefined;
const database: Database = fresh
  ? await openDatabase({ kind: 'postgres', url: fresh.url, poolSize: 4 })
  : await openDatabase({ kind: 'pglite', dataDir: null });
let container: Container | undefined;

try {
  const apiKey = `prl_bench_${'t'.repeat(32)}`;
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
    BOOTSTRAP_ADMIN_EMAIL: 'bench@example.com',
    BOOTSTRAP_ADMIN_PASSWORD: 'correct horse battery staple',
    BOOTSTRAP_API_KEY: apiKey,
  });
  container = await buildContainer(config, { database, logger: createLogger({ level: 'warn' }) });
  const app = await buildApp(container);
  await app.ready();
  const result = container.bootstrapResult;
  if (!result.created) throw new Error('the bench database was not empty');
  const org = result.organizationId;
  const db = database.db;
  const version = postgres ? (await queryRows<{ version: string }>(db, sql`select version()`))[0]!.version : 'PGlite (in memory)';

  const t = performance.now();
  const contact = (
    await queryRows<{ id: string }>(
      db,
      sql`insert into contacts (id, organization_id, phone_number, name) values (gen_random_uuid(), ${org}, '+4915100000001', 'Busy Customer') returning id`,
    )
  )[0]!.id;
  const channel = (
    await queryRows<{ id: string }>(
      db,
      sql`insert into channels (id, organization_id, platform, name, status) values (gen_random_uuid(), ${org}, 'chatapp_official', 'Bench', 'connected') returning id`,
    )
  )[0]!.id;
  const conversation = (
    await queryRows<{ id: string }>(
      db,
      sql`insert into conversations (id, organization_id, channel_id, peer_phone, contact_id) values (gen_random_uuid(), ${org}, ${channel}, '4915100000001', ${contact}) returning id`,
    )
  )[0]!.id;
  // The contact's messages over a year, below the millisecond (as now() writes them).
  await db.execute(sql`
    insert into messages (id, organization_id, channel_id, conversation_id, contact_id, direction, to_phone, type, content, status, created_at, updated_at)
    select gen_random_uuid(), ${org}, ${channel}, ${conversation}, ${contact}, case when g % 2 = 0 then 'inbound' else 'outbound' end, '4915100000001',
           'text', jsonb_build_object('body', 'Message number ' || g || ' about order #' || (100000 + g)), case when g % 2 = 0 then 'received' else 'delivered' end,
           now() - make_interval(secs => (${MESSAGES} - g) * 3153.6 + (g % 7) * 0.000123), now()
      from generate_series(1, ${MESSAGES}::int) g`);
  // Other contacts' messages beside them.
  await db.execute(sql`
    insert into contacts (id, organization_id, phone_number, name)
    select gen_random_uuid(), ${org}, '+49160' || lpad(g::text, 8, '0'), 'Other ' || g from generate_series(1, 500) g`);
  await db.execute(sql`
    insert into messages (id, organization_id, channel_id, conversation_id, contact_id, direction, to_phone, type, content, status, created_at, updated_at)
    select gen_random_uuid(), ${org}, ${channel}, gen_random_uuid(), c.id, 'inbound', '49160', 'text', '{"body":"other"}'::jsonb, 'received',
           now() - make_interval(secs => g * 631.0), now()
      from generate_series(1, ${OTHERS}::int) g
      join lateral (select id from contacts where organization_id = ${org} and phone_number = '+49160' || lpad((1 + g % 500)::text, 8, '0')) c on true`);
  await db.execute(sql`
    insert into comments (id, organization_id, record_kind, record_id, author_type, body, created_at)
    select gen_random_uuid(), ${org}, 'contact', ${contact}, 'system', 'Note ' || g, now() - make_interval(hours => g * 43)
      from generate_series(1, 200) g`);
  await db.execute(sql`
    with made as (
      insert into tasks (id, organization_id, title, status, completed_at, completed_by_type, created_by_type, created_at, updated_at)
      select gen_random_uuid(), ${org}, 'Task ' || g, case when g % 2 = 0 then 'completed' else 'open' end,
             case when g % 2 = 0 then now() - make_interval(days => g * 9) end, case when g % 2 = 0 then 'system' end, 'system',
             now() - make_interval(days => g * 9 + 1), now()
        from generate_series(1, 40) g returning id)
    insert into task_targets (task_id, organization_id, record_kind, record_id) select id, ${org}, 'contact', ${contact} from made`);
  const stages = await queryRows<{ id: string; pipeline_id: string; name: string }>(
    db,
    sql`select s.id, s.pipeline_id, s.name from pipeline_stages s join pipelines p on p.id = s.pipeline_id
         where p.organization_id = ${org} and p.is_default order by s.position`,
  );
  for (let d = 0; d < 5; d++) {
    const deal = (
      await queryRows<{ id: string }>(
        db,
        sql`insert into deals (id, organization_id, name, pipeline_id, stage_id, stage_entered_at)
            values (gen_random_uuid(), ${org}, ${`Deal ${d}`}, ${stages[3]!.pipeline_id}, ${stages[3]!.id}, now()) returning id`,
      )
    )[0]!.id;
    await db.execute(sql`insert into deal_contacts (deal_id, contact_id, organization_id) values (${deal}, ${contact}, ${org})`);
    for (let s = 0; s < 4; s++)
      await db.execute(sql`
        insert into deal_stage_history (id, organization_id, deal_id, pipeline_id, stage_id, stage_name, entered_at, left_at, changed_by_type)
        values (gen_random_uuid(), ${org}, ${deal}, ${stages[s]!.pipeline_id}, ${stages[s]!.id}, ${stages[s]!.name},
                now() - make_interval(days => ${(5 - d) * 60 - s * 10}), ${s < 3 ? sql`now() - make_interval(days => ${(5 - d) * 60 - (s + 1) * 10})` : sql`null`}, 'system')`);
  }
  await db.execute(sql`
    insert into contact_consents (id, organization_id, contact_id, channel, state, recorded_at)
    values (gen_random_uuid(), ${org}, ${contact}, 'all', 'granted', now() - interval '300 days'),
           (gen_random_uuid(), ${org}, ${contact}, 'chatapp', 'revoked', now() - interval '20 days'),
           (gen_random_uuid(), ${org}, ${contact}, ${channel}, 'granted', now() - interval '100 days')`);
  await db.execute(sql`
    insert into contact_suppressions (id, organization_id, contact_id, channel, reason, created_at)
    values (gen_random_uuid(), ${org}, ${contact}, 'chatapp', 'asked to stop', now() - interval '20 days'),
           (gen_random_uuid(), ${org}, ${contact}, ${channel}, 'bounced', now() - interval '50 days')`);
  for (const table of ['messages', 'comments', 'tasks', 'task_targets', 'deal_stage_history', 'deal_contacts', 'contacts'])
    await db.execute(sql.raw(`analyze ${table}`));
  const seedSeconds = (performance.now() - t) / 1000;
  console.log(`${store}: seeded ${MESSAGES} + ${OTHERS} messages in ${seedSeconds.toFixed(1)} s`);

  if (values.explain !== undefined) {
    const kinds = values.explain ? (values.explain.split(',') as TimelineKind[]) : undefined;
    const statement = await timelineStatement(db, org, { kind: 'contact', id: contact }, { limit: 50, kinds });
    // The last of a few runs: the first pays for cold caches.
    let plan: Array<Record<string, string>> = [];
    for (let i = 0; i < 5; i++) plan = await queryRows<Record<string, string>>(db, sql`explain (analyze, buffers) ${statement!}`);
    console.log(plan.map((r) => Object.values(r)[0]).join('\n'));
  }
  const headers = { 'x-api-key': apiKey, accept: 'application/json' };
  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url, headers });
    if (res.statusCode !== 200) throw new Error(`${url}: status ${res.statusCode}: ${res.body.slice(0, 200)}`);
    return JSON.parse(res.body) as { data: Array<{ id: string; kind: string }>; meta?: { next_cursor: string | null } };
  };
  const base = `/v1/contacts/${contact}/timeline`;
  // Walk every page once: every item exactly once.
  const seen = new Set<string>();
  let cursor: string | null | undefined;
  let walked = 0;
  do {
    const page = await get(`${base}?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
    for (const item of page.data) seen.add(`${item.kind}:${item.id}:${(item as { action?: string }).action}`);
    walked += page.data.length;
    cursor = page.meta?.next_cursor;
  } while (cursor);
  const expected = MESSAGES + 200 + 40 + 20 + 20 + 3 + 2;
  if (seen.size !== expected || walked !== expected)
    throw new Error(`walking the pages saw ${seen.size} items (${walked} listed), not ${expected}`);
  // The cursor a client holds 180 pages of 50 in (item 9,000).
  let deepCursor: string | null | undefined;
  for (let i = 0, c: string | null | undefined; i < 45; i++) {
    const page = await get(`${base}?limit=200${c ? `&cursor=${c}` : ''}`);
    c = page.meta?.next_cursor;
    deepCursor = c;
  }

  const actor = { kind: 'system' as const, organizationId: org, permissions: new Set<never>() };
  type Scenario = { name: string; run: () => Promise<unknown> };
  const http = (name: string, url: string): Scenario => ({ name, run: () => get(url) });
  const scenarios: Scenario[] = [
    http('baseline: GET /v1/contacts/{id}', `/v1/contacts/${contact}`),
    http('first page (50)', `${base}?limit=50`),
    {
      name: 'first page (50), the domain function alone (no HTTP)',
      run: () => getTimeline({ db }, actor, { kind: 'contact', id: contact }, { limit: 50 }),
    },
    http('deep page (cursor after 9,000 items)', `${base}?limit=50&cursor=${deepCursor}`),
    http('kind=comment,task (no messages)', `${base}?limit=50&kind=comment,task`),
    http('kind=message', `${base}?limit=50&kind=message`),
    http('kind=deal_stage', `${base}?limit=50&kind=deal_stage`),
    http('kind=consent,suppression', `${base}?limit=50&kind=consent,suppression`),
  ];
  const times = new Map<string, number[][]>(scenarios.map((s) => [s.name, []]));
  for (const s of scenarios) for (let i = 0; i < 20; i++) await s.run();
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of scenarios) {
      const samples: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        const started = performance.now();
        await s.run();
        samples.push(performance.now() - started);
      }
      times.get(s.name)!.push(samples.sort((a, b) => a - b));
    }
  }
  const stat = (name: string, p: number) => median(times.get(name)!.map((samples) => percentile(samples, p)));
  const baseline = stat(scenarios[0]!.name, 50);
  const rows = scenarios.map((s) => {
    const p50 = stat(s.name, 50);
    return `| ${s.name} | ${ms(p50)} | **${ms(stat(s.name, 95))}** | ${ms(stat(s.name, 100))} | ${(p50 / baseline).toFixed(1)}× |`;
  });
  const first = stat(scenarios[1]!.name, 95);
  const body = `
## Contact timeline (bench/timeline.ts), ${store}

Command: \`${postgres ? 'TEST_DATABASE_URL=postgres://... ' : ''}node bench/timeline.ts ${postgres ? '--pg' : '--pglite'} --messages ${MESSAGES} --others ${OTHERS} --requests ${REQUESTS} --rounds ${ROUNDS}\` (${new Date().toISOString().slice(0, 10)})

${header}
- Database: ${version}${postgres ? ' on the same machine' : ''}, fresh: one contact with ${MESSAGES.toLocaleString('en')} messages, 200 comments, 40 tasks (20 completed), 5 deals with 4 stage changes each, 3 consents and 2 suppressions; ${OTHERS.toLocaleString('en')} messages of 500 other contacts; seeded in ${seedSeconds.toFixed(1)} s
- Service: built in the benchmark's process (no worker started, log level warn); requests through Fastify's inject (the whole request path without a socket), one at a time

GET /v1/contacts/{contactID}/timeline, ${REQUESTS} requests per scenario and round after 20 warm-up requests, ${ROUNDS} rounds taking turns; values are medians over the rounds; the ratio is the p50 against the baseline's (one contact row on the same path) measured in the same run. Walking every page at 200 a page saw each of the ${expected.toLocaleString('en')} items exactly once.
Target: first page under ${TARGET_MS} ms. First page p95: **${ms(first)}** (${first < TARGET_MS ? 'met' : 'NOT met'}).

| Scenario | p50 | p95 | max | p50 / baseline |
| --- | --- | --- | --- | --- |
${rows.join('\n')}
`;
  console.log(body);
  if (values.write) writeSection(postgres ? 'timeline-pg' : 'timeline-pglite', body);
} finally {
  if (container) await container.close();
  else await database.close();
  await fresh?.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
