/**
 * Sending an accepted message: pace the channel, probe media, record the attempt before calling
 * the provider, then store the outcome. A retry after a crash never sends twice: the gateway
 * deduplicates on our message id; the official API has no idempotency key, so an attempt whose
 * answer was lost is settled by reconciliation (a status webhook that echoes our id) instead.
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { messages } from '../../db/schema.ts';
import type { Queue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { Logger } from '../../lib/logger.ts';
import type { TargetPolicy } from '../../lib/safe-fetch.ts';
import type { Platform, ProviderError } from '../../providers/provider.ts';
import type { ProviderRegistry } from '../../providers/registry.ts';
import { connectionOf, recordProviderFault, reloadChannel } from '../channels/channels.ts';
import { checkMedia, mediaOf } from './media.ts';
import { advanceStatus, type MessageRow } from './messages.ts';
import type { Pacer } from './pacing.ts';

export type DispatchDeps = {
  db: Db;
  clock: Clock;
  queue: Queue;
  sealer: Sealer;
  providers: ProviderRegistry;
  pacer: Pacer;
  logger: Logger;
  /** Where media URLs may point (the current config's rule, whatever the channel's history). */
  targets: TargetPolicy;
  /** How long an official send whose answer was lost waits for a status webhook before failing. */
  reconcileAfterSeconds: number;
};

/** Provider retries before a transient failure becomes final. */
export const MAX_SEND_ATTEMPTS = 8;
/** How long a message waits for its channel to come back before failing. */
const CHANNEL_WAIT_SECONDS = 30;
const CHANNEL_WAIT_ROUNDS = 20;

async function loadRow(db: Db, id: string): Promise<MessageRow | undefined> {
  const [row] = await db.select().from(messages).where(eq(messages.id, id)).limit(1);
  return row;
}

async function fail(deps: DispatchDeps, row: MessageRow, error: { code: string; title: string; message?: string }): Promise<null> {
  const now = deps.clock.now();
  await deps.db.transaction((tx) => advanceStatus(tx, row, 'failed', now, now, { error }));
  return null;
}

function backoffSeconds(attempt: number): number {
  return Math.min(600, 2 ** attempt) + Math.random();
}

/**
 * Sends one claimed message. Resolves to the seconds after which it is due again (waiting for its
 * channel, for room in the channel's pace, or to retry a transient failure), or null when there is
 * nothing more to send (sent, failed, or left to reconciliation).
 */
export async function dispatchMessage(deps: DispatchDeps, row: MessageRow): Promise<number | null> {
  if (row.status !== 'queued' || row.direction !== 'outbound') return null;
  const channel = await reloadChannel(deps.db, row.channelId).catch(() => undefined);
  if (!channel) return fail(deps, row, { code: 'channel_deleted', title: 'the channel was deleted before the message was sent' });
  const platform = channel.platform as Platform;

  // An attempt whose answer never came back (the process died, or the call timed out).
  if (row.attempts > 0 && !row.errorCode) {
    if (platform === 'chatapp_official') {
      deps.logger.warn({ message_id: row.id, attempts: row.attempts }, 'a previous send attempt has no answer; reconciling instead of sending again');
      await deps.queue.enqueue(deps.db, 'message.reconcile', { message_id: row.id }, { startAfterSeconds: deps.reconcileAfterSeconds, singletonKey: row.id });
      return null;
    }
    // The gateway deduplicates on the idempotency key (our id), so sending again is safe.
  }

  if (channel.status !== 'connected') {
    const waited = row.attempts;
    if (waited >= CHANNEL_WAIT_ROUNDS) return fail(deps, row, { code: 'channel_unavailable', title: `channel stayed ${channel.status}` });
    await deps.db.update(messages).set({ attempts: waited + 1, errorCode: 'channel_unavailable', errorTitle: `channel is ${channel.status}` }).where(eq(messages.id, row.id));
    return CHANNEL_WAIT_SECONDS;
  }

  const wait = deps.pacer.reserve(channel.id, Number(channel.settings.throughput_per_second) || (platform === 'chatapp_official' ? 80 : 5), 2000);
  // Not taken: come back when the channel has room (the row, not a worker, waits).
  if (wait > 2000) return wait / 1000;
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));

  for (const media of mediaOf(row.type, row.content)) {
    const problem = await checkMedia(media.type, media.url, deps.targets);
    if (problem) return fail(deps, row, problem);
  }

  // Record the attempt before the call, so a crash during it is known on the retry.
  const marked = await deps.db
    .update(messages)
    .set({ attempts: row.attempts + 1, lastAttemptAt: deps.clock.now(), errorCode: null, errorTitle: null, errorMessage: null })
    .where(and(eq(messages.id, row.id), eq(messages.status, 'queued'), eq(messages.attempts, row.attempts)))
    .returning({ id: messages.id });
  if (marked.length === 0) return null;

  const result = await deps.providers.get(platform).send(connectionOf(channel, deps.sealer), { id: row.id, to: row.toPhone, type: row.type, content: row.content });
  const current = (await loadRow(deps.db, row.id))!;
  if (result.ok) {
    const now = deps.clock.now();
    await deps.db.transaction(async (tx) => {
      await tx.update(messages).set({ providerMessageId: result.value.providerMessageId }).where(and(eq(messages.id, row.id), eq(messages.status, 'queued')));
      await advanceStatus(tx, { ...current, providerMessageId: null }, 'sent', now, now, { providerMessageId: result.value.providerMessageId });
    });
    return null;
  }
  return handleFailure(deps, current, channel, result.error);
}

async function handleFailure(deps: DispatchDeps, row: MessageRow, channel: Awaited<ReturnType<typeof reloadChannel>>, error: ProviderError): Promise<number | null> {
  const platform = channel.platform as Platform;
  const outcomeUnknown = error.code === 'timeout' || error.code === 'network_error';
  if (outcomeUnknown && platform === 'chatapp_official') {
    // The provider may have accepted it: do not send again; wait for a status that names our id.
    deps.logger.warn({ message_id: row.id, error: error.title }, 'send outcome unknown; waiting for a status to reconcile');
    await deps.queue.enqueue(deps.db, 'message.reconcile', { message_id: row.id }, { startAfterSeconds: deps.reconcileAfterSeconds, singletonKey: row.id });
    return null;
  }
  if (error.channelFault) await recordProviderFault(deps, channel, error);
  if (error.retryable && row.attempts < MAX_SEND_ATTEMPTS) {
    if (error.retryAfterSeconds) deps.pacer.pause(channel.id, error.retryAfterSeconds * 1000);
    await deps.db
      .update(messages)
      .set({ errorCode: error.code, errorTitle: error.title, errorMessage: error.message ?? null })
      .where(eq(messages.id, row.id));
    return error.retryAfterSeconds ?? backoffSeconds(row.attempts);
  }
  return fail(deps, row, { code: error.code, title: error.title, message: error.message });
}

/** Settles a send whose answer was lost: if no status has named it by now, it failed. */
export async function reconcileMessage(deps: DispatchDeps, messageId: string): Promise<void> {
  const row = await loadRow(deps.db, messageId);
  if (!row || row.status !== 'queued') return;
  await fail(deps, row, {
    code: 'outcome_unknown',
    title: "the provider's answer to the send was lost and no status arrived; the message may not have been sent",
  });
}
