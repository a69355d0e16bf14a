// stores: postgres
/**
 * The CRM's writes racing each other on PostgreSQL (a second connection holds one side): a deal
 * created into a stage being deleted is refused naming stage_id, never a foreign-key failure; a stage
 * deleted while a deal is being created into it waits, then moves that deal too; companies created at
 * once with one domain make one company and conflicts; pipelines made the default at once leave one.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import type { Actor } from '../../src/domain/actor.ts';
import { createCompany } from '../../src/domain/companies/companies.ts';
import { createDeal } from '../../src/domain/deals/deals.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { createDefaultPipeline } from '../../src/domain/pipelines/defaults.ts';
import { createPipeline, type PipelineWithStages } from '../../src/domain/pipelines/pipelines.ts';
import { deleteStage } from '../../src/domain/pipelines/stages.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { eventually } from '../eventually.ts';
import { createTestDatabase, usingPostgres } from '../harness.ts';

const skip = !usingPostgres && 'PostgreSQL only (a second connection holds one side of the race)';
let testDb: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
const org = uuidv7();
const actor: Actor = { kind: 'system', organizationId: org, permissions: new Set() };
const clock = { now: () => new Date() };
const deps = () => ({ db: testDb!.database.db, clock });

before(async () => {
  if (!usingPostgres) return;
  testDb = await createTestDatabase();
  await testDb.database.db.execute(sql`insert into organizations (id, name) values (${org}, 'Races')`);
  await createDefaultPipeline(testDb.database.db, org, new Date());
});
after(() => testDb?.drop());

const threeStages = (name: string) =>
  createPipeline(deps(), actor, {
    name,
    stages: [
      { name: 'Doomed', probability: 10, kind: 'open' },
      { name: 'Kept', probability: 50, kind: 'open' },
      { name: 'Won', probability: 100, kind: 'won' },
    ],
  });

/** Waits until a statement of this database waits on a lock. */
const someoneWaits = (what: string) =>
  eventually(what, async () => {
    const [row] = await queryRows<{ n: number }>(
      testDb!.database.db,
      sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
    );
    return row!.n > 0 ? true : undefined;
  });

/** A transaction held open on another connection until release(), after `work`. */
function holding(
  work: (tx: Parameters<Parameters<NonNullable<typeof testDb>['database']['db']['transaction']>[0]>[0]) => Promise<unknown>,
) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  const done = testDb!.database.db.transaction(async (tx) => {
    await work(tx);
    held = true;
    await gate;
  });
  return { done, release, held: () => eventually('the other side holding', async () => (held ? true : undefined)) };
}

test('a deal created into a stage while it is deleted waits, then is refused naming stage_id', { skip }, async () => {
  const pipeline: PipelineWithStages = await threeStages('Race one');
  const doomed = pipeline.stages[0]!.id;
  const deletion = holding((tx) => tx.execute(sql`delete from pipeline_stages where id = ${doomed}`));
  await deletion.held();
  const creating = createDeal(deps(), actor, { name: 'Late', stageId: doomed }).then(
    () => 'created',
    (err: unknown) => err,
  );
  await someoneWaits('the deal waiting for the deletion');
  deletion.release();
  await deletion.done;
  const outcome = await creating;
  assert.ok(outcome instanceof DomainError, `a domain error, not ${String(outcome)}`);
  assert.equal(outcome.code, 'invalid');
  assert.equal(outcome.fieldErrors?.[0]?.pointer, '/stage_id');
});

test('a stage deleted while a deal is being created into it waits for it, then moves it with the others', { skip }, async () => {
  const pipeline = await threeStages('Race two');
  const doomed = pipeline.stages[0]!;
  const kept = pipeline.stages[1]!;
  const dealId = uuidv7();
  // The other side as createDeal holds it: the stage held FOR KEY SHARE, the deal written, not yet committed.
  const creation = holding(async (tx) => {
    await tx.execute(sql`select id from pipeline_stages where id = ${doomed.id} for key share`);
    await tx.execute(sql`insert into deals (id, organization_id, name, pipeline_id, stage_id, stage_entered_at)
                         values (${dealId}, ${org}, 'In flight', ${pipeline.id}, ${doomed.id}, now())`);
  });
  await creation.held();
  const deleting = deleteStage(deps(), actor, { pipelineId: pipeline.id, stageId: doomed.id, moveDealsTo: kept.id });
  await someoneWaits('the deletion waiting for the deal');
  creation.release();
  await creation.done;
  assert.deepEqual(await deleting, { movedDeals: 1 });
  const [row] = await queryRows<{ stage_id: string }>(testDb!.database.db, sql`select stage_id from deals where id = ${dealId}`);
  assert.equal(row!.stage_id, kept.id);
});

test('companies created at once with one domain: one is made, the others are conflicts naming domain', { skip }, async () => {
  const outcomes = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      createCompany(deps(), actor, { name: `Same ${i}`, domain: 'same-domain.example' }).then(
        () => 'created',
        (err: unknown) => (err instanceof DomainError ? `${err.code} ${err.fieldErrors?.[0]?.pointer}` : String(err)),
      ),
    ),
  );
  assert.deepEqual(outcomes.sort(), [
    'conflict /domain',
    'conflict /domain',
    'conflict /domain',
    'conflict /domain',
    'conflict /domain',
    'created',
  ]);
});

test('pipelines made the default at once leave exactly one default', { skip }, async () => {
  await Promise.all(
    Array.from({ length: 4 }, (_, i) =>
      createPipeline(deps(), actor, { name: `Default ${i}`, isDefault: true, stages: [{ name: 'Open', probability: 10, kind: 'open' }] }),
    ),
  );
  const [row] = await queryRows<{ n: number }>(
    testDb!.database.db,
    sql`select count(*)::int as n from pipelines where organization_id = ${org} and is_default`,
  );
  assert.equal(row!.n, 1);
});
