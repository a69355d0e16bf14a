/**
 * The `replied` recipient status: a customer message in a conversation within 72 hours after a
 * broadcast's message in it marks that message's recipient replied, once (replied_at is never
 * changed again, so the status never moves back). Called by the inbound path in the transaction
 * storing the customer's message (provider-events.ts, recordReply): one statement over the
 * conversation's messages of the last 72 hours (messages_conversation_idx), none when the
 * conversation had no broadcast.
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';

/** How long after a broadcast message a customer message counts as its reply. */
export const REPLY_WINDOW_MS = 72 * 3_600_000;

export async function recordBroadcastReply(tx: Executor, message: { conversationId: string }, at: Date): Promise<void> {
  const since = new Date(at.getTime() - REPLY_WINDOW_MS).toISOString();
  await tx.execute(
    sql`update broadcast_recipients br set replied_at = ${at.toISOString()}::timestamptz, updated_at = ${at.toISOString()}::timestamptz
          from messages m
         where m.conversation_id = ${message.conversationId}::uuid
           and m.created_at >= ${since}::timestamptz and m.created_at <= ${at.toISOString()}::timestamptz
           and m.broadcast_id is not null and m.direction = 'outbound'
           and br.message_id = m.id and br.replied_at is null`,
  );
}
