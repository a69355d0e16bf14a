/**
 * The due reminder (crm.task.due): the crm.tasks-due job, run by the worker through pg-boss, records it
 * once for each open task whose due time has passed by the server's clock (moved by hand here, never
 * waited for); never for a completed task; again after the due time moves; once even when two runs
 * meet (two workers); a backlog goes in batches, each organization's events in its own log.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { recordDueTasks } from '../../src/domain/tasks/due.ts';
import { eventsSince, outboxMark } from '../contacts-fixtures.ts';
import { created } from '../crm-helpers.ts';
import { eventually } from '../eventually.ts';
import { createOtherOrganization, loginCookie, movableClock, request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
const clock = movableClock();
const HOUR = 3_600_000;

before(async () => {
  server = await startTestServer({ worker: true, clock });
});
after(() => server.close());

const key = () => ({ key: server.apiKey });
const inHours = (hours: number) => new Date(clock.now().getTime() + hours * HOUR).toISOString();
const deps = () => ({ db: server.container.database.db, clock: server.container.clock });
/** One run of the job's work, as the handler does it. */
const runJob = () => server.container.jobHandlers()['crm.tasks-due']({}, {} as never);
const dueEvents = async (mark: number) => (await eventsSince(server, mark, 'crm.task.due')).map((e) => e.payload);

test('the job is scheduled every minute', async () => {
  const rows = await queryRows<{ name: string; cron: string }>(
    server.container.database.db,
    sql`select name, cron from pgboss.schedule where name = 'crm.tasks-due'`,
  );
  assert.deepEqual(
    rows.map((r) => [r.name, r.cron]),
    [['crm.tasks-due', '* * * * *']],
  );
});

test('a task becoming due has crm.task.due once, recorded by the job through the worker; a new due time arms it again', async () => {
  const cookie = await loginCookie(server);
  const userId = (await request(server, 'GET', '/v1/auth/session', { cookie })).body.data.user.id;
  const task = await created(server, '/v1/tasks', { title: 'Renew the contract', due_at: inHours(1), assignee_user_id: userId });
  const mark = await outboxMark(server);
  await runJob();
  assert.deepEqual(await dueEvents(mark), [], 'not before its time');

  clock.advance(HOUR + 1000);
  // Through pg-boss: the job enqueued as the cron does, taken by the worker.
  await server.container.queue.enqueue(server.container.database.db, 'crm.tasks-due', {});
  server.container.queue.wake('crm.tasks-due');
  const expected = {
    task_id: task.id,
    title: 'Renew the contract',
    due_at: task.due_at,
    assignee_user_id: userId,
    organization_id: server.organizationId,
  };
  await eventually('crm.task.due', async () => (await dueEvents(mark)).length > 0);
  await runJob();
  await runJob();
  assert.deepEqual(await dueEvents(mark), [expected], 'once, however often the job runs');

  // Moved later, it is due again at its new time, once.
  const moved = await request(server, 'PATCH', `/v1/tasks/${task.id}`, { ...key(), body: { due_at: inHours(2) } });
  assert.equal(moved.status, 200, moved.text);
  const second = await outboxMark(server);
  await runJob();
  assert.deepEqual(await dueEvents(second), [], 'the new time has not come');
  clock.advance(2 * HOUR + 1000);
  await runJob();
  await runJob();
  assert.deepEqual(await dueEvents(second), [{ ...expected, due_at: moved.body.data.due_at }]);

  // Another change that leaves the due time as it is does not arm it again.
  await request(server, 'PATCH', `/v1/tasks/${task.id}`, {
    ...key(),
    body: { title: 'Renew the contract now', due_at: moved.body.data.due_at },
  });
  const third = await outboxMark(server);
  await runJob();
  assert.deepEqual(await dueEvents(third), []);
});

test('a completed task never has it; reopened after its time, it has it then; a deleted one never', async () => {
  const done = await created(server, '/v1/tasks', { title: 'Done early', due_at: inHours(1) });
  const reopened = await created(server, '/v1/tasks', { title: 'Reopened', due_at: inHours(1) });
  const deleted = await created(server, '/v1/tasks', { title: 'Deleted', due_at: inHours(1) });
  for (const t of [done, reopened]) assert.equal((await request(server, 'POST', `/v1/tasks/${t.id}/complete`, key())).status, 200);
  assert.equal((await request(server, 'DELETE', `/v1/tasks/${deleted.id}`, key())).status, 204);
  const mark = await outboxMark(server);
  clock.advance(HOUR + 1000);
  await runJob();
  assert.deepEqual(await dueEvents(mark), []);
  assert.equal((await request(server, 'POST', `/v1/tasks/${reopened.id}/reopen`, key())).status, 200);
  await runJob();
  assert.deepEqual(
    (await dueEvents(mark)).map((e) => e.task_id),
    [reopened.id],
  );
});

test('two runs at once record each reminder once; a backlog goes in batches, each organization’s in its own log', async () => {
  const other = await createOtherOrganization(server, 'due');
  const ours = [];
  const theirs = [];
  for (let i = 0; i < 5; i++) {
    ours.push(await created(server, '/v1/tasks', { title: `Ours ${i}`, due_at: inHours(1 + i / 100) }));
    theirs.push(await created(server, '/v1/tasks', { title: `Theirs ${i}`, due_at: inHours(1 + i / 100) }, other.apiKey));
  }
  const mark = await outboxMark(server);
  clock.advance(2 * HOUR);
  await Promise.all([recordDueTasks(deps(), { batch: 3 }), recordDueTasks(deps(), { batch: 3 }), runJob()]);
  const events = await eventsSince(server, mark, 'crm.task.due');
  assert.equal(events.length, 10, 'each once');
  const byOrganization = (organizationId: string) =>
    events
      .filter((e) => e.payload.organization_id === organizationId)
      .map((e) => e.payload.task_id)
      .sort();
  assert.deepEqual(byOrganization(server.organizationId), ours.map((t) => t.id).sort());
  assert.deepEqual(byOrganization(other.organizationId), theirs.map((t) => t.id).sort());
  const [elsewhere] = await queryRows<{ n: number }>(
    server.container.database.db,
    sql`select count(*)::int as n from events where seq > ${mark} and type = 'crm.task.due' and organization_id::text <> payload->>'organization_id'`,
  );
  assert.equal(elsewhere!.n, 0, 'each in its organization’s log');
});
