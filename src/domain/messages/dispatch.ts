/**
 * Sending an accepted message: wait for its slot of the channel's pace, probe media, record the
 * attempt before calling the provider, then store the outcome. A send whose answer was lost (the process died mid-call, the
 * call timed out or was cut) is never simply sent again: the provider is asked, where it can be, and
 * only what it never got is sent again; where it cannot be asked (the official API), a status
 * webhook echoing our id settles it, and a message no status names in time fails as outcome unknown.
 */
import { and, desc, eq, isNotNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { messages } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { Logger } from '../../lib/logger.ts';
import type { TargetPolicy } from '../../lib/safe-fetch.ts';
import type { ChannelConnection, Platform, ProviderAdapter, ProviderError, SendFinder } from '../../providers/provider.ts';
import type { ProviderRegistry } from '../../providers/registry.ts';
import {
  connectionOf,
  findChannel,
  recordProviderFault,
  recordProviderHold,
  reloadChannel,
  type ChannelRow,
} from '../channels/channels.ts';
import { checkMedia, mediaOf } from './media.ts';
import { holdTemplateAfterSend } from '../templates/templates.ts';
import { advanceStatus, advanceStatuses, type MessageError, type MessageRow } from './messages.ts';
import type { Pacer } from './pacing.ts';
import { batchRows } from '../../db/batch-rows.ts';

export type DispatchDeps = {
  db: Db;
  clock: Clock;
  sealer: Sealer;
  providers: ProviderRegistry;
  pacer: Pacer;
  logger: Logger;
  /** Where media URLs may point (the current config's rule, whatever the channel's history). */
  targets: TargetPolicy;
  /**
   * How long a send whose answer was lost may stay unsettled: waiting for a status webhook (a provider
   * that cannot be asked), or for the provider to answer a lookup; then it fails as outcome unknown.
   */
  reconcileAfterSeconds: number;
  /**
   * How long after it was accepted a message may wait while the provider holds its sends back (a
   * rate limit, maintenance: ProviderError.hold); a hold that would take it past this fails it.
   */
  holdSeconds: number;
  /**
   * How long after an attempt a provider that does not deduplicate is asked about it: a request cut
   * off on our side may still be landing on theirs, and a lookup before it lands would send it twice.
   */
  lookupSettleSeconds: number;
  /** The sandbox's own records, for channels bound to it (it can always be asked); undefined when it is off. */
  sandboxSends?: SendFinder;
  /** Told of every provider send call (the metrics); optional. */
  recorder?: SendRecorder;
};

/**
 * What became of a provider send call: sent; retry (a transient refusal, tried again); failed (a
 * final refusal); unknown (no answer came: settled before any new attempt).
 */
export type SendOutcome = 'sent' | 'retry' | 'failed' | 'unknown';
export type SendRecorder = { send(platform: string, outcome: SendOutcome, seconds: number): void };

/** Provider retries before a transient failure becomes final (a provider's hold spends none: holdSeconds bounds those). */
export const MAX_SEND_ATTEMPTS = 8;
/** How long a hold lasts when the provider's module names no time. */
const DEFAULT_HOLD_SECONDS = 5;
/** How long a message waits for its channel to come back before failing. */
const CHANNEL_WAIT_SECONDS = 30;
const CHANNEL_WAIT_ROUNDS = 20;

async function loadRow(db: Db, id: string): Promise<MessageRow | undefined> {
  const [row] = await db.select().from(messages).where(eq(messages.id, id)).limit(1);
  return row;
}

async function fail(deps: DispatchDeps, row: MessageRow, error: MessageError): Promise<null> {
  const now = deps.clock.now();
  await advanceStatus(deps.db, row, 'failed', now, now, { error });
  return null;
}

function backoffSeconds(attempt: number): number {
  return Math.min(600, 2 ** attempt) + Math.random();
}

/** How a send's writes reach the database: one by one, or gathered with the other sends of the moment (the dispatcher's). */
export type SendWrites = {
  /** Records an attempt before the provider call; undefined when the row moved on meanwhile (another worker, a status). */
  attempt(row: MessageRow): Promise<MessageRow | undefined>;
  /** Records an accepted send (sent, with its history and events). */
  sent(row: MessageRow, providerMessageId: string | undefined): Promise<void>;
};

/** The writes of one send, each on its own. */
export function singleSendWrites(deps: Pick<DispatchDeps, 'db' | 'clock'>): SendWrites {
  return {
    attempt: async (row) => (await recordAttempts(deps.db, [row], deps.clock.now()))[0],
    sent: (row, providerMessageId) => recordSent(deps.db, [{ row, providerMessageId }], deps.clock.now()),
  };
}

/**
 * Records attempts before their provider calls, many rows in one statement; resolves to the rows as
 * marked, in the order given (undefined for a row no longer queued with the attempts it was read with).
 */
export async function recordAttempts(db: Db, rows: MessageRow[], now: Date): Promise<Array<MessageRow | undefined>> {
  const marked = await db
    .update(messages)
    .set({ attempts: sql`${messages.attempts} + 1`, lastAttemptAt: now, errorCode: null, errorTitle: null, errorMessage: null })
    .where(
      and(
        eq(messages.status, 'queued'),
        sql`(${messages.id}, ${messages.attempts}) in (select r.id, r.attempts from ${batchRows(JSON.stringify(rows.map((r) => ({ id: r.id, attempts: r.attempts }))), 'r', 'id uuid, attempts int')})`,
      ),
    )
    .returning();
  const byId = new Map(marked.map((r) => [r.id, r]));
  return rows.map((r) => byId.get(r.id));
}

/** Records accepted sends, many in one statement (advanceStatuses); without a provider id (a read receipt) a row keeps none. */
export async function recordSent(
  db: Db,
  sends: Array<{ row: MessageRow; providerMessageId: string | undefined }>,
  now: Date,
): Promise<void> {
  await advanceStatuses(
    db,
    sends.map(({ row, providerMessageId }) => ({
      row,
      to: 'sent' as const,
      occurredAt: now,
      ...(providerMessageId ? { providerMessageId } : {}),
    })),
    now,
  );
}

/** A claimed message's channel as read with the claim, and the send slot the claim reserved for it (ms since the epoch). */
export type Claimed = { channel: ChannelRow | undefined; sendAt?: number | null; writes?: SendWrites };

/**
 * Sends one claimed message. Resolves to the seconds after which it is due again (waiting for its
 * channel, or to retry a transient failure), or null when there is nothing more to send (sent,
 * failed, or left to reconciliation). `loaded`: the message's channel as read with the claim (the
 * dispatcher reads each channel of a claim once; else it is read here), the slot of the channel's
 * pace the claim reserved for it (the send waits for it; none: it goes at once), and how its writes
 * are made (the dispatcher gathers those of the sends under way).
 */
export async function dispatchMessage(deps: DispatchDeps, row: MessageRow, loaded?: Claimed): Promise<number | null> {
  if (row.status !== 'queued' || row.direction !== 'outbound') return null;
  const writes = loaded?.writes ?? singleSendWrites(deps);
  // Only a channel that is gone fails the message: a database error is thrown, and the message tried again.
  const channel = loaded ? loaded.channel : await findChannel(deps.db, row.channelId);
  if (!channel) return fail(deps, row, { code: 'channel_deleted', title: 'the channel was deleted before the message was sent' });
  const platform = channel.platform as Platform;

  const adapter = deps.providers.get(platform);

  // An attempt whose answer never came back (the process died mid-call, or the call timed out or was cut).
  if (row.attempts > 0 && (!row.errorCode || LOST_ANSWER.has(row.errorCode))) {
    const settled = await settleLostAnswer(deps, row, adapter, connectionOf(channel, deps.sealer), writes);
    if (settled !== 'send_again') return settled;
    // The provider certainly does not have it: a definite failure once the attempts are spent.
    if (row.attempts >= MAX_SEND_ATTEMPTS) {
      return fail(deps, row, {
        code: row.errorCode ?? 'no_answer',
        title: row.errorTitle ?? 'no send attempt was answered, and the provider never received the message',
      });
    }
  }

  if (channel.status !== 'connected') {
    const waited = row.attempts;
    if (waited >= CHANNEL_WAIT_ROUNDS) return fail(deps, row, { code: 'channel_unavailable', title: `channel stayed ${channel.status}` });
    await deps.db
      .update(messages)
      .set({ attempts: waited + 1, errorCode: 'channel_unavailable', errorTitle: `channel is ${channel.status}` })
      .where(eq(messages.id, row.id));
    return CHANNEL_WAIT_SECONDS;
  }

  // The slot of the channel's pace the claim reserved (pacing.ts): the row waits here for it.
  const wait = loaded?.sendAt ? loaded.sendAt - deps.clock.now().getTime() : 0;
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));

  for (const media of mediaOf(row.type, row.content)) {
    const problem = await checkMedia(media.type, media.url, deps.targets);
    if (problem) return fail(deps, row, problem);
  }

  // Record the attempt before the call, so a crash during it is known on the retry.
  const marked = await writes.attempt(row);
  if (!marked) return null;

  const answering = row.type === 'presence' && row.content.message_id === undefined ? await latestInbound(deps.db, row) : undefined;
  const started = performance.now();
  const result = await adapter.send(connectionOf(channel, deps.sealer), {
    id: row.id,
    to: row.toPhone,
    type: row.type,
    content: row.content,
    ...(answering ? { answering } : {}),
  });
  const seconds = (performance.now() - started) / 1000;
  // The row as marked: a status that moved it meanwhile is met by advanceStatuses (it writes only from the status planned on, and plans again).
  if (result.ok) {
    await writes.sent(marked, result.value.providerMessageId);
    deps.recorder?.send(platform, 'sent', seconds);
    return null;
  }
  const due = await handleFailure(deps, marked, channel, adapter, result.error, writes);
  deps.recorder?.send(platform, LOST_ANSWER.has(result.error.code) ? 'unknown' : due === null ? 'failed' : 'retry', seconds);
  return due;
}

