/**
 * Broadcasts at 100,000 recipients, on the sandbox's official channel:
 *  1. resolution: from POST /v1/broadcasts/{id}/schedule until the audience is frozen (every
 *     recipient recorded, the skipped with their reasons) by the broadcasts.run job; target under 30 s;
 *  2. the report (GET /v1/broadcasts/{id}/report) of a 100,000-recipient broadcast whose messages
 *     are in every status (sent, delivered, read, replied, failed with codes) over two A/B variants;
 *     target under 200 ms; against baselines in the same run: GET /v1/health over the same client and
 *     the bare count of the broadcast's recipients on the service's own connection.
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/broadcasts.ts [--runs 3] [--recipients 100000] [--requests 20]
 *   node bench/broadcasts.ts --pglite [...]
 *
 * The contacts and the report's messages are generated inside the database (INSERT ... SELECT
 * generate_series), so PGlite is seeded as PostgreSQL is.
 */
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { Pool } from 'undici';
import { queryRows } from '../src/db/client.ts';
import { eventually } from '../test/eventually.ts';
import { startTestServer } from '../test/harness.ts';
import { approvedTemplate, officialChannel } from '../test/messages-helpers.ts';
import { machine, measureRounds, median, ms, writeSection, type LatencyScenario } from './bench-report.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    recipients: { type: 'string', default: '100000' },
    requests: { type: 'string', default: '20' },
    pglite: { type: 'boolean', default: false },
  },
});
const RUNS = Number(values.runs);
const N = Number(values.recipients);
const REQUESTS = Number(values.requests);
if (!values.pglite && !process.env.TEST_DATABASE_URL) {
  console.error('set TEST_DATABASE_URL to a PostgreSQL server (a fresh database is made on it), or pass --pglite');
  process.exit(2);
}
if (values.pglite) delete process.env.TEST_DATABASE_URL;

