/**
 * The session rows (channel_sessions): which channel sessions are wanted, which process holds each
 * under a lease, and what the holder last saw (state, QR, paired phone, the last disconnect, the next
 * reconnect). Any process reads them; only the holder writes what its socket saw, and only while its
 * lease is live (every such write names the owner and checks the lease: the fence).
 */
import { and, eq, gt, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../../db/client.ts';
import { channels, channelSessions } from '../../../db/schema.ts';
import { LeaseLostError } from './auth-state.ts';

/** The session states (the HTTP gateway's names, so one mapping serves both engines: mapping.ts channelStatusOf). */
export type SessionState = 'STARTING' | 'SCAN_QR' | 'WORKING' | 'STOPPED' | 'FAILED';

export type SessionRow = typeof channelSessions.$inferSelect;

/** NOTIFY channels: a session became wanted (holders claim); a session row changed (payload: channel id; QR waiters look). */
export const SESSION_WANTED = 'channel_session_wanted';
export const SESSION_CHANGED = 'channel_session_changed';

export async function readSession(db: Executor, channelId: string): Promise<SessionRow | undefined> {
  const [row] = await db.select().from(channelSessions).where(eq(channelSessions.channelId, channelId)).limit(1);
  return row;
}

/** True when a process holds the session under a live lease. */
export const hasLiveOwner = (row: SessionRow, now: Date) =>
  row.owner !== null && row.leaseUntil !== null && row.leaseUntil.getTime() > now.getTime();

export const notify = (tx: Executor, channel: string, payload = '') => tx.execute(sql`select pg_notify(${channel}, ${payload})`);

/**
 * Marks a session wanted (connect): a session held and live keeps its state, any other starts over
 * (STARTING, no QR, no reconnect wait). Holders are woken to claim it.
 */
export async function wantSession(db: Db, channelId: string, now: Date): Promise<SessionRow> {
  return db.transaction(async (tx) => {
    const live = sql`(${channelSessions.owner} is not null and ${channelSessions.leaseUntil} > ${now.toISOString()}::timestamptz)`;
    const [row] = await tx
      .insert(channelSessions)
      .values({ channelId, wanted: true, state: 'STARTING', updatedAt: now })
      .onConflictDoUpdate({
        target: channelSessions.channelId,
        set: {
          wanted: true,
          state: sql`case when ${live} and ${channelSessions.state} in ('SCAN_QR', 'WORKING') then ${channelSessions.state} else 'STARTING' end`,
          qrSealed: sql`case when ${live} then ${channelSessions.qrSealed} else null end`,
          qrExpiresAt: sql`case when ${live} then ${channelSessions.qrExpiresAt} else null end`,
          reconnectAttempts: 0,
          nextReconnectAt: null,
          disconnectReason: null,
          disconnectCode: null,
          disconnectCause: null,
          updatedAt: now,
        },
      })
      .returning();
    await notify(tx, SESSION_WANTED);
    await notify(tx, SESSION_CHANGED, channelId);
    return row!;
  });
}

/** The channel settings the embedded engine honours (docs/channels.md, "Channel settings"). */
export type SessionSettings = {
  groups: boolean;
  statuses: boolean;
  alwaysOnline: boolean;
  readReceipts: boolean;
};

export function sessionSettingsOf(settings: Record<string, unknown>): SessionSettings {
  return {
    groups: settings.group_messages === true,
    statuses: settings.status_messages === true,
    alwaysOnline: settings.always_online === true,
    readReceipts: settings.read_receipts === true,
  };
}

/** The settings of channels a holder holds, by channel (a channel deleted meanwhile is absent). */
export async function readSessionSettings(db: Executor, channelIds: string[]): Promise<Map<string, SessionSettings>> {
  if (channelIds.length === 0) return new Map();
  const rows = await db.select({ id: channels.id, settings: channels.settings }).from(channels).where(inArray(channels.id, channelIds));
  return new Map(rows.map((r) => [r.id, sessionSettingsOf(r.settings)]));
}

/** What a holder needs to know of a session's channel: the ref its events carry and the settings it honours. */
export type SessionChannel = { channelId: string; ref: string; settings: SessionSettings };

/**
 * Claims wanted sessions nobody holds under a live lease (skipping rows another process is claiming),
 * up to limit, leaving out those this process holds already. Returns them with their channels.
 */
export async function claimSessions(
  db: Db,
  input: { owner: string; now: Date; ttlMs: number; limit: number; held: string[] },
): Promise<Array<SessionRow & SessionChannel>> {
  if (input.limit <= 0) return [];
  const now = input.now.toISOString();
  const claimed = await db
    .update(channelSessions)
    .set({ owner: input.owner, leaseUntil: new Date(input.now.getTime() + input.ttlMs) })
    .where(
      sql`${channelSessions.channelId} in (select channel_id from channel_sessions
            where wanted and (owner is null or lease_until is null or lease_until <= ${now}::timestamptz)
            ${
              input.held.length > 0
                ? sql`and channel_id not in (${sql.join(
                    input.held.map((id) => sql`${id}::uuid`),
                    sql`, `,
                  )})`
                : sql``
            }
            order by lease_until nulls first limit ${input.limit}
            for update skip locked)`,
    )
    .returning();
  if (claimed.length === 0) return [];
  const found = await db
    .select({ id: channels.id, ref: channels.providerRef, settings: channels.settings })
    .from(channels)
    .where(
      inArray(
        channels.id,
        claimed.map((r) => r.channelId),
      ),
    );
  const byId = new Map(found.map((c) => [c.id, c]));
  return claimed.flatMap((row) => {
    const channel = byId.get(row.channelId);
    if (!channel) return [];
    return [{ ...row, ref: channel.ref ?? channel.id, settings: sessionSettingsOf(channel.settings) }];
  });
}

/** Whether a channel imports the history its phone sends when paired (settings.import_history). */
export async function importsHistory(db: Executor, channelId: string): Promise<boolean> {
  const [row] = await db.select({ settings: channels.settings }).from(channels).where(eq(channels.id, channelId)).limit(1);
  return row?.settings.import_history === true;
}

/** Renews this process's leases; returns the sessions it still holds, with whether each is still wanted. */
export async function renewLeases(
  db: Db,
  input: { owner: string; now: Date; ttlMs: number; held: string[] },
): Promise<Array<{ channelId: string; wanted: boolean }>> {
  if (input.held.length === 0) return [];
  return db
    .update(channelSessions)
    .set({ leaseUntil: new Date(input.now.getTime() + input.ttlMs) })
    .where(and(eq(channelSessions.owner, input.owner), inArray(channelSessions.channelId, input.held)))
    .returning({ channelId: channelSessions.channelId, wanted: channelSessions.wanted });
}

/** Hands sessions back (shutdown, a session no longer wanted): another process may claim them at once. */
export async function releaseSessions(db: Db, input: { owner: string; channelIds?: string[] }): Promise<void> {
  await db.transaction(async (tx) => {
    const released = await tx
      .update(channelSessions)
      .set({ owner: null, leaseUntil: null })
      .where(
        and(eq(channelSessions.owner, input.owner), input.channelIds ? inArray(channelSessions.channelId, input.channelIds) : undefined),
      )
      .returning({ channelId: channelSessions.channelId, wanted: channelSessions.wanted });
    if (released.some((r) => r.wanted)) await notify(tx, SESSION_WANTED);
  });
}

/**
 * The holder's write of what its socket saw, fenced: it applies only while this process holds the
 * lease (else LeaseLostError, and the caller closes its socket). Waiters on the row are notified.
 */
export async function updateHeldSession(
  db: Db,
  input: { channelId: string; owner: string; now: Date },
  set: Partial<Omit<SessionRow, 'channelId' | 'owner' | 'leaseUntil'>>,
): Promise<SessionRow> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(channelSessions)
      .set({ ...set, updatedAt: input.now })
      .where(fenceOf(input))
      .returning();
    if (!row) throw new LeaseLostError(input.channelId);
    await notify(tx, SESSION_CHANGED, input.channelId);
    return row;
  });
}