/** The provider id of the customer's latest message in the conversation: what a presence naming none answers. */
async function latestInbound(db: Db, row: MessageRow): Promise<string | undefined> {
  const [latest] = await db
    .select({ id: messages.providerMessageId })
    .from(messages)
    .where(and(eq(messages.conversationId, row.conversationId), eq(messages.direction, 'inbound'), isNotNull(messages.providerMessageId)))
    .orderBy(desc(messages.createdAt))
    .limit(1);
  return latest?.id ?? undefined;
}

/** Provider faults after which the provider may or may not have the send (bytes went out, no answer came). */
const LOST_ANSWER = new Set(['timeout', 'network_error']);

/** Who can say whether the provider got a send: the provider itself where its API allows, else the sandbox for channels bound to it. */
function finderFor(
  deps: DispatchDeps,
  adapter: ProviderAdapter,
  connection: ChannelConnection,
): ((messageId: string) => ReturnType<SendFinder>) | undefined {
  if (adapter.findSend) return (id) => adapter.findSend!(connection, id);
  if (connection.sandbox && deps.sandboxSends) return (id) => deps.sandboxSends!(connection, id);
  return undefined;
}

const secondsSince = (deps: DispatchDeps, at: Date | null) => (at ? (deps.clock.now().getTime() - at.getTime()) / 1000 : Infinity);