const header = machine();
const server = await startTestServer({ worker: true, env: { LOG_LEVEL: 'warn' } });
try {
  const db = server.container.database.db;
  const org = server.organizationId;
  const channelId = (await officialChannel(server, 'Bench broadcasts')).id;
  await approvedTemplate(server, channelId, 'bench_a');
  await approvedTemplate(server, channelId, 'bench_b');

  async function request(method: string, path: string, body?: unknown): Promise<Record<string, any>> {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: {
        'x-api-key': server.apiKey,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text).data : {};
  }

  // N contacts tagged `bench`: every 200th without a number (invalid_number), every 50th suppressed
  // (suppressed), every 97th opted out of marketing (opted_out).
  const seedStarted = performance.now();
  await db.execute(sql`
    insert into contacts (id, organization_id, phone_number, name, custom_fields, created_at, updated_at)
    select gen_random_uuid(), ${org}::uuid, case when g % 200 <> 0 then '+1415' || lpad(g::text, 7, '0') end, 'Contact ' || g,
           jsonb_build_object('code', 'C' || g), now() - make_interval(secs => g), now()
      from generate_series(1, ${N}::int) g`);
  await db.execute(sql.raw('analyze contacts'));
  const tagId = '0196b1f2-0a00-7000-8000-00000000be03';
  await db.execute(sql`insert into tags (id, organization_id, name) values (${tagId}::uuid, ${org}, 'bench')`);
  await db.execute(sql`
    insert into contact_tags (contact_id, tag_id, organization_id)
    select id, ${tagId}::uuid, organization_id from contacts where organization_id = ${org}`);
  await db.execute(sql`
    insert into contact_suppressions (id, organization_id, contact_id, channel, reason)
    select gen_random_uuid(), organization_id, id, case when (substring(name from 9))::int % 50 = 0 then 'all' else 'marketing' end, 'bench'
      from contacts where organization_id = ${org} and ((substring(name from 9))::int % 50 = 0 or (substring(name from 9))::int % 97 = 0)`);
  for (const table of ['contacts', 'contact_tags', 'contact_suppressions']) await db.execute(sql.raw(`analyze ${table}`));
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  console.log(`${N} contacts seeded in ${seedSeconds.toFixed(1)} s`);

  // 1. Resolution: scheduled, frozen by the job (per_minute 1: it then sends one message and waits).
  const resolveSeconds: number[] = [];
  let skipped = 0;
  let lastId = '';
  for (let round = 0; round < RUNS; round++) {
    const broadcast = await request('POST', '/v1/broadcasts', {
      name: `Bench ${round}`,
      channel_id: channelId,
      ab_test: {
        variants: [
          { name: 'bench_a', language: 'en_US', variables: ['{{contact.name|there}}'] },
          { name: 'bench_b', language: 'en_US', variables: ['{{contact.custom.code|none}}'] },
        ],
        test_share: 20,
        metric: 'read',
        decide_at: new Date(Date.now() + 86_400_000).toISOString(),
      },
      audience: { tags: ['bench'] },
      per_minute: 1,
    });
    lastId = broadcast.id;
    const t0 = performance.now();
    await request('POST', `/v1/broadcasts/${broadcast.id}/schedule`);
    await eventually(
      'the audience frozen',
      async () => {
        const [row] = await queryRows<{ n: number }>(
          db,
          sql`select count(*)::int as n from broadcast_recipients where broadcast_id = ${broadcast.id}::uuid`,
        );
        return row!.n > 0 ? true : undefined;
      },
      { timeoutMs: 300_000, everyMs: 20 },
    );
    resolveSeconds.push((performance.now() - t0) / 1000);
    const [counted] = await queryRows<{ n: number; skipped: number }>(
      db,
      sql`select count(*)::int as n, count(*) filter (where status = 'skipped')::int as skipped from broadcast_recipients where broadcast_id = ${broadcast.id}::uuid`,
    );
    if (counted!.n !== N) throw new Error(`frozen ${counted!.n} of ${N}`);
    skipped = counted!.skipped;
    await request('POST', `/v1/broadcasts/${broadcast.id}/stop`);
    console.log(`round ${round + 1} resolution: ${resolveSeconds.at(-1)!.toFixed(2)} s (${skipped} skipped)`);
  }

  // 2. The report: the last broadcast's recipients given messages in every status, as if sent.
  const conversationId = '0196b1f2-0a00-7000-8000-00000000be02';
  await db.execute(
    sql`update broadcast_recipients set status = 'pending', variant = seq % 2 where broadcast_id = ${lastId}::uuid and status = 'held'`,
  );
  await db.execute(sql`
    insert into messages (id, organization_id, channel_id, conversation_id, contact_id, direction, to_phone, type, content, status, error_code, broadcast_id, created_at, updated_at)
    select br.id, br.organization_id, ${channelId}::uuid, ${conversationId}::uuid, br.contact_id, 'outbound', substring(br.phone from 2), 'template',
           '{"template":{"name":"bench_a","language":{"code":"en_US"}}}'::jsonb,
           (array['sent', 'delivered', 'delivered', 'read', 'read', 'read', 'failed'])[1 + br.seq % 7],
           case when br.seq % 7 = 6 then (array['131026', '131049', '130472'])[1 + br.seq % 3] end,
           ${lastId}::uuid, now() - make_interval(mins => br.seq % 180), now()
      from broadcast_recipients br where br.broadcast_id = ${lastId}::uuid and br.status = 'pending' and br.message_id is null`);
  await db.execute(sql`update broadcast_recipients set message_id = id, replied_at = case when seq % 11 = 0 then now() end
                        where broadcast_id = ${lastId}::uuid and status = 'pending'`);
  await db.execute(sql`update broadcasts set started_at = now() - interval '3 hours' where id = ${lastId}::uuid`);
  for (const table of ['messages', 'broadcast_recipients']) await db.execute(sql.raw(`analyze ${table}`));

  const http = new Pool(server.baseUrl, { connections: 1, pipelining: 1 });
  const headers = { 'x-api-key': server.apiKey, accept: 'application/json' };
  const get = async (path: string, auth = true) => {
    const res = await http.request({ path, method: 'GET', headers: auth ? headers : { accept: 'application/json' } });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
    return text;
  };
  let reportSent = 0;
  const scenarios: LatencyScenario[] = [
    {
      name: 'baseline: select count(*) of the broadcast’s recipients (in process)',
      run: () => queryRows(db, sql`select count(*)::int as n from broadcast_recipients where broadcast_id = ${lastId}::uuid`),
    },
    { name: 'baseline: GET /v1/health', run: () => get('/v1/health', false) },
    {
      name: 'GET /v1/broadcasts/{id}/report',
      run: async () => {
        reportSent = (JSON.parse(await get(`/v1/broadcasts/${lastId}/report`)) as { data: { sent: number } }).data.sent;
      },
    },
  ];
  const measured = await measureRounds(scenarios, RUNS, REQUESTS);
  await http.close();

  const { median: med, ratio } = measured;
  const bare = scenarios[0]!.name;
  const rows = scenarios
    .map(
      (s) =>
        `| ${s.name} | **${ms(med(s.name, 'p50'))}** | ${ms(med(s.name, 'p99'))} | ${ms(med(s.name, 'max'))} | ${ratio(s.name, bare).toFixed(1)}× |`,
    )
    .join('\n');
  const store = values.pglite
    ? 'embedded PGlite (on disk, in this process)'
    : `PostgreSQL on ${new URL(process.env.TEST_DATABASE_URL!).host} (same machine), fresh database`;
  const report = `## Broadcasts: resolution and report at ${N.toLocaleString('en')} recipients (bench/broadcasts.ts), ${values.pglite ? 'PGlite' : 'PostgreSQL'}

Command: \`${values.pglite ? '' : 'TEST_DATABASE_URL=postgres://... '}node bench/broadcasts.ts${values.pglite ? ' --pglite' : ''} --runs ${RUNS} --recipients ${N} --requests ${REQUESTS}\` (${new Date().toISOString().slice(0, 10)})

${header}
- The machine was shared with other helpers' test and benchmark runs (see the load above): the numbers are upper bounds of the code's own cost.
- Database: ${store}: ${N.toLocaleString('en')} contacts tagged, every 200th without a number, every 50th suppressed, every 97th opted out of marketing; seeded in ${seedSeconds.toFixed(0)} s
- Service: in this process (test/harness.ts) with its worker, over HTTP on loopback; client: undici, one keep-alive connection

Resolution: a broadcast to the tag (an A/B test of two templates, test share 20%) scheduled, until the broadcasts.run job has frozen
its audience (${N.toLocaleString('en')} recipients recorded, ${skipped.toLocaleString('en')} of them skipped with their reasons, the test share drawn and
each filled): median **${median(resolveSeconds).toFixed(2)} s** over ${RUNS} broadcasts (${resolveSeconds.map((s) => s.toFixed(2)).join(', ')} s). Target: under 30 s.

Report: the last broadcast's recipients given messages in every status over 3 hours (${reportSent.toLocaleString('en')} sent, every seventh failed with one of
three codes, every eleventh replied, two variants); ${REQUESTS} requests per scenario and round after 3 warm-up requests, ${RUNS} rounds;
medians over the rounds; the ratio is the p50 against the bare count's p50 in the same round. Target: under 200 ms.

| Scenario | p50 | p99 | max | p50 / bare count |
| --- | --- | --- | --- | --- |
${rows}
`;
  console.log(report);
  writeSection(`broadcasts${values.pglite ? '-pglite' : ''}`, report);
} finally {
  await server.close();
}
