/** The sandbox rows a callback is made from. */
import { eq, inArray } from 'drizzle-orm';
import { batchIds } from '../../db/batch-rows.ts';
import type { Executor } from '../../db/client.ts';
import { sandboxAccounts, sandboxMedia, sandboxMessages } from '../../db/schema.ts';
import type { AccountRow, MessageRow } from '../context.ts';

export async function loadMessages(db: Executor, ids: string[]): Promise<Map<string, { message: MessageRow; account: AccountRow }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ message: sandboxMessages, account: sandboxAccounts })
    .from(sandboxMessages)
    .innerJoin(sandboxAccounts, eq(sandboxAccounts.id, sandboxMessages.accountId))
    .where(inArray(sandboxMessages.id, batchIds(ids, 'text')));
  return new Map(rows.map((r) => [r.message.id, r]));
}

export async function loadMessage(db: Executor, id: string): Promise<{ message: MessageRow; account: AccountRow } | undefined> {
  const [row] = await db
    .select({ message: sandboxMessages, account: sandboxAccounts })
    .from(sandboxMessages)
    .innerJoin(sandboxAccounts, eq(sandboxAccounts.id, sandboxMessages.accountId))
    .where(eq(sandboxMessages.id, id))
    .limit(1);
  return row;
}

export async function loadMedia(db: Executor, id: string) {
  const [media] = await db.select().from(sandboxMedia).where(eq(sandboxMedia.id, id)).limit(1);
  return media;
}
