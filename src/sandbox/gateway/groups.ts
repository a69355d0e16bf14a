/**
 * The gateway protocol's groups, presence and settings (docs/gateway-protocol.md, "Groups"), as the
 * sandbox plays them (docs/sandbox.md): groups are rows of sandbox_groups, a session is in those whose
 * participants hold its number, and the chat network's rules are the sandbox's own: numbers ending in
 * 0002 are not on the network, those ending in 0403 only take invitations (their privacy settings),
 * only admins change settings (and the subject, description and picture of a locked group). Each
 * change the session makes is reported back to it, as a phone's notices are, in a `group.update`
 * callback; a presence subscription is answered with the contact's presence.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { sandboxAccounts, sandboxGroups } from '../../db/schema.ts';
import { GROUP_RECIPIENT } from '../../providers/capabilities.ts';
import type { AccountRow, SandboxContext } from '../context.ts';
import { fail, gateway, ok, type GatewayError, type GatewayResult } from '../errors.ts';
import { normalizePhone, recipientOutcome } from '../rules.ts';
import { isHttpUrl, isObject, type Json } from './parse-send.ts';

type GroupRow = typeof sandboxGroups.$inferSelect;
type Role = 'member' | 'admin' | 'superadmin';
type Participant = { phone: string; role: Role };

const EPHEMERAL = new Set([0, 86_400, 604_800, 7_776_000]);
const SUBJECT_MAX = 100;
const DESCRIPTION_MAX = 2048;
const PARTICIPANTS_MAX = 256;

/** The settings a gateway session honours (PUT /sessions/{session}/settings). */
const BOOLEAN_SETTINGS = ['always_online', 'read_receipts', 'group_messages', 'status_messages'] as const;

const groupNotFound = (id: string): GatewayError => ({
  status: 404,
  code: 'group_not_found',
  message: `group ${id} not found: the session's number is not in it`,
  retryable: false,
});
const notAdmin = (id: string, what: string): GatewayError => ({
  status: 403,
  code: 'not_admin',
  message: `the session's number is not an admin of group ${id}: only admins may ${what}`,
  retryable: false,
});
const notWorking = (account: AccountRow) =>
  gateway.conflict('session_not_working', `the session is ${account.status}, not paired: groups need a paired phone`);

/** A number on the chat network (digits), or why not. */
const notOnNetwork = (phones: string[]): GatewayError | undefined => {
  const missing = phones.filter((p) => recipientOutcome(p) === 'refuse');
  return missing.length > 0
    ? {
        status: 400,
        code: 'participant_not_on_network',
        message: `not on the chat network: ${missing.map((p) => `+${p}`).join(', ')}`,
        retryable: false,
        participants: missing,
      }
    : undefined;
};

function phonesOf(value: unknown, max = PARTICIPANTS_MAX): string[] | GatewayError {
  if (!Array.isArray(value) || value.length === 0 || value.length > max)
    return gateway.invalid(`participants must be an array of 1 to ${max} phone numbers (international digits)`);
  const phones = value.map((v) => normalizePhone(v));
  if (phones.some((p) => p === undefined)) return gateway.invalid('participants must be phone numbers (international digits)');
  return [...new Set(phones as string[])];
}

/** A group as the protocol writes it, for the session whose number is `self`. */
function wire(group: GroupRow, self: string) {
  const participants = group.participants;
  return {
    id: group.id,
    subject: group.subject,
    description: group.description,
    owner: group.owner,
    created_at: group.createdAt.toISOString(),
    announcement: group.announcement,
    locked: group.locked,
    members_can_add: group.membersCanAdd,
    join_approval: group.joinApproval,
    ephemeral_seconds: group.ephemeralSeconds,
    size: participants.length,
    participants: participants.map((p) => ({ phone: p.phone, lid: null, role: p.role })),
    role: participants.find((p) => p.phone === self)?.role ?? null,
  };
}

const isAdmin = (group: GroupRow, self: string) => group.participants.some((p) => p.phone === self && p.role !== 'member');
const newGroupId = () => `120363${String(randomInt(100_000, 999_999))}${String(randomInt(100_000, 999_999))}@g.us`;
const newInviteCode = () => randomBytes(16).toString('base64url').slice(0, 22);

/**
 * Why the session may not send to group `id`, or undefined when it may: the group must hold its
 * number, and an announcement group takes messages from its admins only.
 */
