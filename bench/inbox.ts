/**
 * The inbox list (GET /v1/conversations) for an organization with 10,000 conversations in PostgreSQL,
 * over HTTP: the first page, a deep cursor page, the filters and the search. Target: 300 ms per page.
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/inbox.ts [--conversations 10000] [--others 50000] [--requests 100] [--rounds 3 (or --runs 3)]
 *
 * The service runs as its own process (`node src/main.ts`, API role, log level warn, started by
 * bench/lib/webhooks.ts) on a fresh database made on TEST_DATABASE_URL's server. Rows are generated
 * inside PostgreSQL (INSERT ... SELECT generate_series): the organization's contacts and conversations
 * on two channels, some closed, some assigned, some unread, plus `--others` conversations of another
 * organization beside them. One
 * request at a time over one keep-alive connection; the time is the client's (request sent to the
 * whole body read, on loopback): the server's time plus a loopback round trip.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Pool } from 'undici';
import { encodeCursor } from '../src/lib/cursor.ts';
import { machine, median, ms, percentile, writeSection } from './bench-report.ts';
import { deployment, startService, type Service } from './lib/webhooks.ts';

const { values } = parseArgs({
  options: {
    conversations: { type: 'string', default: '10000' },
    others: { type: 'string', default: '50000' },
    requests: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '3' },
    // bench/run-all.ts passes every benchmark --runs N --write: a run here is a round (the section is always written).
    runs: { type: 'string' },
    write: { type: 'boolean', default: false },
  },
});
const CONVERSATIONS = Number(values.conversations);
const OTHERS = Number(values.others);
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.runs ?? values.rounds);
const PAGE = 50;
const TARGET_MS = 300;
if (!process.env.TEST_DATABASE_URL) {
  console.error('set TEST_DATABASE_URL to a PostgreSQL server (a fresh database is made on it)');
  process.exit(2);
}

const d = await deployment();
const header = machine();
const client = new pg.Client({ connectionString: d.database.url });
let service: Service | undefined;

try {
  const env = {
    ROLES: 'api',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
    BOOTSTRAP_ADMIN_EMAIL: 'bench@example.com',
    BOOTSTRAP_ADMIN_PASSWORD: 'correct horse battery staple',
  };
  service = await startService(d.database, env, d.shared);
  const { baseUrl, apiKey } = service;
  await client.connect();
  const http = new Pool(baseUrl, { connections: 1, pipelining: 1 });
  const headers = { 'x-api-key': apiKey, 'content-type': 'application/json', accept: 'application/json' };
  const get = async (pathAndQuery: string) => {
    const res = await http.request({ path: pathAndQuery, method: 'GET', headers });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${pathAndQuery}: status ${res.statusCode}: ${text.slice(0, 200)}`);
    return JSON.parse(text) as { data: Array<{ id: string }>; meta?: { next_cursor: string | null } };
  };
  const channelIds: string[] = [];
  for (const name of ['Front desk', 'Support line']) {
    const res = await http.request({
      path: '/v1/channels',
      method: 'POST',
      headers,
      body: JSON.stringify({ platform: 'chatapp_unofficial', name, sandbox: true }),
    });
    const text = await res.body.text();
    if (res.statusCode !== 201) throw new Error(`channel: ${res.statusCode} ${text}`);
    channelIds.push((JSON.parse(text) as { data: { id: string } }).data.id);
  }
  const { rows: orgs } = await client.query<{ id: string; user_id: string }>(
    'select o.id, m.user_id from organizations o join memberships m on m.organization_id = o.id order by o.created_at limit 1',
  );
  const { id: org, user_id: userId } = orgs[0]!;
  const { version } = (await client.query<{ version: string }>('select version()')).rows[0]!;

  const t = performance.now();
  // Times in whole milliseconds, as the service writes them (cursors carry milliseconds).
  await client.query(
    `insert into contacts (id, organization_id, phone_number, name, created_at, updated_at)
     select gen_random_uuid(), $1, '+49151' || lpad(g::text, 8, '0'), (array['Ana','Ben','Cleo','Dario','Eva','Farid','Greta','Hugo'])[1 + g % 8] || ' Customer ' || g,
            date_trunc('milliseconds', now() - make_interval(days => 30)), date_trunc('milliseconds', now())
       from generate_series(1, $2::int) g`,
    [org, CONVERSATIONS],
  );
  await client.query(
    `insert into conversations (id, organization_id, channel_id, peer_phone, contact_id, status, assignee_user_id, last_message_at, last_inbound_at,
                                last_message_preview, unread_count, created_at, updated_at)
     select gen_random_uuid(), $1, ($3::uuid[])[1 + g % 2], '49151' || lpad(g::text, 8, '0'), c.id,
            case when g % 5 = 0 then 'closed' else 'open' end,
            case when g % 3 = 0 then $4::uuid end,
            date_trunc('milliseconds', now() - make_interval(secs => g * 37)), date_trunc('milliseconds', now() - make_interval(secs => g * 37)),
            'About order #' || (100000 + g) || ': ' || (array['where is my parcel?','can I change the address?','thanks, received','invoice please'])[1 + g % 4],
            case when g % 4 = 0 then 1 + g % 7 else 0 end,
            date_trunc('milliseconds', now() - make_interval(days => 30)), date_trunc('milliseconds', now())
       from generate_series(1, $2::int) g
       join contacts c on c.organization_id = $1 and c.phone_number = '+49151' || lpad(g::text, 8, '0')`,
    [org, CONVERSATIONS, channelIds, userId],
  );
  const other = (
    await client.query<{ id: string }>(`insert into organizations (id, name) values (gen_random_uuid(), 'Neighbour') returning id`)
  ).rows[0]!.id;
  await client.query(
    `insert into conversations (id, organization_id, channel_id, peer_phone, status, last_message_at, last_message_preview, unread_count, created_at, updated_at)
     select gen_random_uuid(), $1, gen_random_uuid(), '49160' || lpad(g::text, 8, '0'), 'open',
            date_trunc('milliseconds', now() - make_interval(secs => g * 11)), 'Neighbour message ' || g, g % 2,
            date_trunc('milliseconds', now() - make_interval(days => 30)), date_trunc('milliseconds', now())
       from generate_series(1, $2::int) g`,
    [other, OTHERS],
  );
  for (const table of ['contacts', 'conversations']) await client.query(`vacuum analyze ${table}`);
  const seedSeconds = (performance.now() - t) / 1000;
  console.log(`seeded ${CONVERSATIONS} + ${OTHERS} conversations in ${seedSeconds.toFixed(1)} s`);

  // The cursor a client holds after 180 pages of 50 (row 9,000 of the order), or 90% of the way with fewer conversations (--quick).
  const DEEP = Math.min(180 * PAGE, Math.floor(CONVERSATIONS * 0.9));
  const deep = (
    await client.query<{ t: Date; id: string }>(
      `select coalesce(last_message_at, created_at) as t, id from conversations where organization_id = $1
        order by coalesce(last_message_at, created_at) desc, id desc offset $2 limit 1`,
      [org, DEEP - 1],
    )
  ).rows[0]!;
  const deepCursor = encodeCursor({ t: deep.t.toISOString(), id: deep.id });
  // Walk every page once: the cursor reaches every conversation exactly once.
  const seen = new Set<string>();
  let cursor: string | null | undefined;
  do {
    const page = await get(`/v1/conversations?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
    for (const row of page.data) seen.add(row.id);
    cursor = page.meta?.next_cursor;
  } while (cursor);
  if (seen.size !== CONVERSATIONS) throw new Error(`walking the pages saw ${seen.size} conversations, not ${CONVERSATIONS}`);

  type Scenario = { name: string; path: string; expect: (n: number) => boolean };
  const full = (n: number) => n === PAGE;
  const scenarios: Scenario[] = [
    { name: 'baseline: GET /v1/health', path: '/v1/health', expect: () => true },
    { name: 'first page', path: `/v1/conversations?limit=${PAGE}`, expect: full },
    {
      name: `deep page (cursor after ${DEEP.toLocaleString('en')} rows)`,
      path: `/v1/conversations?limit=${PAGE}&cursor=${deepCursor}`,
      expect: full,
    },
    { name: 'status=open&assignee=none', path: `/v1/conversations?limit=${PAGE}&status=open&assignee=none`, expect: full },
    { name: 'unread=true', path: `/v1/conversations?limit=${PAGE}&unread=true`, expect: full },
    { name: 'assignee={user}&unread=true', path: `/v1/conversations?limit=${PAGE}&assignee=${userId}&unread=true`, expect: full },
    { name: 'channel_id&status=closed', path: `/v1/conversations?limit=${PAGE}&channel_id=${channelIds[0]}&status=closed`, expect: full },
    {
      name: 'q=customer 12 (name, 111 matches)',
      path: `/v1/conversations?limit=${PAGE}&q=${encodeURIComponent('customer 12')}`,
      expect: full,
    },
    {
      name: 'q=151 0000 4 (number, 1,000 matches)',
      path: `/v1/conversations?limit=${PAGE}&q=${encodeURIComponent('151 0000 4')}`,
      expect: full,
    },
    { name: 'q=parcel&status=open (preview)', path: `/v1/conversations?limit=${PAGE}&q=parcel&status=open`, expect: full },
    { name: 'q=zebra (no match: every row read)', path: `/v1/conversations?limit=${PAGE}&q=zebra`, expect: (n) => n === 0 },
  ];

  type Result = { p50: number; p95: number; max: number };
  async function measure(s: Scenario): Promise<Result> {
    for (let i = 0; i < 20; i++) await get(s.path);
    const latencies: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const t0 = performance.now();
      const page = await get(s.path);
      latencies.push(performance.now() - t0);
      if (s.path.startsWith('/v1/conversations') && !s.expect(page.data.length)) throw new Error(`${s.name}: ${page.data.length} rows`);
    }
    latencies.sort((a, b) => a - b);
    return { p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: latencies.at(-1)! };
  }
  const results = new Map<string, Result[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of scenarios) {
      const r = await measure(s);
      results.set(s.name, [...(results.get(s.name) ?? []), r]);
      console.log(`round ${round + 1} ${s.name}: p50 ${ms(r.p50)} p95 ${ms(r.p95)} max ${ms(r.max)}`);
    }
  }
  await http.close();

  const med = (name: string, key: keyof Result) => median(results.get(name)!.map((r) => r[key]));
  const worst = Math.max(...scenarios.slice(1).map((s) => med(s.name, 'p95')));
  const rows = scenarios
    .map((s) => `| ${s.name} | ${ms(med(s.name, 'p50'))} | **${ms(med(s.name, 'p95'))}** | ${ms(med(s.name, 'max'))} |`)
    .join('\n');
  const report = `## Inbox list (bench/inbox.ts)

Command: \`TEST_DATABASE_URL=postgres://... node bench/inbox.ts --conversations ${CONVERSATIONS} --others ${OTHERS} --requests ${REQUESTS} --rounds ${ROUNDS}\` (${new Date().toISOString().slice(0, 10)})

${header}
- Database: ${version.split(' on ')[0]} on the same machine, fresh: ${CONVERSATIONS.toLocaleString('en')} conversations of the organization (two channels; a contact each; every 5th closed, every 3rd assigned, every 4th unread) and ${OTHERS.toLocaleString('en')} of another organization; seeded in ${seedSeconds.toFixed(1)} s
- Service: \`node src/main.ts\` as its own process (API role, log level warn); client: undici, one keep-alive connection

GET /v1/conversations, ${PAGE} a page (each row with its contact, channel and assignee), one request at a time, ${REQUESTS} per scenario and round after 20 warm-up requests, ${ROUNDS} rounds taking turns; values are medians over the rounds.
Times are the client's on loopback (the server's time plus one local round trip). Walking every page at 200 a page saw each of the ${CONVERSATIONS.toLocaleString('en')} conversations exactly once.
Target: ≤ ${TARGET_MS} ms per page. Slowest p95: **${ms(worst)}** (${worst <= TARGET_MS ? 'met' : 'NOT met'}).

| Scenario | p50 | p95 | max |
| --- | --- | --- | --- |
${rows}
`;
  console.log(report);
  writeSection('inbox', report);
} finally {
  await client.end().catch(() => undefined);
  await service?.stop();
  await d.cleanup();
}
