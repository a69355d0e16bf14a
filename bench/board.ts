/**
 * A pipeline's board (GET /v1/pipelines/{id}/board) with 10,000 deals, on PostgreSQL or PGlite, over HTTP: the
 * board (each stage's count, totals per currency, weighted totals and first 20 deals with their
 * contacts), the board of one owner, and a stage's deals paged deep by cursor (up to 5,000 in). Target (issue 35):
 * p95 under 300 ms.
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/board.ts [--pg] [--deals 10000] [--requests 50] [--rounds 3 (or --runs 3)]
 *   node bench/board.ts --pglite [...]
 *
 * On PostgreSQL the service runs as its own process (`node src/main.ts`, API role, log level warn, started by
 * bench/lib/webhooks.ts) on a fresh database made on TEST_DATABASE_URL's server; on PGlite it is built in
 * the bench's process on a fresh data directory (bench/lib/api-scenarios.ts). The deals are
 * generated inside the database across the default pipeline's stages (skewed: the first stages hold the
 * most), in three currencies, a third of them owned by the member, each with a contact and its open
 * stage history row; 10,000 more deals of another organization sit beside them. The baseline is
 * GET /v1/health on the same connection. One request at a time over one keep-alive connection.
 */
import { parseArgs } from 'node:util';
import { machine, writeSection } from './bench-report.ts';
import { measureScenarios, scenarioReport, startApiBench, type Scenario } from './lib/api-scenarios.ts';

const { values } = parseArgs({
  options: {
    deals: { type: 'string', default: '10000' },
    requests: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    runs: { type: 'string' },
    write: { type: 'boolean', default: false },
    pglite: { type: 'boolean', default: false },
    pg: { type: 'boolean', default: false },
  },
});
const DEALS = Number(values.deals);
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.runs ?? values.rounds);
const TARGET_MS = 300;

const header = machine();
const bench = await startApiBench({ pglite: values.pglite });
const pglite = bench.store === 'PGlite';
const { client } = bench;
const get = (path: string) => bench.get(path) as Promise<{ data: unknown; meta?: { next_cursor: string | null } }>;