export async function groupSendRefusal(db: Executor, account: AccountRow, id: string): Promise<GatewayError | undefined> {
  const self = account.displayPhoneNumber?.replace(/\D/g, '') ?? '';
  const [group] = await db.select().from(sandboxGroups).where(eq(sandboxGroups.id, id)).limit(1);
  if (!group || !group.participants.some((p) => p.phone === self)) return groupNotFound(id);
  if (group.announcement && !isAdmin(group, self)) return notAdmin(id, 'send to it (only admins send to an announcement group)');
  return undefined;
}

export function createGatewayGroups(ctx: SandboxContext) {
  const { clock } = ctx;

  /** A group.update callback to the session (when it happened: now). */
  const report = (tx: Executor, account: AccountRow, payload: Json) =>
    ctx.enqueueCallback(
      tx,
      { kind: 'gateway.event', session_id: account.id, event: 'group.update', payload, at: clock.now().toISOString() },
      0,
    );

  /** The session's number, while it is paired. */
  const selfOf = (account: AccountRow): GatewayResult<string> =>
    account.status === 'WORKING' && account.displayPhoneNumber
      ? ok(account.displayPhoneNumber.replace(/\D/g, ''))
      : fail(notWorking(account));

  /** A group the session is in, locked for the change that follows. */
  async function groupOf(tx: Executor, self: string, id: string): Promise<GatewayResult<GroupRow>> {
    if (!GROUP_RECIPIENT.test(id)) return fail(groupNotFound(id));
    const [group] = await tx.select().from(sandboxGroups).where(eq(sandboxGroups.id, id)).for('update').limit(1);
    if (!group || !group.participants.some((p) => p.phone === self)) return fail(groupNotFound(id));
    return ok(group);
  }

  async function save(tx: Executor, id: string, set: Partial<GroupRow>): Promise<GroupRow> {
    const [row] = await tx
      .update(sandboxGroups)
      .set({ ...set, updatedAt: clock.now() })
      .where(eq(sandboxGroups.id, id))
      .returning();
    return row!;
  }

  return {
    /** GET /sessions/{session}/groups. */
    async list(db: Executor, account: AccountRow): Promise<GatewayResult<Json>> {
      const self = selfOf(account);
      if (!self.ok) return self;
      const rows = await db
        .select()
        .from(sandboxGroups)
        .where(sql`${sandboxGroups.participants} @> ${JSON.stringify([{ phone: self.value }])}::jsonb`)
        .orderBy(sandboxGroups.createdAt);
      return ok({ groups: rows.map((g) => wire(g, self.value)) });
    },

    /** GET /sessions/{session}/groups/{group}. */
    async get(db: Executor, account: AccountRow, id: string): Promise<GatewayResult<Json>> {
      const self = selfOf(account);
      if (!self.ok) return self;
      const group = await groupOf(db, self.value, id);
      return group.ok ? ok(wire(group.value, self.value)) : group;
    },

    /** POST /sessions/{session}/groups {subject, participants}. */
    async create(db: Executor, account: AccountRow, body: unknown): Promise<GatewayResult<Json>> {
      const self = selfOf(account);
      if (!self.ok) return self;
      if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {subject, participants}'));
      if (typeof body.subject !== 'string' || body.subject.trim() === '' || body.subject.length > SUBJECT_MAX)
        return fail(gateway.invalid(`subject must be a non-empty string of at most ${SUBJECT_MAX} characters`));
      const phones = phonesOf(body.participants);
      if (!Array.isArray(phones)) return fail(phones);
      const missing = notOnNetwork(phones);
      if (missing) return fail(missing);
      const participants: Participant[] = [
        { phone: self.value, role: 'superadmin' },
        ...phones.filter((p) => p !== self.value).map((phone) => ({ phone, role: 'member' as const })),
      ];
      return db.transaction(async (tx) => {
        const group = await makeGroup(ctx, tx, account, { subject: body.subject as string, owner: self.value, participants }, self.value);
        return ok(wire(group, self.value));
      });
    },

    /** PATCH /sessions/{session}/groups/{group} {subject?, description?, announcement?, locked?, members_can_add?, join_approval?, ephemeral_seconds?}. */
    async update(db: Executor, account: AccountRow, id: string, body: unknown): Promise<GatewayResult<Json>> {
      const self = selfOf(account);
      if (!self.ok) return self;
      if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object'));
      const set: Partial<GroupRow> = {};
      const changed: Json = {};
      const settings: Json = {};
      if (body.subject !== undefined) {
        if (typeof body.subject !== 'string' || body.subject.trim() === '' || body.subject.length > SUBJECT_MAX)
          return fail(gateway.invalid(`subject must be a non-empty string of at most ${SUBJECT_MAX} characters`));
        set.subject = changed.subject = body.subject;
      }
      if (body.description !== undefined) {
        if (body.description !== null && (typeof body.description !== 'string' || body.description.length > DESCRIPTION_MAX))
          return fail(gateway.invalid(`description must be a string of at most ${DESCRIPTION_MAX} characters, or null`));
        set.description = (body.description as string | null) || null;
        changed.description = set.description ?? '';
      }
      for (const [key, column] of [
        ['announcement', 'announcement'],
        ['locked', 'locked'],
        ['members_can_add', 'membersCanAdd'],
        ['join_approval', 'joinApproval'],
      ] as const) {
        if (body[key] === undefined) continue;
        if (typeof body[key] !== 'boolean') return fail(gateway.invalid(`${key} must be true or false`));
        set[column] = settings[key] = body[key] as boolean;
      }
      if (body.ephemeral_seconds !== undefined) {
        if (!EPHEMERAL.has(body.ephemeral_seconds as number))
          return fail(gateway.invalid(`ephemeral_seconds must be one of ${[...EPHEMERAL].join(', ')}`));
        set.ephemeralSeconds = settings.ephemeral_seconds = body.ephemeral_seconds as number;
      }
      if (Object.keys(set).length === 0) return fail(gateway.invalid('nothing to change'));
      return db.transaction(async (tx) => {
        const group = await groupOf(tx, self.value, id);
        if (!group.ok) return group;
        if (!isAdmin(group.value, self.value)) {
          const adminsOnly = ['announcement', 'locked', 'members_can_add', 'join_approval'].some((k) => body[k] !== undefined);
          if (adminsOnly) return fail(notAdmin(id, 'change the group settings'));
          if (group.value.locked) return fail(notAdmin(id, 'edit a group only admins may edit'));
        }
        const updated = await save(tx, id, set);
        await report(tx, account, {
          group_id: id,
          change: 'group_settings_update',
          ...changed,
          ...(Object.keys(settings).length > 0 ? { settings } : {}),
          author: self.value,
        });
        return ok(wire(updated, self.value));
      });
    },

    /** PUT /sessions/{session}/groups/{group}/picture {url}, or DELETE it (url null). */
    async picture(db: Executor, account: AccountRow, id: string, url: unknown): Promise<GatewayResult<Json>> {
      const self = selfOf(account);
      if (!self.ok) return self;
      if (url !== null && !isHttpUrl(url)) return fail(gateway.invalid('url must be an http(s) URL'));
      return db.transaction(async (tx) => {
        const group = await groupOf(tx, self.value, id);
        if (!group.ok) return group;
        if (group.value.locked && !isAdmin(group.value, self.value)) return fail(notAdmin(id, 'change the picture of a locked group'));
        await save(tx, id, { pictureUrl: url as string | null });
        return ok({});
      });
    },

    /** POST /sessions/{session}/groups/{group}/participants {action, participants}. */
    async participants(db: Executor, account: AccountRow, id: string, body: unknown): Promise<GatewayResult<Json>> {
      const self = selfOf(account);
      if (!self.ok) return self;
      if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {action, participants}'));
      const action = body.action;
      if (action !== 'add' && action !== 'remove' && action !== 'promote' && action !== 'demote')
        return fail(gateway.invalid('action must be add, remove, promote or demote'));
      const phones = phonesOf(body.participants);
      if (!Array.isArray(phones)) return fail(phones);
      return db.transaction(async (tx) => {
        const found = await groupOf(tx, self.value, id);
        if (!found.ok) return found;
        const group = found.value;
        if (!isAdmin(group, self.value) && !(action === 'add' && group.membersCanAdd)) return fail(notAdmin(id, `${action} participants`));
        if (action === 'add') {
          const missing = notOnNetwork(phones);
          if (missing) return fail(missing);
        } else {
          const outside = phones.filter((p) => !group.participants.some((q) => q.phone === p));
          if (outside.length > 0)
            return fail({
              status: 400,
              code: 'not_participant',
              message: `not in group ${id}: ${outside.map((p) => `+${p}`).join(', ')}`,
              retryable: false,
              participants: outside,
            });
        }
        let participants = [...group.participants];
        const results = phones.map((phone) => {
          const at = participants.findIndex((p) => p.phone === phone);
          if (action === 'add') {
            if (at >= 0) return { phone, ok: false, error: { code: 'participant_409', title: 'already in the group' } };
            if (phone.endsWith('0403'))
              return {
                phone,
                ok: false,
                error: {
                  code: 'participant_403',
                  title: "their privacy settings let only contacts add them: send them the group's invite link",
                },
              };
            participants.push({ phone, role: 'member' });
          } else if (action === 'remove') participants = participants.filter((p) => p.phone !== phone);
          else participants[at] = { phone, role: action === 'promote' ? 'admin' : 'member' };
          return { phone, ok: true };
        });
        await save(tx, id, { participants });
        const done = results.filter((r) => r.ok).map((r) => ({ phone: r.phone }));
        const left = action === 'remove' && done.some((p) => p.phone === self.value);
        if (done.length > 0)
          await report(tx, account, {
            group_id: id,
            change: left ? 'group_leave' : `group_${action}_participants`,
            participants: done,
            author: self.value,
          });
        return ok({ participants: results });
      });
    },

    /** GET /sessions/{session}/groups/{group}/invite; POST …/invite/revoke (revoke). */
    async invite(db: Executor, account: AccountRow, id: string, revoke: boolean): Promise<GatewayResult<Json>> {
      const self = selfOf(account);
      if (!self.ok) return self;
      return db.transaction(async (tx) => {
        const group = await groupOf(tx, self.value, id);
        if (!group.ok) return group;
        if (!isAdmin(group.value, self.value)) return fail(notAdmin(id, revoke ? 'reset the invite link' : 'read the invite link'));
        const code = revoke ? (await save(tx, id, { inviteCode: newInviteCode() })).inviteCode : group.value.inviteCode;
        return ok({ code });
      });
    },

    /** POST /sessions/{session}/groups/join {code}. */
    async join(db: Executor, account: AccountRow, body: unknown): Promise<GatewayResult<Json>> {
      const self = selfOf(account);
      if (!self.ok) return self;
      const code = isObject(body) && typeof body.code === 'string' ? body.code : undefined;
      if (!code) return fail(gateway.invalid('code must be an invite code'));
      return db.transaction(async (tx) => {
        const [group] = await tx.select().from(sandboxGroups).where(eq(sandboxGroups.inviteCode, code)).for('update').limit(1);
        if (!group) return fail({ status: 404, code: 'invite_not_found', message: 'no group has this invite code', retryable: false });
        if (group.participants.some((p) => p.phone === self.value)) return ok({ group_id: group.id });
        if (group.joinApproval) return ok({ pending: true });
        await save(tx, group.id, { participants: [...group.participants, { phone: self.value, role: 'member' }] });
        await report(tx, account, { group_id: group.id, change: 'group_join', subject: group.subject, author: self.value });
        return ok({ group_id: group.id });
      });
    },

    /** POST /sessions/{session}/groups/{group}/leave. */
    async leave(db: Executor, account: AccountRow, id: string): Promise<GatewayResult<Json>> {
      const self = selfOf(account);
      if (!self.ok) return self;
      return db.transaction(async (tx) => {
        const group = await groupOf(tx, self.value, id);
        if (!group.ok) return group;
        await save(tx, id, { participants: group.value.participants.filter((p) => p.phone !== self.value) });
        await report(tx, account, { group_id: id, change: 'group_leave', participants: [{ phone: self.value }], author: self.value });
        return ok({});
      });
    },

    /** POST /sessions/{session}/presence/subscribe {phone}: the contact's presence follows (a number not on the network has none). */
    async subscribePresence(db: Executor, account: AccountRow, body: unknown): Promise<GatewayResult<Json>> {
      const self = selfOf(account);
      if (!self.ok) return self;
      const phone = normalizePhone(isObject(body) ? body.phone : undefined);
      if (!phone) return fail(gateway.invalid('phone must be international digits'));
      if (recipientOutcome(phone) !== 'refuse')
        await ctx.enqueueCallback(
          db,
          {
            kind: 'gateway.event',
            session_id: account.id,
            event: 'presence',
            payload: { phone, presence: 'available', last_seen: null },
            at: clock.now().toISOString(),
          },
          0,
        );
      return ok({ subscribed: true });
    },

    /** PUT /sessions/{session}/settings: kept, shown by GET /sessions/{session}, honoured where the sandbox plays the part. */
    async settings(db: Executor, account: AccountRow, body: unknown): Promise<GatewayResult<Json>> {
      if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object of settings'));
      const settings: Json = {};
      for (const key of BOOLEAN_SETTINGS) {
        if (body[key] === undefined) continue;
        if (typeof body[key] !== 'boolean') return fail(gateway.invalid(`${key} must be true or false`));
        settings[key] = body[key];
      }
      await db.update(sandboxAccounts).set({ settings, updatedAt: clock.now() }).where(eq(sandboxAccounts.id, account.id));
      return ok({ settings });
    },
  };
}