/**
 * Settles a message whose last attempt has no answer. Resolves to 'send_again' when the provider
 * certainly does not have it (or deduplicates a repeat), else like dispatchMessage: when to look
 * again (the provider asked later, or the end of the wait for a status naming it), or null when
 * settled (sent or failed).
 */
async function settleLostAnswer(
  deps: DispatchDeps,
  row: MessageRow,
  adapter: ProviderAdapter,
  connection: ChannelConnection,
  writes: SendWrites,
): Promise<number | null | 'send_again'> {
  const sends = adapter.sendsOf?.(connection) ?? adapter.sends;
  const find = sends.askable === false ? undefined : finderFor(deps, adapter, connection);
  const waited = secondsSince(deps, row.lastAttemptAt);
  if (!find) {
    // A repeat with the same idempotency key sends nothing new.
    if (sends.idempotentResend) return 'send_again';
    if (waited >= deps.reconcileAfterSeconds) return failUnreconciled(deps, row);
    // The message stays due at the end of the wait (by the dispatcher's clock): a status naming it
    // moves it out of `queued` first, which ends that (every move out of `queued` clears dispatch_at).
    deps.logger.warn(
      { message_id: row.id, attempts: row.attempts },
      'a send attempt has no answer and the provider cannot be asked; waiting for a status that names it',
    );
    return deps.reconcileAfterSeconds - waited;
  }
  if (!sends.idempotentResend && waited < deps.lookupSettleSeconds) return deps.lookupSettleSeconds - waited;
  const found = await find(row.id);
  if (found.ok && found.value.found) {
    deps.logger.info({ message_id: row.id }, 'the provider has the send whose answer was lost; recorded as sent');
    // A status webhook naming it may have moved it on meanwhile.
    const current = await loadRow(deps.db, row.id);
    if (current?.status === 'queued') await writes.sent(current, found.value.providerMessageId);
    return null;
  }
  if (found.ok) {
    deps.logger.info({ message_id: row.id }, 'the provider never got the send whose answer was lost; sending it again');
    return 'send_again';
  }
  // The provider could not be asked; a repeat it deduplicates is as good as an answer.
  if (sends.idempotentResend) return 'send_again';
  if (waited >= deps.reconcileAfterSeconds) {
    return fail(deps, row, {
      code: 'outcome_unknown',
      title: `the answer to the send was lost and the provider could not be asked about it for ${deps.reconcileAfterSeconds} s; whether it received the message is unknown`,
      message: found.error.title,
    });
  }
  deps.logger.warn(
    { message_id: row.id, error: found.error.title },
    'could not ask the provider about a send whose answer was lost; asking again later',
  );
  return Math.min(backoffSeconds(row.attempts), deps.reconcileAfterSeconds - waited + 1);
}

