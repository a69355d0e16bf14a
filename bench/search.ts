/**
 * Search (GET /v1/search) for an organization with 100,000 contacts, 1,000 companies, 5,000 deals and
 * 1,000,000 messages, on PostgreSQL or PGlite, over HTTP: names, a number, rare and common words in messages, words
 * that match nothing, one kind and all kinds. Target (issue 35): p95 under 200 ms.
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/search.ts [--pg] [--contacts 100000] [--messages 1000000] [--requests 50] [--rounds 3 (or --runs 3)]
 *   node bench/search.ts --pglite [...]
 *
 * On PostgreSQL the service runs as its own process (`node src/main.ts`, API role, log level warn, started by
 * bench/lib/webhooks.ts) on a fresh database made on TEST_DATABASE_URL's server; on PGlite it is built in
 * the bench's process on a fresh data directory (bench/lib/api-scenarios.ts). Rows are generated
 * inside the database (INSERT ... SELECT generate_series): message texts are 6 to 14 words drawn from a
 * vocabulary of 2,000 made-up words, skewed so the first words are common (word k appears about 1/k as
 * often), plus a few real words at known rates. The baseline is GET /v1/health on the same connection.
 * One request at a time over one keep-alive connection; times are the client's on loopback.
 */
import { parseArgs } from 'node:util';
import { machine, writeSection } from './bench-report.ts';
import { measureScenarios, scenarioReport, startApiBench, type Scenario } from './lib/api-scenarios.ts';

const { values } = parseArgs({
  options: {
    contacts: { type: 'string', default: '100000' },
    messages: { type: 'string', default: '1000000' },
    requests: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    runs: { type: 'string' },
    write: { type: 'boolean', default: false },
    pglite: { type: 'boolean', default: false },
    pg: { type: 'boolean', default: false },
  },
});
const CONTACTS = Number(values.contacts);
const MESSAGES = Number(values.messages);
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.runs ?? values.rounds);
const TARGET_MS = 200;

const header = machine();
const bench = await startApiBench({ pglite: values.pglite });
const pglite = bench.store === 'PGlite';
const { client } = bench;
const get = (path: string) => bench.get(path) as Promise<{ data: Array<{ id: string; kind: string }> }>;

