/**
 * Teams (docs/inbox.md#teams-and-assignment): members of the organization grouped to share a queue.
 * A team has an assignment policy (manual, round_robin, least_busy) and a default capacity (the open
 * conversations a member holds at most; a member's own beats it); a channel routes its new and reopened
 * conversations to one team (setChannelTeam). team.created / team.updated / team.deleted record each
 * change; a change that can let the queue move (policy, capacity, members) enqueues its assignment.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import { listPage, oldestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { channels, conversations, memberships, teamMembers, teams, users } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { uniqueNames } from '../crm/unique-names.ts';
import { invalid, notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import type { QueueTrigger } from '../messages/conversations.ts';
import { checkMember } from '../messages/conversations.ts';
import { cursorKey } from '../paging.ts';

export const ASSIGNMENT_POLICIES = ['manual', 'round_robin', 'least_busy'] as const;
export type AssignmentPolicy = (typeof ASSIGNMENT_POLICIES)[number];
export const AVAILABILITIES = ['online', 'away', 'offline'] as const;
export type Availability = (typeof AVAILABILITIES)[number];
export const TEAM_NAME_MAX = 100;
export const TEAM_DESCRIPTION_MAX = 500;
export const CAPACITY_MAX = 1000;
export const TEAM_MEMBERS_MAX = 500;

export type TeamRow = typeof teams.$inferSelect;
export type TeamMemberView = {
  userId: string;
  name: string;
  email: string;
  availability: Availability;
  /** The member's own capacity (null: the team's default). */
  capacity: number | null;
  /** The open conversations assigned to the member in the organization. */
  openConversations: number;
};
export type TeamView = TeamRow & { members: TeamMemberView[]; queued: number };
export type TeamDeps = { db: Db; clock: Clock; queue?: QueueTrigger };

const names = uniqueNames(teams, 'team');

async function loadTeam(db: Executor, actor: Actor, id: string, lock = false): Promise<TeamRow> {
  if (!isUuid(id)) throw notFound('team');
  const query = db
    .select()
    .from(teams)
    .where(and(eq(teams.id, id.toLowerCase()), eq(teams.organizationId, actor.organizationId)))
    .limit(1);
  const [row] = lock ? await query.for('no key update') : await query;
  if (!row) throw notFound('team');
  return row;
}

/** The members of these teams with their availability and open conversations, and each team's queue length. */
async function viewsOf(db: Executor, rows: TeamRow[]): Promise<TeamView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const members = await db
    .select({
      teamId: teamMembers.teamId,
      userId: teamMembers.userId,
      name: users.name,
      email: users.email,
      availability: memberships.availability,
      capacity: teamMembers.capacity,
      openConversations: sql<number>`(select count(*) from ${conversations} c
        where c.organization_id = ${teamMembers.organizationId} and c.assignee_user_id = ${teamMembers.userId} and c.status = 'open')::int`,
    })
    .from(teamMembers)
    .innerJoin(memberships, and(eq(memberships.organizationId, teamMembers.organizationId), eq(memberships.userId, teamMembers.userId)))
    .innerJoin(users, eq(users.id, teamMembers.userId))
    .where(inArray(teamMembers.teamId, ids))
    .orderBy(asc(users.name), asc(teamMembers.userId));
  const queued = await db
    .select({ teamId: conversations.teamId, n: sql<number>`count(*)::int` })
    .from(conversations)
    .where(and(inArray(conversations.teamId, ids), sql`${conversations.assigneeUserId} is null`, eq(conversations.status, 'open')))
    .groupBy(conversations.teamId);
  const queuedBy = new Map(queued.map((q) => [q.teamId, q.n]));
  return rows.map((row) => ({
    ...row,
    members: members
      .filter((m) => m.teamId === row.id)
      .map(({ teamId: _t, ...m }) => ({ ...m, availability: m.availability as Availability })),
    queued: queuedBy.get(row.id) ?? 0,
  }));
}

