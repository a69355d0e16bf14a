/**
 * What an embedded session keeps of its messages in the chat library's form (channel_session_messages),
 * for a bounded time: the chat key of every message it saw or sent (read receipts, reactions and quotes
 * name a message by it: a privacy-id chat or a group has another address than the phone's), and the
 * content of the ones it sent, which the library asks for (getMessage) when a recipient's phone could
 * not decrypt one and asks for it again. Without it, they keep seeing "waiting for this message".
 *
 * Bounds: 14 days (a phone asks for a retry when it gets the message, within days; the library itself
 * gives up on placeholders after 14) and a channel's newest 20,000, pruned when a socket opens and
 * every 500 writes of a session.
 */
import { and, eq, lt, sql } from 'drizzle-orm';
import type { proto, WAMessage, WAMessageKey } from 'baileys';
import type { Executor } from '../../../db/client.ts';
import { channelSessionMessages } from '../../../db/schema.ts';
import type { Sealer } from '../../../lib/crypto.ts';
import { library } from './library.ts';

export const SESSION_MESSAGE_DAYS = 14;
export const SESSION_MESSAGES_MAX = 20_000;
/** Writes of a session between two prunes. */
export const PRUNE_EVERY = 500;

/** A message as the session keeps it: its chat key, and its content when the session sent it. */
export type SessionMessage = { key: WAMessageKey; message?: proto.IMessage };

type Deps = { db: Executor; sealer: Sealer };

/**
 * Keeps the keys of messages (and the content of those given with it), once per id: a later write of
 * the same id adds content it did not have and never drops it.
 */
export async function recordSessionMessages(deps: Deps, channelId: string, items: SessionMessage[], now: Date): Promise<number> {
  const { proto: protos } = library();
  const rows = new Map<string, typeof channelSessionMessages.$inferInsert>();
  for (const { key, message } of items) {
    if (!key.id || !key.remoteJid) continue;
    const sealed = message ? deps.sealer.seal(Buffer.from(protos.Message.encode(message).finish()).toString('base64')) : null;
    rows.set(key.id, {
      channelId,
      messageId: key.id,
      remoteJid: key.remoteJid,
      participant: key.participant ?? null,
      fromMe: key.fromMe === true,
      messageSealed: sealed ?? rows.get(key.id)?.messageSealed ?? null,
      createdAt: now,
    });
  }
  if (rows.size === 0) return 0;
  await deps.db
    .insert(channelSessionMessages)
    .values([...rows.values()])
    .onConflictDoUpdate({
      target: [channelSessionMessages.channelId, channelSessionMessages.messageId],
      set: { messageSealed: sql`coalesce(excluded.message_sealed, ${channelSessionMessages.messageSealed})` },
    });
  return rows.size;
}

/** What the session keeps of one of its messages by the library's id; undefined when nothing (any more). */
export async function sessionMessage(deps: Deps, channelId: string, messageId: string): Promise<SessionMessage | undefined> {
  const [row] = await deps.db
    .select()
    .from(channelSessionMessages)
    .where(and(eq(channelSessionMessages.channelId, channelId), eq(channelSessionMessages.messageId, messageId)))
    .limit(1);
  if (!row) return undefined;
  const key: WAMessageKey = {
    remoteJid: row.remoteJid,
    fromMe: row.fromMe,
    id: row.messageId,
    ...(row.participant ? { participant: row.participant } : {}),
  };
  if (!row.messageSealed) return { key };
  const message = library().proto.Message.decode(Buffer.from(deps.sealer.open(row.messageSealed), 'base64'));
  return { key, message };
}

/** The content of a message the session sent, for the library's getMessage (a recipient's retry). */
export async function sentContent(deps: Deps, channelId: string, key: WAMessageKey): Promise<proto.IMessage | undefined> {
  if (!key.id) return undefined;
  const found = await sessionMessage(deps, channelId, key.id);
  return found?.key.fromMe ? found.message : undefined;
}

/** What the library answered a send with (its key and the message it built), to keep. */
export const sentOf = (sent: WAMessage): SessionMessage => ({ key: sent.key, ...(sent.message ? { message: sent.message } : {}) });

/** Drops a channel's messages past the age bound and beyond the newest SESSION_MESSAGES_MAX. */
export async function pruneSessionMessages(db: Executor, channelId: string, now: Date): Promise<void> {
  const oldest = new Date(now.getTime() - SESSION_MESSAGE_DAYS * 86_400_000);
  await db
    .delete(channelSessionMessages)
    .where(and(eq(channelSessionMessages.channelId, channelId), lt(channelSessionMessages.createdAt, oldest)));
  await db.execute(sql`delete from channel_session_messages
    where channel_id = ${channelId}::uuid
      and created_at < (select created_at from channel_session_messages where channel_id = ${channelId}::uuid
                         order by created_at desc offset ${SESSION_MESSAGES_MAX - 1} limit 1)`);
}