try {
  const org = (await client.query<{ id: string }>('select id from organizations order by created_at limit 1')).rows[0]!.id;
  const { version } = (await client.query<{ version: string }>('select version()')).rows[0]!;

  const t = performance.now();
  const first = ['Ana', 'Ben', 'Cleo', 'Dario', 'Eva', 'Farid', 'Greta', 'Hugo', 'Ines', 'Jonas', 'Kira', 'Luca'];
  await client.query(
    `insert into contacts (id, organization_id, phone_number, name, email, created_at, updated_at)
     select gen_random_uuid(), $1, '+49151' || lpad(g::text, 8, '0'),
            ($3::text[])[1 + g % 12] || ' ' || 'Surname' || (g % 5000),
            lower(($3::text[])[1 + g % 12]) || '.' || g || '@example.com', now(), now()
       from generate_series(1, $2::int) g`,
    [org, CONTACTS, first],
  );
  await client.query(
    `insert into companies (id, organization_id, name, domain, created_at, updated_at)
     select gen_random_uuid(), $1, 'Company ' || g || ' ' || (array['Logistics','Retail','Robotics','Foods'])[1 + g % 4], 'company' || g || '.example', now(), now()
       from generate_series(1, 1000) g`,
    [org],
  );
  const stage = (
    await client.query<{ pipeline_id: string; id: string }>(
      'select s.pipeline_id, s.id from pipeline_stages s join pipelines p on p.id = s.pipeline_id where p.organization_id = $1 order by s.position limit 1',
      [org],
    )
  ).rows[0]!;
  await client.query(
    `insert into deals (id, organization_id, name, pipeline_id, stage_id, stage_entered_at, created_at, updated_at)
     select gen_random_uuid(), $1, 'Deal ' || g || ' renewal', $2, $3, now(), now(), now() from generate_series(1, 5000) g`,
    [org, stage.pipeline_id, stage.id],
  );
  // Words w1..w2000, word k drawn with weight ~1/k (the inverse of a uniform draw over a harmonic scale);
  // "parcel" in 1 of 20 messages, "invoice" in 1 of 1,000, "zeppelin" in 1 of 100,000.
  await client.query(
    `insert into messages (id, organization_id, channel_id, conversation_id, direction, to_phone, type, content, status, created_at, updated_at)
     select gen_random_uuid(), $1, '00000000-0000-7000-8000-000000000001'::uuid, gen_random_uuid(),
            case when g % 2 = 0 then 'inbound' else 'outbound' end, '4915100000000', 'text',
            jsonb_build_object('body',
              (select string_agg('w' || floor(exp(random() * ln(2000)))::int, ' ') from generate_series(1, 6 + (g % 9)) x where x > 0 * g)
              || case when g % 20 = 0 then ' parcel' else '' end
              || case when g % 1000 = 7 then ' invoice' else '' end
              || case when g % 100000 = 11 then ' zeppelin' else '' end),
            'received', now() - make_interval(secs => g), now()
       from generate_series(1, $2::int) g`,
    [org, MESSAGES],
  );
  for (const table of ['contacts', 'companies', 'deals', 'messages']) await client.query(`vacuum analyze ${table}`);
  const seedSeconds = (performance.now() - t) / 1000;
  console.log(`seeded ${CONTACTS} contacts and ${MESSAGES} messages in ${seedSeconds.toFixed(1)} s`);

  const scenarios: Scenario[] = [
    { name: 'baseline: GET /v1/health', path: '/v1/health' },
    { name: 'contact name (q=greta surname12)', path: '/v1/search?q=greta%20surname12' },
    { name: 'contact number (q=+49 151 0000 12)', path: '/v1/search?q=%2B49%20151%200000%2012' },
    { name: 'email part (q=hugo.7)', path: '/v1/search?q=hugo.7' },
    { name: 'company or deal (q=renewal, kinds=deal)', path: '/v1/search?q=renewal&kinds=deal' },
    { name: 'rare word in messages (q=zeppelin)', path: '/v1/search?q=zeppelin' },
    { name: 'uncommon word (q=invoice, 1 in 1,000)', path: '/v1/search?q=invoice' },
    { name: 'common word (q=parcel, 1 in 20)', path: '/v1/search?q=parcel' },
    { name: 'two words (q=parcel w1)', path: '/v1/search?q=parcel%20w1' },
    { name: 'very common prefix (q=w1: most messages)', path: '/v1/search?q=w1' },
    { name: 'no match (q=qqqqq)', path: '/v1/search?q=qqqqq' },
  ];
  for (const s of scenarios) {
    if (s.path === '/v1/health') continue;
    const page = await get(s.path);
    console.log(`${s.name}: ${page.data.length} results, kinds ${[...new Set(page.data.map((h) => h.kind))].join(',')}`);
  }
  const rows = await measureScenarios(get, scenarios, REQUESTS, ROUNDS);
  const lines = [
    `## Search (bench/search.ts)${pglite ? ', PGlite' : ''}`,
    '',
    `Command: \`${pglite ? '' : 'TEST_DATABASE_URL=postgres://... '}node bench/search.ts${pglite ? ' --pglite' : ''} --contacts ${CONTACTS} --messages ${MESSAGES} --requests ${REQUESTS} --rounds ${ROUNDS}\` (${new Date().toISOString().slice(0, 10)})`,
    '',
    header,
    `- Database: ${pglite ? `PGlite (PostgreSQL ${version.split(' ')[1]}) embedded, on disk` : `${version.split(',')[0]} on the same machine`}, fresh: ${CONTACTS.toLocaleString('en')} contacts, 1,000 companies, 5,000 deals, ${MESSAGES.toLocaleString('en')} text messages of 6 to 14 words (2,000-word vocabulary, word k about 1/k as often; "parcel" in 1 of 20, "invoice" in 1 of 1,000, "zeppelin" in 1 of 100,000); seeded in ${seedSeconds.toFixed(0)} s`,
    pglite
      ? '- Service: built in the bench process (container and Fastify app on loopback, no worker) on PGlite in a data directory on disk; client: undici, one keep-alive connection'
      : '- Service: `node src/main.ts` as its own process (API role, log level warn); client: undici, one keep-alive connection',
    '',
    `GET /v1/search, 20 results a page, one request at a time, ${REQUESTS} per scenario and round after 10 warm-up requests, ${ROUNDS} rounds; values are medians over the rounds; the ratio is the p95 against the baseline's.`,
    ...scenarioReport(rows, TARGET_MS),
  ];
  console.log(lines.join('\n'));
  writeSection(pglite ? 'search-pglite' : 'search', lines.join('\n'));
} finally {
  await bench.close();
}