const teamBody = (row: TeamRow, memberIds: string[]) => ({
  team_id: row.id,
  name: row.name,
  assignment_policy: row.assignmentPolicy as AssignmentPolicy,
  default_capacity: row.defaultCapacity,
  member_user_ids: memberIds,
  organization_id: row.organizationId,
});

async function memberIdsOf(tx: Executor, teamId: string): Promise<string[]> {
  const rows = await tx
    .select({ userId: teamMembers.userId })
    .from(teamMembers)
    .where(eq(teamMembers.teamId, teamId))
    .orderBy(asc(teamMembers.userId));
  return rows.map((r) => r.userId);
}

export type TeamInput = {
  name: string;
  description?: string | null;
  assignment_policy?: AssignmentPolicy;
  default_capacity?: number | null;
  members?: Array<{ user_id: string; capacity?: number | null }>;
};

/** Refuses a member named twice or no member of the organization, naming its place. */
async function checkMembers(tx: Executor, organizationId: string, members: NonNullable<TeamInput['members']>): Promise<void> {
  const seen = new Set<string>();
  for (const [i, m] of members.entries()) {
    const id = m.user_id.toLowerCase();
    if (seen.has(id)) throw invalid('a member is named twice', [{ pointer: `/members/${i}/user_id`, message: 'named twice' }]);
    seen.add(id);
    await checkMember(tx, organizationId, id, `/members/${i}/user_id`);
  }
}

export async function createTeam(deps: TeamDeps, actor: Actor, input: TeamInput): Promise<TeamView> {
  return names.nameUnique(() =>
    deps.db.transaction(async (tx) => {
      await names.checkNameFree(tx, actor.organizationId, input.name);
      const members = input.members ?? [];
      await checkMembers(tx, actor.organizationId, members);
      const now = deps.clock.now();
      const [row] = await tx
        .insert(teams)
        .values({
          id: uuidv7(),
          organizationId: actor.organizationId,
          name: input.name,
          description: input.description ?? null,
          assignmentPolicy: input.assignment_policy ?? 'manual',
          defaultCapacity: input.default_capacity ?? null,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      if (members.length > 0)
        await tx.insert(teamMembers).values(
          members.map((m) => ({
            teamId: row!.id,
            organizationId: actor.organizationId,
            userId: m.user_id.toLowerCase(),
            capacity: m.capacity ?? null,
            createdAt: now,
          })),
        );
      await recordEvent(tx, actor.organizationId, 'team.created', teamBody(row!, await memberIdsOf(tx, row!.id)), now);
      const [view] = await viewsOf(tx, [row!]);
      return view!;
    }),
  );
}

export async function listTeams({ db }: { db: Executor }, actor: Actor, page: Page): Promise<PageResult<TeamView>> {
  const rows = await listPage(db.select().from(teams).$dynamic(), {
    where: [eq(teams.organizationId, actor.organizationId)],
    order: oldestFirstBy(teams.createdAt, teams.id),
    after: cursorKey(page.cursor),
    limit: page.limit,
  });
  return { ...rows, items: await viewsOf(db, rows.items) };
}

export async function getTeam({ db }: { db: Executor }, actor: Actor, id: string): Promise<TeamView> {
  const [view] = await viewsOf(db, [await loadTeam(db, actor, id)]);
  return view!;
}

export type TeamPatch = Partial<Omit<TeamInput, 'members'>>;

/** Changes a team; records team.updated when something changed, and lets the queue move under the new policy or capacity. */
export async function updateTeam(deps: TeamDeps, actor: Actor, id: string, patch: TeamPatch): Promise<TeamView> {
  return names.nameUnique(() =>
    deps.db.transaction(async (tx) => {
      const row = await loadTeam(tx, actor, id, true);
      if (patch.name !== undefined) await names.checkNameFree(tx, actor.organizationId, patch.name, row.id);
      const next = {
        name: patch.name ?? row.name,
        description: patch.description === undefined ? row.description : patch.description,
        assignmentPolicy: patch.assignment_policy ?? row.assignmentPolicy,
        defaultCapacity: patch.default_capacity === undefined ? row.defaultCapacity : patch.default_capacity,
      };
      const changed = (Object.keys(next) as Array<keyof typeof next>).some((k) => next[k] !== row[k]);
      if (!changed) return (await viewsOf(tx, [row]))[0]!;
      const now = deps.clock.now();
      const [updated] = await tx
        .update(teams)
        .set({ ...next, updatedAt: now })
        .where(eq(teams.id, row.id))
        .returning();
      await recordEvent(tx, actor.organizationId, 'team.updated', teamBody(updated!, await memberIdsOf(tx, row.id)), now);
      await deps.queue?.(tx, [row.id]);
      return (await viewsOf(tx, [updated!]))[0]!;
    }),
  );
}

/** Deletes a team: its conversations and channels keep no team (their queue is gone); records team.deleted. */
export async function deleteTeam(deps: TeamDeps, actor: Actor, id: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const row = await loadTeam(tx, actor, id, true);
    const memberIds = await memberIdsOf(tx, row.id);
    await tx.delete(teams).where(eq(teams.id, row.id));
    await recordEvent(tx, actor.organizationId, 'team.deleted', teamBody(row, memberIds), deps.clock.now());
  });
}