async function handleFailure(
  deps: DispatchDeps,
  row: MessageRow,
  channel: Awaited<ReturnType<typeof reloadChannel>>,
  adapter: ProviderAdapter,
  error: ProviderError,
  writes: SendWrites,
): Promise<number | null> {
  if (LOST_ANSWER.has(error.code)) {
    // The provider may have it: keep the fault on the row (the next round settles it, see
    // settleLostAnswer) and come back when a repeat is safe or the provider can be asked.
    deps.logger.warn({ message_id: row.id, error: error.title }, 'send outcome unknown; settling it before any new attempt');
    await deps.db
      .update(messages)
      .set({ errorCode: error.code, errorTitle: error.title, errorMessage: error.message ?? null })
      .where(eq(messages.id, row.id));
    const settled = await settleLostAnswer(deps, { ...row, errorCode: error.code }, adapter, connectionOf(channel, deps.sealer), writes);
    if (settled !== 'send_again') return settled;
    if (row.attempts >= MAX_SEND_ATTEMPTS) return fail(deps, row, { code: error.code, title: error.title, message: error.message });
    return backoffSeconds(row.attempts);
  }
  // The provider's classification says whom the error concerns (providers/provider.ts, ProviderErrorScope).
  if (error.hold && error.retryable) return holdBack(deps, row, channel, error);
  if (error.channelFault) await recordProviderFault(deps, channel, error);
  if (error.scope === 'template' && error.templateStatus) await holdTemplate(deps, channel, row, error);
  if (error.retryable && row.attempts < MAX_SEND_ATTEMPTS) {
    if (error.retryAfterSeconds) {
      if (error.scope === 'recipient') await deps.pacer.pauseRecipient(channel.id, row.toPhone, error.retryAfterSeconds * 1000);
      else if (error.scope === 'channel') await deps.pacer.pause(channel.id, error.retryAfterSeconds * 1000);
    }
    await deps.db
      .update(messages)
      .set({ errorCode: error.code, errorTitle: error.title, errorMessage: error.message ?? null })
      .where(eq(messages.id, row.id));
    return error.retryAfterSeconds ?? backoffSeconds(row.attempts);
  }
  return fail(deps, row, messageError(error));
}

