/**
 * What a member held in an organization that outlives their membership: the conversations assigned to
 * them, the tasks assigned to them and the companies and deals they own. When the membership ends
 * they are released (unassigned, no owner) in the same transaction, each with its usual event, so no
 * record stays with someone who can no longer see it and the team finds them in "unassigned".
 */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { companies, conversations, deals, tasks } from '../../db/schema.ts';
import { recordEvents, type NewEvent } from '../events/outbox.ts';
import { conversationUpdated } from '../messages/conversations.ts';

export async function releaseMemberRecords(tx: Executor, organizationId: string, userId: string, now: Date): Promise<void> {
  const released = await tx
    .update(conversations)
    .set({ assigneeUserId: null, updatedAt: now })
    .where(and(eq(conversations.organizationId, organizationId), eq(conversations.assigneeUserId, userId)))
    .returning();
  const record = (kind: string, row: { id: string }, name: string): NewEvent => ({
    type: 'crm.record.updated',
    body: { object_kind: kind, record_id: row.id, display_name: name, organization_id: organizationId },
  });
  const owned = (table: typeof companies | typeof deals) =>
    tx
      .update(table)
      .set({ ownerUserId: null, updatedAt: now })
      .where(and(eq(table.organizationId, organizationId), eq(table.ownerUserId, userId)))
      .returning({ id: table.id, name: table.name });
  const [ownedCompanies, ownedDeals] = [await owned(companies), await owned(deals)];
  const assignedTasks = await tx
    .update(tasks)
    .set({ assigneeUserId: null, updatedAt: now })
    .where(and(eq(tasks.organizationId, organizationId), eq(tasks.assigneeUserId, userId)))
    .returning({ id: tasks.id, title: tasks.title });
  await recordEvents(
    tx,
    organizationId,
    [
      ...released.map((row): NewEvent => ({ type: 'conversation.updated', body: conversationUpdated(row) })),
      ...ownedCompanies.map((row) => record('company', row, row.name)),
      ...ownedDeals.map((row) => record('deal', row, row.name)),
      ...assignedTasks.map((row) => record('task', row, row.title)),
    ],
    now,
  );
}