try {
  const { rows: orgs } = await client.query<{ id: string; user_id: string }>(
    'select o.id, m.user_id from organizations o join memberships m on m.organization_id = o.id order by o.created_at limit 1',
  );
  const { id: org, user_id: owner } = orgs[0]!;
  const { version } = (await client.query<{ version: string }>('select version()')).rows[0]!;
  const pipeline = (
    await client.query<{ id: string }>('select id from pipelines where organization_id = $1 order by created_at limit 1', [org])
  ).rows[0]!.id;
  const stages = (
    await client.query<{ id: string; name: string }>('select id, name from pipeline_stages where pipeline_id = $1 order by position', [
      pipeline,
    ])
  ).rows;

  const t = performance.now();
  // Deal g sits in stage floor(S * (g/N)^2): the first stages hold the most, as boards do.
  const seedDeals = async (
    organizationId: string,
    pipelineId: string,
    stageRows: Array<{ id: string; name: string }>,
    ownerId: string | null,
  ) => {
    await client.query(
      `with made as (
         insert into deals (id, organization_id, name, amount, currency, pipeline_id, stage_id, stage_entered_at, owner_user_id, created_at, updated_at)
         select gen_random_uuid(), $1, 'Deal ' || g, 1000 + (g * 7919) % 500000, (array['EUR','USD','GBP'])[1 + g % 3], $2,
                ($3::uuid[])[1 + floor(array_length($3::uuid[], 1) * power(g::float / $4, 2))::int % array_length($3::uuid[], 1)],
                date_trunc('milliseconds', now() - make_interval(secs => g * 13)),
                case when g % 3 = 0 then $5::uuid end,
                date_trunc('milliseconds', now() - make_interval(days => 60)), now()
           from generate_series(1, $4::int) g
         returning id, stage_id, stage_entered_at, organization_id)
       insert into deal_stage_history (id, organization_id, deal_id, pipeline_id, stage_id, stage_name, entered_at, changed_by_type)
       select gen_random_uuid(), made.organization_id, made.id, $2, made.stage_id, s.name, made.stage_entered_at, 'system'
         from made join pipeline_stages s on s.id = made.stage_id`,
      [organizationId, pipelineId, stageRows.map((s) => s.id), DEALS, ownerId],
    );
  };
  await seedDeals(org, pipeline, stages, owner);
  await client.query(
    `insert into contacts (id, organization_id, phone_number, name, created_at, updated_at)
     select gen_random_uuid(), $1, '+49151' || lpad(g::text, 8, '0'), 'Board Customer ' || g, now(), now() from generate_series(1, $2::int) g`,
    [org, DEALS],
  );
  await client.query(
    `insert into deal_contacts (deal_id, contact_id, organization_id)
     select d.id, c.id, $1 from (select id, row_number() over (order by id) n from deals where organization_id = $1) d
       join (select id, row_number() over (order by id) n from contacts where organization_id = $1) c on c.n = d.n`,
    [org],
  );
  const other = (
    await client.query<{ id: string }>(`insert into organizations (id, name) values (gen_random_uuid(), 'Neighbour') returning id`)
  ).rows[0]!.id;
  const otherPipeline = (
    await client.query<{ id: string }>(
      `insert into pipelines (id, organization_id, name, is_default, created_at, updated_at) values (gen_random_uuid(), $1, 'Theirs', true, now(), now()) returning id`,
      [other],
    )
  ).rows[0]!.id;
  const otherStages = (
    await client.query<{ id: string; name: string }>(
      `insert into pipeline_stages (id, pipeline_id, organization_id, name, position, probability, kind, created_at, updated_at)
       select gen_random_uuid(), $1, $2, 'Stage ' || g, g, 10 * g, 'open', now(), now() from generate_series(0, 4) g returning id, name`,
      [otherPipeline, other],
    )
  ).rows;
  await seedDeals(other, otherPipeline, otherStages, null);
  for (const table of ['deals', 'deal_contacts', 'deal_stage_history', 'contacts']) await client.query(`vacuum analyze ${table}`);
  const seedSeconds = (performance.now() - t) / 1000;
  const counts = (
    await client.query<{ name: string; n: number }>(
      'select s.name, count(d.id)::int as n from pipeline_stages s left join deals d on d.stage_id = s.id where s.pipeline_id = $1 group by s.name, s.position order by s.position',
      [pipeline],
    )
  ).rows;
  console.log(`seeded ${DEALS} + ${DEALS} deals in ${seedSeconds.toFixed(1)} s: ${counts.map((c) => `${c.name} ${c.n}`).join(', ')}`);
  const fullest = stages[0]!;
  // A cursor 5,000 deals into the fullest stage: walk its pages of 100.
  let deepCursor: string | null | undefined;
  let walked = 0;
  for (; walked < Math.min(5000, counts[0]!.n - 100); walked += 100) {
    const page = (await get(
      `/v1/pipelines/${pipeline}/stages/${fullest.id}/deals?limit=100${deepCursor ? `&cursor=${deepCursor}` : ''}`,
    )) as { meta: { next_cursor: string | null } };
    deepCursor = page.meta.next_cursor;
    if (!deepCursor) break;
  }

  const scenarios: Scenario[] = [
    { name: 'baseline: GET /v1/health', path: '/v1/health' },
    { name: 'board (20 deals a stage)', path: `/v1/pipelines/${pipeline}/board` },
    { name: 'board, 100 deals a stage', path: `/v1/pipelines/${pipeline}/board?limit=100` },
    { name: "board of one owner's deals", path: `/v1/pipelines/${pipeline}/board?owner=${owner}` },
    { name: `${fullest.name}: first page of 50`, path: `/v1/pipelines/${pipeline}/stages/${fullest.id}/deals?limit=50` },
    {
      name: `${fullest.name}: a page ${walked.toLocaleString('en')} deals deep`,
      path: `/v1/pipelines/${pipeline}/stages/${fullest.id}/deals?limit=50${deepCursor ? `&cursor=${deepCursor}` : ''}`,
    },
  ];
  for (const s of scenarios) {
    if (s.path === '/v1/health') continue;
    await get(s.path);
  }
  const rows = await measureScenarios(get, scenarios, REQUESTS, ROUNDS);
  const lines = [
    `## Deals board (bench/board.ts), ${bench.store}`,
    '',
    `Command: \`${pglite ? '' : 'TEST_DATABASE_URL=postgres://... '}node bench/board.ts${pglite ? ' --pglite' : ''} --deals ${DEALS} --requests ${REQUESTS} --rounds ${ROUNDS}\` (${new Date().toISOString().slice(0, 10)})`,
    '',
    header,
    `- Database: ${pglite ? `PGlite (PostgreSQL ${version.split(' ')[1]}) embedded, on disk` : `${version.split(',')[0]} on the same machine`}, fresh: ${DEALS.toLocaleString('en')} deals in the default pipeline (${counts.map((c) => `${c.name} ${c.n.toLocaleString('en')}`).join(', ')}), three currencies, a third owned by the member, a contact each, and ${DEALS.toLocaleString('en')} deals of another organization; seeded in ${seedSeconds.toFixed(0)} s`,
    pglite
      ? '- Service: built in the bench process (container and Fastify app on loopback, no worker) on PGlite in a data directory on disk; client: undici, one keep-alive connection'
      : '- Service: `node src/main.ts` as its own process (API role, log level warn); client: undici, one keep-alive connection',
    '',
    `One request at a time, ${REQUESTS} per scenario and round after 10 warm-up requests, ${ROUNDS} rounds; values are medians over the rounds; the ratio is the p95 against the baseline's.`,
    ...scenarioReport(rows, TARGET_MS),
  ];
  console.log(lines.join('\n'));
  writeSection(pglite ? 'board-pglite' : 'board', lines.join('\n'));
} finally {
  await bench.close();
}
