/**
 * Automatic assignment (docs/inbox.md#teams-and-assignment). A conversation that comes in on a channel
 * routed to a team (new, or reopened by the customer) joins the team's queue; the `conversations.assign`
 * job assigns the queue, oldest first, to the team's online members under their capacity: round robin
 * (a durable cursor on the team: the member after the last one assigned) or least busy (fewest open
 * conversations assigned in the organization). What cannot be assigned waits until a member comes
 * online or frees capacity (each enqueues the job) or the job's sweep every minute.
 *
 * Concurrency: a run locks the team's row (runs of one team take turns), then the candidates'
 * membership rows in user-id order, and only then counts what each holds, in a statement of its own
 * (a fresh snapshot): whatever assigns to a member under a policy holds that member's row, so two
 * workers (two teams sharing a member included) never see the same free seat.
 */
import { and, asc, eq, inArray, isNull, ne, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import { conversations, memberships, teamMembers, teams } from '../../db/schema.ts';
import type { Queue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import { recordEvents } from '../events/outbox.ts';
import { applyConversationChange, assignedEvent, conversationUpdated, type QueueTrigger } from '../messages/conversations.ts';
import type { InboundRoutingRecorder } from '../messages/provider-events.ts';
import type { AssignmentPolicy } from './teams.ts';

/** Conversations one run assigns at most (the job runs again while the queue and the seats last). */
export const ASSIGN_BATCH = 100;

/** Enqueues the assignment of each team's queue: one job waiting per team (a stately queue keyed by the team). */
export function createQueueTrigger(queue: Pick<Queue, 'enqueue'>): QueueTrigger {
  return async (tx, teamIds) => {
    for (const teamId of new Set(teamIds)) await queue.enqueue(tx, 'conversations.assign', { team_id: teamId }, { singletonKey: teamId });
  };
}

type Candidate = { userId: string; capacity: number | null; load: number };

/** The member the policy picks among those under capacity (null: none is), in user-id order after the cursor. */
export function pickMember(policy: AssignmentPolicy, candidates: Candidate[], cursor: string | null): Candidate | null {
  const free = candidates.filter((c) => c.capacity === null || c.load < c.capacity);
  if (free.length === 0) return null;
  const sorted = [...free].sort((a, b) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
  const start = cursor === null ? 0 : sorted.findIndex((c) => c.userId > cursor);
  const ring = start <= 0 ? sorted : [...sorted.slice(start), ...sorted.slice(0, start)];
  if (policy === 'least_busy') return ring.reduce((best, c) => (c.load < best.load ? c : best));
  return ring[0]!;
}

/**
 * Assigns a team's queue as its policy says, in one transaction; answers how many were assigned. A
 * manual team, or one without a member online under capacity, assigns nothing.
 */
export async function assignTeamQueue(deps: { db: Db; clock: Clock }, teamId: string): Promise<number> {
  return deps.db.transaction(async (tx) => {
    const [team] = await tx.select().from(teams).where(eq(teams.id, teamId)).limit(1).for('no key update');
    if (!team || team.assignmentPolicy === 'manual') return 0;
    const queued = await tx
      .select()
      .from(conversations)
      .where(and(eq(conversations.teamId, team.id), isNull(conversations.assigneeUserId), eq(conversations.status, 'open')))
      .orderBy(asc(conversations.createdAt), asc(conversations.id))
      .limit(ASSIGN_BATCH)
      .for('update', { skipLocked: true });
    if (queued.length === 0) return 0;
    // Lock first, count after: the count's snapshot then sees every assignment committed before the locks were granted.
    const online = await tx
      .select({ userId: memberships.userId, capacity: sql<number | null>`coalesce(${teamMembers.capacity}, ${team.defaultCapacity}::int)` })
      .from(memberships)
      .innerJoin(teamMembers, and(eq(teamMembers.organizationId, memberships.organizationId), eq(teamMembers.userId, memberships.userId)))
      .where(and(eq(teamMembers.teamId, team.id), eq(memberships.availability, 'online')))
      .orderBy(asc(memberships.userId))
      .for('no key update', { of: memberships });
    if (online.length === 0) return 0;
    const loads = await tx
      .select({ userId: conversations.assigneeUserId, n: sql<number>`count(*)::int` })
      .from(conversations)
      .where(
        and(
          eq(conversations.organizationId, team.organizationId),
          inArray(
            conversations.assigneeUserId,
            online.map((m) => m.userId),
          ),
          eq(conversations.status, 'open'),
        ),
      )
      .groupBy(conversations.assigneeUserId);
    const loadOf = new Map(loads.map((l) => [l.userId, l.n]));
    const candidates: Candidate[] = online.map((m) => ({ userId: m.userId, capacity: m.capacity, load: loadOf.get(m.userId) ?? 0 }));
    const now = deps.clock.now();
    let cursor = team.lastAssignedUserId;
    let assigned = 0;
    for (const row of queued) {
      const member = pickMember(team.assignmentPolicy as AssignmentPolicy, candidates, cursor);
      if (!member) break;
      await applyConversationChange(tx, row, { assigneeUserId: member.userId }, now);
      member.load += 1;
      cursor = member.userId;
      assigned += 1;
    }
    if (cursor !== team.lastAssignedUserId) await tx.update(teams).set({ lastAssignedUserId: cursor }).where(eq(teams.id, team.id));
    return assigned;
  });
}

/**
 * The `conversations.assign` job: one team's queue, or (the sweep every minute) every team with a
 * policy and a queue. A run that filled its batch runs again.
 */
export async function assignQueues(deps: { db: Db; clock: Clock }, teamId?: string): Promise<number> {
  const ids =
    teamId !== undefined
      ? [teamId]
      : (
          await deps.db
            .selectDistinct({ id: teams.id })
            .from(teams)
            .innerJoin(conversations, eq(conversations.teamId, teams.id))
            .where(and(ne(teams.assignmentPolicy, 'manual'), isNull(conversations.assigneeUserId), eq(conversations.status, 'open')))
        ).map((r) => r.id);
  let total = 0;
  for (const id of ids) {
    let n: number;
    do {
      n = await assignTeamQueue(deps, id);
      total += n;
    } while (n === ASSIGN_BATCH);
  }
  return total;
}

/**
 * In the transaction storing a customer's message: a conversation with no team yet takes its channel's,
 * and one that is new to the team's queue (routed now, or reopened) has the queue's assignment enqueued
 * when the team has a policy. Records conversation.assigned when the team was set.
 */
export function createInboundRouter(queue: QueueTrigger): InboundRoutingRecorder {
  return async (tx, before, at) => {
    if (before.status === 'open' && before.teamId !== null) return;
    if (before.assigneeUserId !== null) return;
    const team = sql`coalesce(${conversations.teamId}, (select c.team_id from channels c where c.id = ${conversations.channelId}))`;
    // No team on the conversation nor its channel (most inbound messages): nothing is written.
    const [after] = await tx
      .update(conversations)
      .set({ teamId: team })
      .where(and(eq(conversations.id, before.id), isNull(conversations.assigneeUserId), sql`${team} is not null`))
      .returning();
    if (!after || after.teamId === null) return;
    if (after.teamId !== before.teamId)
      await recordEvents(
        tx,
        after.organizationId,
        [assignedEvent(before, after), { type: 'conversation.updated', body: conversationUpdated(after) }],
        at,
      );
    if (after.status === 'open' && (await hasPolicy(tx, after.teamId))) await queue(tx, [after.teamId]);
  };
}

async function hasPolicy(tx: Executor, teamId: string): Promise<boolean> {
  const [team] = await tx.select({ policy: teams.assignmentPolicy }).from(teams).where(eq(teams.id, teamId)).limit(1);
  return team !== undefined && team.policy !== 'manual';
}