/** Adds a member to a team, or changes their capacity there (null: the team's default); records team.updated. */
export async function putTeamMember(
  deps: TeamDeps,
  actor: Actor,
  teamId: string,
  userId: string,
  input: { capacity?: number | null },
): Promise<TeamView> {
  return deps.db.transaction(async (tx) => {
    const team = await loadTeam(tx, actor, teamId, true);
    if (!isUuid(userId)) throw notFound('member');
    const user = userId.toLowerCase();
    const [member] = await tx
      .select({ userId: memberships.userId })
      .from(memberships)
      .where(and(eq(memberships.organizationId, actor.organizationId), eq(memberships.userId, user)))
      .limit(1);
    if (!member) throw notFound('member');
    const [existing] = await tx
      .select()
      .from(teamMembers)
      .where(and(eq(teamMembers.teamId, team.id), eq(teamMembers.userId, user)))
      .limit(1);
    const capacity = input.capacity === undefined ? (existing?.capacity ?? null) : input.capacity;
    if (existing && existing.capacity === capacity) return (await viewsOf(tx, [team]))[0]!;
    if (!existing) {
      const [{ n }] = (await tx.select({ n: sql<number>`count(*)::int` }).from(teamMembers).where(eq(teamMembers.teamId, team.id))) as [
        { n: number },
      ];
      if (n >= TEAM_MEMBERS_MAX)
        throw invalid(`a team has at most ${TEAM_MEMBERS_MAX} members`, [{ pointer: '/user_id', message: 'team full' }]);
    }
    const now = deps.clock.now();
    await tx
      .insert(teamMembers)
      .values({ teamId: team.id, organizationId: actor.organizationId, userId: user, capacity, createdAt: now })
      .onConflictDoUpdate({ target: [teamMembers.teamId, teamMembers.userId], set: { capacity } });
    const [updated] = await tx.update(teams).set({ updatedAt: now }).where(eq(teams.id, team.id)).returning();
    await recordEvent(tx, actor.organizationId, 'team.updated', teamBody(updated!, await memberIdsOf(tx, team.id)), now);
    await deps.queue?.(tx, [team.id]);
    return (await viewsOf(tx, [updated!]))[0]!;
  });
}

/** Takes a member out of a team (what they hold stays theirs); records team.updated. */
export async function removeTeamMember(deps: TeamDeps, actor: Actor, teamId: string, userId: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const team = await loadTeam(tx, actor, teamId, true);
    if (!isUuid(userId)) throw notFound('team member');
    const removed = await tx
      .delete(teamMembers)
      .where(and(eq(teamMembers.teamId, team.id), eq(teamMembers.userId, userId.toLowerCase())))
      .returning({ userId: teamMembers.userId });
    if (removed.length === 0) throw notFound('team member');
    const now = deps.clock.now();
    const [updated] = await tx.update(teams).set({ updatedAt: now }).where(eq(teams.id, team.id)).returning();
    await recordEvent(tx, actor.organizationId, 'team.updated', teamBody(updated!, await memberIdsOf(tx, team.id)), now);
  });
}