const fenceOf = (input: { channelId: string; owner: string; now: Date }) =>
  and(eq(channelSessions.channelId, input.channelId), eq(channelSessions.owner, input.owner), gt(channelSessions.leaseUntil, input.now));

/** The lease fence for a write in the caller's transaction (auth state): locks the row, throws LeaseLostError when not held. */
export async function assertHeld(tx: Executor, input: { channelId: string; owner: string; now: Date }): Promise<void> {
  const [row] = await tx.select({ id: channelSessions.channelId }).from(channelSessions).where(fenceOf(input)).for('update');
  if (!row) throw new LeaseLostError(input.channelId);
}

/** Stops a session nobody holds (logout without a live holder): not wanted, stopped, in the caller's transaction. */
export async function stopUnheldSession(tx: Executor, channelId: string, now: Date): Promise<boolean> {
  const stopped = await tx
    .update(channelSessions)
    .set({ wanted: false, state: 'STOPPED', qrSealed: null, qrExpiresAt: null, nextReconnectAt: null, updatedAt: now })
    .where(
      and(
        eq(channelSessions.channelId, channelId),
        or(isNull(channelSessions.owner), isNull(channelSessions.leaseUntil), lte(channelSessions.leaseUntil, now)),
      ),
    )
    .returning({ id: channelSessions.channelId });
  if (stopped.length > 0) await notify(tx, SESSION_CHANGED, channelId);
  return stopped.length > 0;
}