/**
 * The provider holds sends back (a rate limit, maintenance): the channel or the recipient waits the
 * time it gives (pacing.ts; in every worker process), the channel's health shows it, and the message
 * is due again then with its attempt given back, since it did nothing wrong. A wait that would take it
 * past holdSeconds after it was accepted fails it instead, with the provider's error.
 */
async function holdBack(deps: DispatchDeps, row: MessageRow, channel: ChannelRow, error: ProviderError): Promise<number | null> {
  const seconds = error.retryAfterSeconds ?? DEFAULT_HOLD_SECONDS;
  const now = deps.clock.now();
  const waited = Math.max(0, (now.getTime() - row.createdAt.getTime()) / 1000);
  const recipient = error.scope === 'recipient';
  // The hold stands whatever becomes of this message: the other sends it concerns wait it out.
  if (recipient) await deps.pacer.pauseRecipient(channel.id, row.toPhone, seconds * 1000);
  else await deps.pacer.pause(channel.id, seconds * 1000);
  await recordProviderHold(deps, channel, error, recipient ? undefined : new Date(now.getTime() + seconds * 1000));
  if (waited + seconds > deps.holdSeconds) {
    return fail(deps, row, {
      ...messageError(error),
      message: `${error.message ? `${error.message} ` : ''}The provider held the message back for ${Math.round(waited)} s after it was accepted; the ${Math.round(seconds)} s more it asks for would pass MESSAGE_HOLD_SECONDS (${deps.holdSeconds} s).`,
    });
  }
  deps.logger.debug(
    { message_id: row.id, channel_id: channel.id, code: error.code, seconds, scope: recipient ? 'recipient' : 'channel' },
    'the provider holds sends back; the message waits',
  );
  await deps.db
    .update(messages)
    .set({
      attempts: sql`greatest(0, ${messages.attempts} - 1)`,
      errorCode: error.code,
      errorTitle: error.title,
      errorMessage: error.message ?? null,
    })
    .where(eq(messages.id, row.id));
  return seconds;
}

const messageError = (error: ProviderError): MessageError => ({
  code: error.code,
  title: error.title,
  ...(error.message !== undefined ? { message: error.message } : {}),
  ...(error.userTitle !== undefined ? { userTitle: error.userTitle } : {}),
  ...(error.userMessage !== undefined ? { userMessage: error.userMessage } : {}),
});

/** The provider paused or disabled the template the message uses: the stored template says so, and later sends of it are refused. */
async function holdTemplate(deps: DispatchDeps, channel: { id: string }, row: MessageRow, error: ProviderError): Promise<void> {
  const template = row.content.template as { name?: unknown; language?: { code?: unknown } } | undefined;
  if (typeof template?.name !== 'string' || typeof template.language?.code !== 'string') return;
  const held = await holdTemplateAfterSend(
    deps,
    channel,
    { name: template.name, language: template.language.code },
    error.templateStatus!,
    error.message ?? error.title,
  );
  deps.logger.warn(
    { message_id: row.id, template: template.name, status: error.templateStatus, stored: held !== undefined },
    'the provider refused a send of a template it holds back',
  );
}

/**
 * The end of the wait for a status naming a send whose answer was lost, where the provider cannot be
 * asked: if none has named it by now, whether the provider got it is unknown, and the message fails
 * saying so rather than risk sending it twice.
 */
function failUnreconciled(deps: DispatchDeps, row: MessageRow): Promise<null> {
  return fail(deps, row, {
    code: 'outcome_unknown',
    title: `the answer to the send was lost and no status named the message within ${deps.reconcileAfterSeconds} s; the provider cannot be asked, so whether it received the message is unknown`,
  });
}

/**
 * The message.reconcile job of an earlier version, which ended that wait with a job instead of the
 * message's due time: a message it left queued with nothing due fails as unknown, as it then did.
 */
export async function reconcileMessage(deps: DispatchDeps, messageId: string): Promise<void> {
  const row = await loadRow(deps.db, messageId);
  if (!row || row.status !== 'queued' || row.dispatchAt !== null) return;
  await failUnreconciled(deps, row);
}
