/**
 * Sending one broadcast recipient (runner.ts's steps and retries.ts's rounds): its Idempotency-Key, the
 * accept path, and the outcome recorded on the recipient, or on the broadcast when it cannot go on.
 */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { broadcastRecipients, broadcasts } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Actor } from '../actor.ts';
import { DomainError } from '../errors.ts';
import { acceptMessageOnce, type MessageDeps } from '../messages/accept.ts';
import type { BroadcastRow } from './broadcasts.ts';
import { templateContent } from './content.ts';
import { specOf } from './variants.ts';

export type RunnerDeps = { db: Executor; clock: Clock; messages: MessageDeps };

type RecipientRow = typeof broadcastRecipients.$inferSelect;

/**
 * A recipient's Idempotency-Key: `broadcast:<id>:<recipient>`, with `:<round>` for a retry-failed round
 * and `:marketing` for the send again after the provider's marketing limit, so each is a new message.
 */
export function recipientKey(broadcastId: string, r: Pick<RecipientRow, 'id' | 'round' | 'retryAt'>): string {
  return `broadcast:${broadcastId}:${r.id}${r.round > 0 ? `:${r.round}` : ''}${r.retryAt ? ':marketing' : ''}`;
}

/**
 * Hands one recipient to the accept path and records the outcome; 'halt' when the whole broadcast
 * cannot go on, 'later' when this recipient is to be tried again after a pause.
 */
export async function sendOne(deps: RunnerDeps, actor: Actor, row: BroadcastRow, r: RecipientRow): Promise<'ok' | 'halt' | 'later'> {
  const { db, clock } = deps;
  const content = templateContent(specOf(row, r.variant), { parameters: r.parameters ?? [], components: r.components });
  const record = (fields: Partial<RecipientRow>) =>
    db
      .update(broadcastRecipients)
      .set({ ...fields, updatedAt: clock.now() })
      .where(eq(broadcastRecipients.id, r.id));
  let outcome;
  try {
    outcome = await acceptMessageOnce(deps.messages, actor, {
      channelId: row.channelId,
      to: r.phone!,
      type: 'template',
      content,
      idempotency: { key: recipientKey(row.id, r), requestHash: r.id },
      broadcastId: row.id,
    });
  } catch (err) {
    // An input the accept path refuses for this recipient alone (its number): the others go on.
    if (err instanceof DomainError && err.code === 'invalid') {
      await record({ status: 'failed', reason: `invalid: ${err.message}`.slice(0, 500) });
      return 'ok';
    }
    throw err;
  }
  switch (outcome.refusal) {
    case null:
      await record({ messageId: outcome.message.id, retryAt: null });
      return 'ok';
    case 'send_refused':
      await record({ status: 'skipped', reason: outcome.code });
      return 'ok';
    case 'window_closed':
    case 'conversation_not_found':
    case 'conversation_mismatch':
    case 'idempotency_conflict':
      await record({ status: 'failed', reason: outcome.refusal });
      return 'ok';
    case 'contention':
      // The channel kept changing: this recipient and the rest a little later.
      return 'later';
    case 'channel_not_connected':
    case 'template_mismatch': {
      const reason =
        outcome.refusal === 'channel_not_connected' ? `the channel is ${outcome.status}` : 'the template no longer matches its parameters';
      await fail(deps, row.id, reason);
      return 'halt';
    }
    default:
      return outcome satisfies never;
  }
}

/** The whole broadcast cannot go on (its channel or template): failed, its pending recipients left pending. */
export async function fail({ db, clock }: RunnerDeps, id: string, reason: string): Promise<void> {
  const now = clock.now();
  await db
    .update(broadcasts)
    .set({ status: 'failed', failureReason: reason, nextRunAt: null, finishedAt: now, updatedAt: now })
    .where(and(eq(broadcasts.id, id), eq(broadcasts.status, 'sending')));
}
