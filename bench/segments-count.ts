/**
 * A saved segment's live count (GET /v1/segments/{id}/count) over 100,000 contacts, one filter per
 * kind of field and one that combines them, against baselines measured in the same run: the bare
 * `select count(*)` of the organization's contacts on the service's own database connection, and
 * GET /v1/health over the same HTTP client.
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/segments-count.ts [--runs 3] [--contacts 100000] [--requests 20]
 *   node bench/segments-count.ts --pglite [...]
 *
 * The service runs in this process (test/harness.ts startTestServer) on a fresh database; the rows
 * are generated inside the database (INSERT ... SELECT generate_series), so PGlite is seeded as
 * PostgreSQL is. Target: every count under 500 ms.
 */
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { Pool } from 'undici';
import { queryRows } from '../src/db/client.ts';
import { compileFilter } from '../src/domain/segments/compile.ts';
import { parseFilter } from '../src/domain/segments/filter.ts';
import { machine, measureRounds, ms, writeSection } from './bench-report.ts';
import { createOtherOrganization, startTestServer } from '../test/harness.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    contacts: { type: 'string', default: '100000' },
    requests: { type: 'string', default: '20' },
    pglite: { type: 'boolean', default: false },
    write: { type: 'boolean', default: false },
    // Print each filter's query plan (EXPLAIN ANALYZE) and stop: for finding where a count's time goes.
    explain: { type: 'boolean', default: false },
  },
});
const RUNS = Number(values.runs);
const CONTACTS = Number(values.contacts);
const REQUESTS = Number(values.requests);
if (!values.pglite && !process.env.TEST_DATABASE_URL) {
  console.error('set TEST_DATABASE_URL to a PostgreSQL server (a fresh database is made on it), or pass --pglite');
  process.exit(2);
}
if (values.pglite) delete process.env.TEST_DATABASE_URL;

