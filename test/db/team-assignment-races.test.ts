/**
 * Automatic assignment under concurrency: runs of two teams that share a member, many at once, never
 * assign a member past their capacity, and every queued conversation that had a seat is assigned once
 * (one conversation.assigned each). On PostgreSQL the runs overlap on separate connections (the team
 * row and the members' rows are locked before anything is counted); on PGlite they take turns.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { migrate } from '../../src/db/migrate.ts';
import { assignTeamQueue, pickMember } from '../../src/domain/teams/assignment.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { createTestDatabase } from '../harness.ts';

let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
const org = uuidv7();
const clock = { now: () => new Date() };
const [ana, bea, caio] = [uuidv7(), uuidv7(), uuidv7()].sort();
const [support, sales] = [uuidv7(), uuidv7()];

before(async () => {
  testDb = await createTestDatabase();
  await migrate(testDb.database);
  const db = testDb.database.db;
  await db.execute(sql`insert into organizations (id, name) values (${org}, 'Teams')`);
  for (const [id, name] of [
    [ana!, 'Ana'],
    [bea!, 'Bea'],
    [caio!, 'Caio'],
  ] as const) {
    await db.execute(sql`insert into users (id, email, name, password_hash) values (${id}, ${`${id}@example.com`}, ${name}, 'x')`);
    await db.execute(
      sql`insert into memberships (organization_id, user_id, role, availability) values (${org}, ${id}, 'member', 'online')`,
    );
  }
  await db.execute(sql`insert into teams (id, organization_id, name, assignment_policy, default_capacity)
    values (${support}, ${org}, 'Support', 'round_robin', 2), (${sales}, ${org}, 'Sales', 'least_busy', 3)`);
  // Bea is in both teams, with a capacity of 2 in each (her open conversations count once, in the organization).
  await db.execute(sql`insert into team_members (team_id, organization_id, user_id, capacity)
    values (${support}, ${org}, ${ana}, null), (${support}, ${org}, ${bea}, 2), (${sales}, ${org}, ${bea}, 2), (${sales}, ${org}, ${caio}, null)`);
  for (let i = 0; i < 24; i++) {
    const team = i % 2 === 0 ? support : sales;
    await db.execute(sql`insert into conversations (id, organization_id, channel_id, peer_phone, team_id, created_at, updated_at)
      values (${uuidv7()}, ${org}, ${uuidv7()}, ${`4930000${i}`}, ${team}, now(), now())`);
  }
});
after(() => testDb?.drop());

test('concurrent runs of two teams sharing a member never pass a capacity, and assign each conversation once', async () => {
  const deps = { db: testDb.database.db, clock };
  const runs = Array.from({ length: 12 }, (_, i) => assignTeamQueue(deps, i % 2 === 0 ? support : sales));
  const assigned = (await Promise.all(runs)).reduce((a, b) => a + b, 0);
  const loads = await queryRows<{ assignee_user_id: string; n: number }>(
    testDb.database.db,
    sql`select assignee_user_id, count(*)::int as n from conversations where organization_id = ${org} and assignee_user_id is not null group by 1`,
  );
  const load = new Map(loads.map((l) => [l.assignee_user_id, l.n]));
  assert.equal(load.get(ana!), 2, 'Ana: the team default of 2');
  assert.equal(load.get(bea!), 2, 'Bea: 2 in all, though both teams could give her 2');
  assert.equal(load.get(caio!), 3, 'Caio: the Sales default of 3');
  assert.equal(assigned, 7, 'as many as there were seats');
  const events = await queryRows<{ id: string; n: number }>(
    testDb.database.db,
    sql`select payload->>'conversation_id' as id, count(*)::int as n from events where organization_id = ${org} and type = 'conversation.assigned' group by 1`,
  );
  assert.equal(events.length, 7);
  assert.ok(
    events.every((e) => e.n === 1),
    'one conversation.assigned per conversation',
  );
  const [cursor] = await queryRows<{ last: string }>(
    testDb.database.db,
    sql`select last_assigned_user_id as last from teams where id = ${support}`,
  );
  assert.ok([ana, bea].includes(cursor!.last), 'the round robin cursor is one of the team’s members');
});

test('round robin takes the member after the cursor; least busy the fewest open, ties in round robin order', () => {
  const c = (userId: string, load: number, capacity: number | null = null) => ({ userId, load, capacity });
  assert.equal(pickMember('round_robin', [c('a', 5), c('b', 0), c('c', 0)], 'a')?.userId, 'b');
  assert.equal(pickMember('round_robin', [c('a', 0), c('b', 0), c('c', 0)], 'c')?.userId, 'a', 'wraps around');
  assert.equal(pickMember('round_robin', [c('a', 0), c('b', 2, 2), c('c', 0)], 'a')?.userId, 'c', 'skips a member at capacity');
  assert.equal(pickMember('round_robin', [c('a', 1, 1)], null), null, 'nobody under capacity');
  assert.equal(pickMember('least_busy', [c('a', 3), c('b', 1), c('c', 1)], 'b')?.userId, 'c');
  assert.equal(pickMember('least_busy', [c('a', 0, 0), c('b', 4)], null)?.userId, 'b', 'capacity 0: never');
});
