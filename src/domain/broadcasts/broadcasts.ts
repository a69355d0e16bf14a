/**
 * Broadcasts: a template sent to an audience on a channel, at a time, at a pace. A draft is edited
 * freely; scheduling checks everything that would make the send fail for all (the channel connected,
 * the template approved and its parameters given, an audience of at least one, a time not past);
 * runner.ts freezes the audience when the time comes and hands each recipient to the messages' own
 * accept path. Actions move the status: draft -> scheduled (schedule) -> sending -> completed;
 * scheduled -> draft (cancel); sending <-> paused (pause, resume); sending or paused -> stopped (stop).
 */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { given, listPage, newestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { broadcasts, channels } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { recordEvent } from '../events/outbox.ts';
import { DomainError, invalid, notFound } from '../errors.ts';
import { cursorKey } from '../paging.ts';
import { checkAudience, countResolved, resolveAudience, type Audience } from './audience.ts';
import { checkSpecVariables, checkTemplateSpec, type TemplateSpec } from './content.ts';
import { abTestOf, checkAbTest, mainSpec, type AbTest } from './variants.ts';
import { checkQuietHours, type QuietHours } from './quiet-hours.ts';

export type BroadcastRow = typeof broadcasts.$inferSelect;
export type BroadcastDeps = {
  db: Executor;
  clock: Clock /** Asks the runner to look now (a job), after a commit that made one due. */;
  wake?: () => Promise<void>;
};

export const BROADCAST_STATUSES = ['draft', 'scheduled', 'sending', 'paused', 'completed', 'stopped', 'failed'] as const;
export type BroadcastStatus = (typeof BROADCAST_STATUSES)[number];

/** How far in the past a send time may be and still mean "now" (clocks differ a little). */
const PAST_SLACK_MS = 60_000;

export const broadcastNotFound = () => notFound('broadcast');

export type BroadcastInput = {
  name: string;
  channelId: string;
  /** With an A/B test: variant 0 (the test's variants are the templates). */
  template: TemplateSpec;
  audience: Audience;
  abTest?: AbTest | null;
  sendAt?: Date | null;
  perMinute?: number | null;
  requireConsent?: boolean;
  /** Sending rules (sending-rules.ts, quiet-hours.ts, retries.ts). */
  quietHours?: QuietHours | null;
  retryMarketingLimitDays?: number | null;
  skipOpenConversations?: boolean;
};

async function loadRow(db: Executor, organizationId: string, broadcastId: string, lock = false): Promise<BroadcastRow> {
  if (!isUuid(broadcastId)) throw broadcastNotFound();
  const query = db
    .select()
    .from(broadcasts)
    .where(and(eq(broadcasts.id, broadcastId.toLowerCase()), eq(broadcasts.organizationId, organizationId)))
    .limit(1);
  const [row] = lock ? await query.for('update') : await query;
  if (!row) throw broadcastNotFound();
  return row;
}

const wrongState = (row: BroadcastRow, action: string, allowed: readonly BroadcastStatus[]) =>
  new DomainError('conflict', `cannot ${action} a broadcast that is ${row.status} (only when ${allowed.join(' or ')})`, {
    extra: { broadcast_status: row.status },
  });

/** The channel named, or a refusal naming /channel_id; `connected` also requires it to be connected. */
async function checkChannel(db: Executor, organizationId: string, channelId: string, connected: boolean): Promise<void> {
  const [channel] = isUuid(channelId)
    ? await db
        .select({ status: channels.status })
        .from(channels)
        .where(and(eq(channels.id, channelId.toLowerCase()), eq(channels.organizationId, organizationId)))
        .limit(1)
    : [];
  if (!channel)
    throw invalid('channel_id is not a channel of this organization', [{ pointer: '/channel_id', message: 'channel not found' }]);
  if (connected && channel.status !== 'connected') {
    throw new DomainError('conflict', `the channel is ${channel.status}, not connected`, {
      fieldErrors: [{ pointer: '/channel_id', message: `channel is ${channel.status}: connect it first` }],
    });
  }
}

function checkSendAt(sendAt: Date | null | undefined, now: Date): void {
  if (sendAt && sendAt.getTime() < now.getTime() - PAST_SLACK_MS) {
    throw invalid('send_at is in the past', [
      { pointer: '/send_at', message: `in the past (now is ${now.toISOString()}); omit it to send now` },
    ]);
  }
}

async function checkInput(db: Executor, organizationId: string, input: BroadcastInput, now: Date): Promise<void> {
  const variableErrors = checkSpecVariables(input.template, '/template');
  if (variableErrors.length) throw invalid(`template variables are invalid: ${variableErrors[0]!.message}`, variableErrors);
  checkSendAt(input.sendAt, now);
  const quietErrors = input.quietHours ? checkQuietHours(input.quietHours) : [];
  if (quietErrors.length) throw invalid(`quiet_hours are invalid: ${quietErrors[0]!.message}`, quietErrors);
  await checkChannel(db, organizationId, input.channelId, false);
  await checkTemplates(db, organizationId, input, now);
  await checkAudience(db, organizationId, input.audience);
}

/** The template (or the A/B test's variants) against the channel's templates. */
async function checkTemplates(db: Executor, organizationId: string, input: BroadcastInput, now: Date): Promise<void> {
  if (input.abTest) await checkAbTest(db, organizationId, input.channelId, input.abTest, input.sendAt, now);
  else await checkTemplateSpec(db, organizationId, input.channelId, input.template);
}

/** The columns of a broadcast's template: its own, or variant 0's with an A/B test. */
function templateColumns(input: BroadcastInput) {
  const template = input.abTest?.variants[0] ?? input.template;
  return {
    templateName: template.name,
    templateLanguage: template.language,
    variables: template.variables,
    header: (template.header ?? null) as Record<string, unknown> | null,
    buttons: (template.buttons ?? []) as Array<Record<string, unknown>>,
    abTest: (input.abTest ?? null) as Record<string, unknown> | null,
  };
}

const eventBody = (row: BroadcastRow) => ({
  broadcast_id: row.id,
  name: row.name,
  channel_id: row.channelId,
  organization_id: row.organizationId,
});

export async function createBroadcast({ db, clock }: BroadcastDeps, actor: Actor, input: BroadcastInput): Promise<BroadcastRow> {
  const now = clock.now();
  await checkInput(db, actor.organizationId, input, now);
  const [row] = await db
    .insert(broadcasts)
    .values({
      id: uuidv7(),
      organizationId: actor.organizationId,
      name: input.name,
      channelId: input.channelId.toLowerCase(),
      ...templateColumns(input),
      audience: input.audience as Record<string, unknown>,
      requireConsent: input.requireConsent ?? false,
      perMinute: input.perMinute ?? null,
      sendAt: input.sendAt ?? null,
      ...sendingRuleColumns(input),
      status: 'draft',
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return row!;
}

export async function getBroadcast({ db }: Pick<BroadcastDeps, 'db'>, actor: Actor, { broadcastId }: { broadcastId: string }) {
  return loadRow(db, actor.organizationId, broadcastId);
}

const inputOf = (row: BroadcastRow): BroadcastInput => ({
  name: row.name,
  channelId: row.channelId,
  template: mainSpec(row),
  audience: row.audience as Audience,
  abTest: abTestOf(row),
  sendAt: row.sendAt,
  perMinute: row.perMinute,
  requireConsent: row.requireConsent,
  quietHours: row.quietHours,
  retryMarketingLimitDays: row.retryMarketingLimitDays,
  skipOpenConversations: row.skipOpenConversations,
});

/** The sending rules' columns of an input. */
const sendingRuleColumns = (input: BroadcastInput) => ({
  quietHours: input.quietHours ?? null,
  retryMarketingLimitDays: input.retryMarketingLimitDays ?? null,
  skipOpenConversations: input.skipOpenConversations ?? false,
});

/** Changes a draft: what is given replaces what was (the template and the audience each as a whole). */
export async function updateBroadcast(
  { db, clock }: BroadcastDeps,
  actor: Actor,
  { broadcastId, fields }: { broadcastId: string; fields: Partial<BroadcastInput> },
): Promise<BroadcastRow> {
  return db.transaction(async (tx) => {
    const row = await loadRow(tx, actor.organizationId, broadcastId, true);
    if (row.status !== 'draft') throw wrongState(row, 'change', ['draft']);
    const next: BroadcastInput = { ...inputOf(row), ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) };
    const now = clock.now();
    await checkInput(tx, actor.organizationId, next, now);
    const [updated] = await tx
      .update(broadcasts)
      .set({
        name: next.name,
        channelId: next.channelId.toLowerCase(),
        ...templateColumns(next),
        audience: next.audience as Record<string, unknown>,
        requireConsent: next.requireConsent ?? false,
        perMinute: next.perMinute ?? null,
        sendAt: next.sendAt ?? null,
        ...sendingRuleColumns(next),
        updatedAt: now,
      })
      .where(eq(broadcasts.id, row.id))
      .returning();
    return updated!;
  });
}

/** Deletes a draft (a broadcast that sent stays, with its recipients, as the record of what was sent). */
export async function deleteBroadcast({ db }: Pick<BroadcastDeps, 'db'>, actor: Actor, { broadcastId }: { broadcastId: string }) {
  await db.transaction(async (tx) => {
    const row = await loadRow(tx, actor.organizationId, broadcastId, true);
    if (row.status !== 'draft') throw wrongState(row, 'delete', ['draft']);
    await tx.delete(broadcasts).where(eq(broadcasts.id, row.id));
  });
}

export type BroadcastListQuery = Page & { status?: BroadcastStatus };

/** The organization's broadcasts, newest first, by cursor. */
export async function listBroadcasts(
  { db }: Pick<BroadcastDeps, 'db'>,
  actor: Actor,
  query: BroadcastListQuery,
): Promise<PageResult<BroadcastRow>> {
  return listPage(db.select().from(broadcasts).$dynamic(), {
    where: [eq(broadcasts.organizationId, actor.organizationId), given(query.status, (s) => eq(broadcasts.status, s))],
    order: newestFirstBy(broadcasts.createdAt, broadcasts.id),
    after: cursorKey(query.cursor),
    limit: query.limit,
  });
}

/** The audience as it would be frozen now: how many would be sent, and how many skipped by reason. */
export async function countAudience({ db, clock }: BroadcastDeps, actor: Actor, { broadcastId }: { broadcastId: string }) {
  const row = await loadRow(db, actor.organizationId, broadcastId);
  const recipients = await resolveAudience(db, actor.organizationId, row as BroadcastRow & { audience: Audience }, clock.now());
  return countResolved(recipients);
}

/**
 * Schedules a draft for its send time (now when it has none), after the checks that would fail the
 * whole send: the channel connected, the template approved with its parameters, an audience of at
 * least one recipient to send to, a time not past.
 */
export async function scheduleBroadcast(
  deps: BroadcastDeps,
  actor: Actor,
  { broadcastId }: { broadcastId: string },
): Promise<BroadcastRow> {
  const { db, clock } = deps;
  const updated = await db.transaction(async (tx) => {
    const row = await loadRow(tx, actor.organizationId, broadcastId, true);
    if (row.status !== 'draft') throw wrongState(row, 'schedule', ['draft']);
    const now = clock.now();
    const input = inputOf(row);
    checkSendAt(input.sendAt, now);
    await checkChannel(tx, actor.organizationId, row.channelId, true);
    await checkTemplates(tx, actor.organizationId, input, now);
    const counted = countResolved(await resolveAudience(tx, actor.organizationId, row as BroadcastRow & { audience: Audience }, now));
    if (counted.sendable === 0) {
      throw invalid(`the audience has nobody to send to (${counted.total} found, all skipped)`, [
        { pointer: '/audience', message: `no recipient to send to: ${counted.total} found, ${counted.total - counted.sendable} skipped` },
      ]);
    }
    const due = row.sendAt && row.sendAt > now ? row.sendAt : now;
    const [next] = await tx
      .update(broadcasts)
      .set({ status: 'scheduled', nextRunAt: due, updatedAt: now })
      .where(eq(broadcasts.id, row.id))
      .returning();
    return next!;
  });
  await deps.wake?.();
  return updated;
}

type Move = { action: string; from: readonly BroadcastStatus[]; to: BroadcastStatus; event?: 'broadcast.paused' };

const MOVES = {
  cancel: { action: 'cancel', from: ['scheduled'], to: 'draft' },
  pause: { action: 'pause', from: ['sending'], to: 'paused', event: 'broadcast.paused' },
  resume: { action: 'resume', from: ['paused'], to: 'sending' },
  stop: { action: 'stop', from: ['sending', 'paused', 'scheduled'], to: 'stopped' },
} as const satisfies Record<string, Move>;

export type BroadcastAction = keyof typeof MOVES;

/**
 * Cancel (a schedule, back to draft), pause, resume or stop. A pause takes effect between two
 * recipients: a message already accepted is sent. Stop is final; its recipients not yet sent stay
 * pending (the report shows them as never sent).
 */
export async function moveBroadcast(
  deps: BroadcastDeps,
  actor: Actor,
  { broadcastId, action }: { broadcastId: string; action: BroadcastAction },
): Promise<BroadcastRow> {
  const move: Move = MOVES[action];
  const { db, clock } = deps;
  const updated = await db.transaction(async (tx) => {
    const row = await loadRow(tx, actor.organizationId, broadcastId, true);
    if (!move.from.includes(row.status as BroadcastStatus)) throw wrongState(row, move.action, move.from);
    const now = clock.now();
    const [next] = await tx
      .update(broadcasts)
      .set({
        status: move.to,
        // A pause keeps the next share's time, so pausing and resuming never sends more than per_minute in a minute.
        nextRunAt:
          move.to === 'sending'
            ? row.nextRunAt && row.nextRunAt > now
              ? row.nextRunAt
              : now
            : move.to === 'paused'
              ? row.nextRunAt
              : null,
        finishedAt: move.to === 'stopped' ? now : row.finishedAt,
        // A pause by a person, a resume or a stop: the sending rules' reason no longer stands (they pause again if it does).
        pauseReason: null,
        updatedAt: now,
      })
      .where(eq(broadcasts.id, row.id))
      .returning();
    if (move.event) await recordEvent(tx, row.organizationId, move.event, eventBody(next!));
    return next!;
  });
  if (updated.status === 'sending') await deps.wake?.();
  return updated;
}

export { eventBody as broadcastEventBody };