const header = machine();
const server = await startTestServer({ env: { LOG_LEVEL: 'warn' } });
try {
  const db = server.container.database.db;
  const org = server.organizationId;
  // Another organization's contacts beside ours, so every count must scope.
  const other = await createOtherOrganization(server, 'bench-other');
  const seedStarted = performance.now();
  for (const [organizationId, count, area] of [
    [org, CONTACTS, '+1415'],
    [other.organizationId, Math.round(CONTACTS / 10), '+1416'],
  ] as const) {
    await db.execute(sql`
      insert into contacts (id, organization_id, phone_number, name, email, custom_fields, created_at, updated_at)
      select gen_random_uuid(), ${organizationId}::uuid, ${area} || lpad(g::text, 7, '0'), 'Contact ' || g,
             case when g % 4 <> 0 then 'c' || g || '@bench.example' end,
             jsonb_build_object('plan', case when g % 3 = 0 then 'pro' else 'free' end, 'seats', g % 100),
             now() - make_interval(secs => g), now()
        from generate_series(1, ${count}::int) g`);
  }
  await db.execute(
    sql`insert into tags (id, organization_id, name) values (gen_random_uuid(), ${org}, 'vip'), (gen_random_uuid(), ${other.organizationId}, 'vip')`,
  );
  // Every tenth contact tagged; every third with the chat-app consent granted (every ninth revoked);
  // every fiftieth suppressed; every fifth with a conversation, its last inbound message up to 60 days old.
  await db.execute(sql`
    insert into contact_tags (contact_id, tag_id, organization_id)
    select c.id, t.id, c.organization_id from contacts c join tags t on t.organization_id = c.organization_id
     where (substring(c.phone_number from 6))::int % 10 = 0`);
  await db.execute(sql`
    insert into contact_consents (id, organization_id, contact_id, channel, state, recorded_at)
    select gen_random_uuid(), organization_id, id, 'chatapp', case when (substring(phone_number from 6))::int % 9 = 0 then 'revoked' else 'granted' end, now()
      from contacts where (substring(phone_number from 6))::int % 3 = 0`);
  await db.execute(sql`
    insert into contact_suppressions (id, organization_id, contact_id, channel, reason)
    select gen_random_uuid(), organization_id, id, 'all', 'bench' from contacts where (substring(phone_number from 6))::int % 50 = 0`);
  const channelId = '0196b1f2-0a00-7000-8000-00000000be01';
  await db.execute(sql`
    insert into conversations (id, organization_id, channel_id, peer_phone, contact_id, last_message_at, last_inbound_at)
    select gen_random_uuid(), organization_id, ${channelId}::uuid, substring(phone_number from 2), id,
           now() - make_interval(mins => (substring(phone_number from 6))::int % 86400),
           now() - make_interval(mins => (substring(phone_number from 6))::int % 86400)
      from contacts where (substring(phone_number from 6))::int % 5 = 0`);
  // 1,000 companies (every fourth in DE), every second contact working at one; a list of every seventh contact.
  await db.execute(sql`
    insert into companies (id, organization_id, name, address, created_at, updated_at)
    select gen_random_uuid(), ${org}::uuid, 'Company ' || g, jsonb_build_object('country', case when g % 4 = 0 then 'DE' else 'US' end), now(), now()
      from generate_series(1, 1000) g`);
  const labelId = (
    await request('POST', '/v1/relationship-labels', {
      name: 'works at',
      inverse_name: 'employs',
      from_kind: 'contact',
      to_kind: 'company',
    })
  ).id as string;
  await db.execute(sql`
    with numbered as (select id, row_number() over (order by id) as n from companies where organization_id = ${org})
    insert into relationships (id, organization_id, label_id, from_kind, from_id, to_kind, to_id, created_by_type)
    select gen_random_uuid(), ${org}::uuid, ${labelId}::uuid, 'contact', c.id, 'company', co.id, 'system'
      from contacts c join numbered co on co.n = 1 + (substring(c.phone_number from 6))::int % 1000
     where c.organization_id = ${org} and (substring(c.phone_number from 6))::int % 2 = 0`);
  const listId = (await request('POST', '/v1/lists', { name: 'Bench list', kind: 'contact' })).id as string;
  await db.execute(sql`
    insert into list_entries (list_id, organization_id, record_kind, record_id)
    select ${listId}::uuid, organization_id, 'contact', id from contacts
     where organization_id = ${org} and (substring(phone_number from 6))::int % 7 = 0`);
  {
    for (const table of [
      'contacts',
      'contact_tags',
      'contact_consents',
      'contact_suppressions',
      'conversations',
      'companies',
      'relationships',
      'list_entries',
    ])
      await db.execute(sql.raw(`analyze ${table}`));
  }
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  const [{ n: total } = { n: 0 }] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from contacts where organization_id = ${org}`,
  );
  console.log(`${total} contacts of the organization seeded in ${seedSeconds.toFixed(1)} s`);

  async function request(method: string, path: string, body?: unknown): Promise<Record<string, any>> {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { 'x-api-key': server.apiKey, 'content-type': 'application/json', accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text).data;
  }

  const cond = (field: string, op: string, value: unknown) => ({ field, op, value });
  const filters: Array<[string, unknown]> = [
    ['tags has vip', { and: [cond('tags', 'has', 'vip')] }],
    ['custom_fields.plan eq pro', { and: [cond('custom_fields.plan', 'eq', 'pro')] }],
    ['custom_fields.seats gt 50', { and: [cond('custom_fields.seats', 'gt', 50)] }],
    ['name starts_with "contact 1"', { and: [cond('name', 'starts_with', 'contact 1')] }],
    [
      'consents.chatapp eq granted, no suppression',
      { and: [cond('consents.chatapp', 'eq', 'granted'), cond('suppressions.any', 'exists', false)] },
    ],
    ['last_inbound_at within P30D', { and: [cond('last_inbound_at', 'within', 'P30D')] }],
    ['company.address.country eq DE', { and: [cond('company.address.country', 'eq', 'DE')] }],
    ['lists in (a list)', { and: [cond('lists', 'in', listId)] }],
    [
      'combined: tag, consent, no suppression, (inbound within 30 days or company in DE)',
      {
        and: [
          cond('tags', 'has', 'vip'),
          cond('consents.chatapp', 'eq', 'granted'),
          cond('suppressions.any', 'exists', false),
          { or: [cond('last_inbound_at', 'within', 'P30D'), cond('company.address.country', 'eq', 'DE')] },
        ],
      },
    ],
  ];
  const segments: Array<{ name: string; id: string; count?: number }> = [];
  for (const [name, filter] of filters) segments.push({ name, id: (await request('POST', '/v1/segments', { name, filter })).id });

  if (values.explain) {
    for (const [name, filter] of filters) {
      const parsed = parseFilter(filter);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
      const where = compileFilter(parsed.filter, { organizationId: org, now: new Date() });
      const plan = await queryRows<Record<string, string>>(
        db,
        sql`explain analyze select count(*) from contacts where contacts.organization_id = ${org} and ${where}`,
      );
      console.log(`\n== ${name}\n${plan.map((r) => Object.values(r)[0]).join('\n')}`);
    }
    for (const s of segments) {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        await request('GET', `/v1/segments/${s.id}/count`);
        times.push(performance.now() - t0);
      }
      console.log(`${s.name}: ${times.map(ms).join(', ')}`);
    }
    process.exit(0);
  }

  const http = new Pool(server.baseUrl, { connections: 1, pipelining: 1 });
  const headers = { 'x-api-key': server.apiKey, accept: 'application/json' };
  const get = async (path: string, auth = true) => {
    const res = await http.request({ path, method: 'GET', headers: auth ? headers : { accept: 'application/json' } });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
    return text;
  };
  type Scenario = { name: string; run: () => Promise<unknown>; count?: () => number | undefined };
  const scenarios: Scenario[] = [
    {
      name: 'baseline: select count(*) of the organization’s contacts (in process)',
      run: () => queryRows(db, sql`select count(*)::int as n from contacts where organization_id = ${org}`),
    },
    { name: 'baseline: GET /v1/health', run: () => get('/v1/health', false) },
    ...segments.map((s) => ({
      name: s.name,
      run: async () => {
        s.count = (JSON.parse(await get(`/v1/segments/${s.id}/count`)) as { data: { count: number } }).data.count;
      },
      count: () => s.count,
    })),
  ];

  const measured = await measureRounds(scenarios, RUNS, REQUESTS);
  await http.close();

  const { median: med, ratio } = measured;
  const [bare] = [scenarios[0]!.name];
  const rows = scenarios
    .map(
      (s) =>
        `| ${s.name} | ${s.count?.()?.toLocaleString('en') ?? ''} | **${ms(med(s.name, 'p50'))}** | ${ms(med(s.name, 'p99'))} | ${ms(med(s.name, 'max'))} | ${ratio(s.name, bare).toFixed(1)}× |`,
    )
    .join('\n');
  const store = values.pglite
    ? 'embedded PGlite (on disk, in this process)'
    : `PostgreSQL on ${new URL(process.env.TEST_DATABASE_URL!).host} (same machine), fresh database`;
  const report = `## Segment counts (bench/segments-count.ts), ${values.pglite ? 'PGlite' : 'PostgreSQL'}

Command: \`${values.pglite ? '' : 'TEST_DATABASE_URL=postgres://... '}node bench/segments-count.ts${values.pglite ? ' --pglite' : ''} --runs ${RUNS} --contacts ${CONTACTS} --requests ${REQUESTS}\` (${new Date().toISOString().slice(0, 10)})

${header}
- Database: ${store}: ${total.toLocaleString('en')} contacts of the organization (and ${Math.round(CONTACTS / 10).toLocaleString('en')} of another), every tenth tagged, every third with a chat-app consent, every fiftieth suppressed, every fifth with a conversation (last inbound message up to 60 days old), every second working at one of 1,000 companies, every seventh in a list; seeded in ${seedSeconds.toFixed(0)} s
- Service: in this process (test/harness.ts), over HTTP on loopback; client: undici, one keep-alive connection

GET /v1/segments/{id}/count, one request at a time, ${REQUESTS} per scenario and round after 3 warm-up requests; the scenarios take turns in each of ${RUNS} rounds.
Values are medians over the rounds; the ratio is the p50 against the bare count's p50 in the same round.
Target: every count under 500 ms.

| Segment filter | Contacts found | p50 | p99 | max | p50 / bare count |
| --- | --- | --- | --- | --- | --- |
${rows}
`;
  console.log(report);
  writeSection(`segments-count${values.pglite ? '-pglite' : ''}`, report);
} finally {
  await server.close();
}