export type AvailabilityView = { userId: string; availability: Availability; changedAt: Date | null };

/**
 * Sets a member's availability (their own, or an admin's change); records member.availability_changed
 * when it changed. Coming online lets the queues of the member's teams move.
 */
export async function setAvailability(deps: TeamDeps, actor: Actor, userId: string, availability: Availability): Promise<AvailabilityView> {
  if (!isUuid(userId)) throw notFound('member');
  return deps.db.transaction(async (tx) => {
    const where = and(eq(memberships.organizationId, actor.organizationId), eq(memberships.userId, userId.toLowerCase()));
    const [before] = await tx.select().from(memberships).where(where).limit(1).for('no key update');
    if (!before) throw notFound('member');
    if (before.availability === availability) return { userId: before.userId, availability, changedAt: before.availabilityChangedAt };
    const now = deps.clock.now();
    await tx.update(memberships).set({ availability, availabilityChangedAt: now }).where(where);
    await recordEvent(
      tx,
      actor.organizationId,
      'member.availability_changed',
      {
        user_id: before.userId,
        availability,
        previous_availability: before.availability as Availability,
        organization_id: actor.organizationId,
      },
      now,
    );
    if (availability === 'online' && deps.queue) {
      const teamIds = await tx
        .select({ teamId: teamMembers.teamId })
        .from(teamMembers)
        .where(and(eq(teamMembers.organizationId, actor.organizationId), eq(teamMembers.userId, before.userId)));
      await deps.queue(
        tx,
        teamIds.map((t) => t.teamId),
      );
    }
    return { userId: before.userId, availability, changedAt: now };
  });
}

export async function getAvailability({ db }: { db: Executor }, actor: Actor, userId: string): Promise<AvailabilityView> {
  if (!isUuid(userId)) throw notFound('member');
  const [row] = await db
    .select()
    .from(memberships)
    .where(and(eq(memberships.organizationId, actor.organizationId), eq(memberships.userId, userId.toLowerCase())))
    .limit(1);
  if (!row) throw notFound('member');
  return { userId: row.userId, availability: row.availability as Availability, changedAt: row.availabilityChangedAt };
}

export type ChannelAssignment = { channelId: string; teamId: string | null };

async function loadChannel(db: Executor, actor: Actor, channelId: string) {
  if (!isUuid(channelId)) throw notFound('channel');
  const [row] = await db
    .select({ id: channels.id, teamId: channels.teamId })
    .from(channels)
    .where(and(eq(channels.id, channelId.toLowerCase()), eq(channels.organizationId, actor.organizationId)))
    .limit(1);
  if (!row) throw notFound('channel');
  return row;
}

export async function getChannelAssignment({ db }: { db: Executor }, actor: Actor, channelId: string): Promise<ChannelAssignment> {
  const row = await loadChannel(db, actor, channelId);
  return { channelId: row.id, teamId: row.teamId };
}

/** Routes a channel's new and reopened conversations to a team of the organization (null: to none). */
export async function setChannelAssignment(
  deps: TeamDeps,
  actor: Actor,
  channelId: string,
  input: { teamId: string | null },
): Promise<ChannelAssignment> {
  return deps.db.transaction(async (tx) => {
    const row = await loadChannel(tx, actor, channelId);
    let teamId: string | null = null;
    if (input.teamId !== null) {
      const [team] = isUuid(input.teamId)
        ? await tx
            .select({ id: teams.id })
            .from(teams)
            .where(and(eq(teams.id, input.teamId.toLowerCase()), eq(teams.organizationId, actor.organizationId)))
            .limit(1)
        : [];
      if (!team) throw invalid('team_id is no team of this organization', [{ pointer: '/team_id', message: 'no such team' }]);
      teamId = team.id;
    }
    if (teamId !== row.teamId) await tx.update(channels).set({ teamId, updatedAt: deps.clock.now() }).where(eq(channels.id, row.id));
    return { channelId: row.id, teamId };
  });
}