export type GatewayGroups = ReturnType<typeof createGatewayGroups>;

/**
 * POST /sandbox/groups (a test's door): a group someone else made with the channel's number in it
 * (a member, or an admin with `admin: true`), or not in it (`member: false`: to join by its invite
 * code). The session hears of it as a phone would (group_join), when it is in it.
 */
export async function seedGroup(ctx: SandboxContext, db: Executor, account: AccountRow, body: Json): Promise<GatewayResult<Json>> {
  if (account.status !== 'WORKING' || !account.displayPhoneNumber) return fail(notWorking(account));
  const self = account.displayPhoneNumber.replace(/\D/g, '');
  if (typeof body.subject !== 'string' || body.subject.trim() === '' || body.subject.length > SUBJECT_MAX)
    return fail(gateway.invalid(`subject must be a non-empty string of at most ${SUBJECT_MAX} characters`));
  const others = body.participants === undefined ? [] : phonesOf(body.participants);
  if (!Array.isArray(others)) return fail(others);
  for (const key of ['admin', 'member', 'locked', 'announcement', 'members_can_add', 'join_approval'])
    if (body[key] !== undefined && typeof body[key] !== 'boolean') return fail(gateway.invalid(`${key} must be true or false`));
  const owner = `1555${String(randomInt(1_000_000, 9_999_999))}`;
  const member = body.member !== false;
  const participants: Participant[] = [
    { phone: owner, role: 'superadmin' },
    ...(member ? [{ phone: self, role: body.admin === true ? ('admin' as const) : ('member' as const) }] : []),
    ...others.filter((p) => p !== self && p !== owner).map((phone) => ({ phone, role: 'member' as const })),
  ];
  return db.transaction(async (tx) => {
    const group = await makeGroup(
      ctx,
      tx,
      account,
      {
        subject: body.subject as string,
        owner,
        participants,
        locked: body.locked === true,
        announcement: body.announcement === true,
        membersCanAdd: body.members_can_add === true,
        joinApproval: body.join_approval === true,
      },
      member ? owner : undefined,
    );
    return ok({ group_id: group.id, invite_code: group.inviteCode });
  });
}

/** A new group of the session's; with `joinedBy` (its author), the session hears of it as a phone would (group_join). */
async function makeGroup(
  ctx: SandboxContext,
  tx: Executor,
  account: AccountRow,
  values: Pick<GroupRow, 'subject' | 'owner' | 'participants'> &
    Partial<Pick<GroupRow, 'locked' | 'announcement' | 'membersCanAdd' | 'joinApproval'>>,
  joinedBy: string | undefined,
): Promise<GroupRow> {
  const now = ctx.clock.now();
  const [group] = await tx
    .insert(sandboxGroups)
    .values({ ...values, id: newGroupId(), accountId: account.id, inviteCode: newInviteCode(), createdAt: now, updatedAt: now })
    .returning();
  if (joinedBy)
    await ctx.enqueueCallback(
      tx,
      {
        kind: 'gateway.event',
        session_id: account.id,
        event: 'group.update',
        payload: { group_id: group!.id, change: 'group_join', subject: group!.subject, author: joinedBy },
        at: now.toISOString(),
      },
      0,
    );
  return group!;
}
