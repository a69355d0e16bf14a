/**
 * Tasks: create, read, change, complete, reopen, delete (list.ts reads lists; due.ts records their due
 * reminders). What a task refers to (the assignee, its targets) must be the organization's: another
 * organization's is refused naming the field, like an unknown one. Changes record crm.record.*
 * (object_kind `task`, the title as display_name); completing one also records crm.task.completed.
 */
import { isDeepStrictEqual } from 'node:util';
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { taskTargets, tasks } from '../../db/schema.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { checkRecords, type RecordRef } from '../crm/record-refs.ts';
import { changedBy, checkOwner, recordCrmRecordEvent } from '../crm/records.ts';
import { recordEvents } from '../events/outbox.ts';
import type { TaskInput } from './fields.ts';
import { lockTaskRow, taskById, taskNotFound, type TaskClockDeps, type TaskDeps, type TaskRow, type TaskView } from './records.ts';

const recordOf = (row: TaskRow) => ({ kind: 'task' as const, id: row.id, displayName: row.title, organizationId: row.organizationId });

export async function getTask({ db }: TaskDeps, actor: Actor, { taskId }: { taskId: string }): Promise<TaskView> {
  const task = await taskById(db, actor.organizationId, taskId);
  if (!task) throw taskNotFound();
  return task;
}

/** Refuses an assignee or a target the organization does not have (each held until the transaction ends), naming the field. */
async function checkReferences(tx: Executor, organizationId: string, input: TaskInput, current?: TaskRow): Promise<void> {
  if (input.assigneeUserId !== undefined && input.assigneeUserId !== current?.assigneeUserId)
    await checkOwner(tx, organizationId, input.assigneeUserId, 'assignee_user_id');
  if (input.targets) await checkRecords(tx, organizationId, input.targets, (i) => `/targets/${i}/id`);
}

/** Replaces a task's targets with the set given (a repeat linked once). */
async function setTargets(tx: Executor, organizationId: string, taskId: string, targets: RecordRef[], now: Date): Promise<void> {
  await tx.delete(taskTargets).where(eq(taskTargets.taskId, taskId));
  const unique = [...new Map(targets.map((t) => [`${t.kind}:${t.id}`, t])).values()];
  if (unique.length > 0)
    await tx
      .insert(taskTargets)
      .values(unique.map((t) => ({ taskId, organizationId, recordKind: t.kind, recordId: t.id, createdAt: now })));
}

const sameTargets = (a: RecordRef[], b: RecordRef[]) => {
  const keys = (refs: RecordRef[]) => [...new Set(refs.map((r) => `${r.kind}:${r.id}`))].sort();
  return isDeepStrictEqual(keys(a), keys(b));
};

/** Creates an open task; records crm.record.created. */
export async function createTask({ db, clock }: TaskClockDeps, actor: Actor, input: TaskInput & { title: string }): Promise<TaskView> {
  const org = actor.organizationId;
  return db.transaction(async (tx) => {
    await checkReferences(tx, org, input);
    const now = clock.now();
    const by = changedBy(actor);
    const [row] = await tx
      .insert(tasks)
      .values({
        id: uuidv7(),
        organizationId: org,
        title: input.title,
        notes: input.notes ?? null,
        dueAt: input.dueAt ?? null,
        assigneeUserId: input.assigneeUserId ?? null,
        priority: input.priority ?? null,
        status: 'open',
        createdByType: by.type,
        createdById: by.id,
        createdByUserId: by.userId,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (input.targets) await setTargets(tx, org, row!.id, input.targets, now);
    await recordCrmRecordEvent(tx, 'created', recordOf(row!));
    return (await taskById(tx, org, row!.id))!;
  });
}

/**
 * Changes the fields given (null clears one; targets replaces the set); records crm.record.updated when
 * something changed. A new due_at re-arms the due reminder: crm.task.due is recorded again when it passes.
 */
export async function updateTask(
  { db, clock }: TaskClockDeps,
  actor: Actor,
  { taskId, fields: input }: { taskId: string; fields: TaskInput },
): Promise<TaskView> {
  const org = actor.organizationId;
  return db.transaction(async (tx) => {
    const row = await lockTaskRow(tx, org, taskId);
    if (!row) throw taskNotFound();
    await checkReferences(tx, org, input, row);
    const next = {
      title: input.title ?? row.title,
      notes: input.notes === undefined ? row.notes : input.notes,
      dueAt: input.dueAt === undefined ? row.dueAt : input.dueAt,
      assigneeUserId: input.assigneeUserId === undefined ? row.assigneeUserId : input.assigneeUserId,
      priority: input.priority === undefined ? row.priority : input.priority,
    };
    const current = input.targets
      ? await tx.select({ kind: taskTargets.recordKind, id: taskTargets.recordId }).from(taskTargets).where(eq(taskTargets.taskId, row.id))
      : [];
    const targetsChanged = input.targets !== undefined && !sameTargets(input.targets, current as RecordRef[]);
    const dueMoved = next.dueAt?.getTime() !== row.dueAt?.getTime();
    const fieldsChanged = dueMoved || (['title', 'notes', 'assigneeUserId', 'priority'] as const).some((k) => next[k] !== row[k]);
    if (!fieldsChanged && !targetsChanged) return (await taskById(tx, org, row.id))!;
    const now = clock.now();
    const [updated] = await tx
      .update(tasks)
      .set({ ...next, ...(dueMoved ? { dueNotifiedAt: null } : {}), updatedAt: now })
      .where(and(eq(tasks.id, row.id), eq(tasks.organizationId, org)))
      .returning();
    if (targetsChanged) await setTargets(tx, org, row.id, input.targets!, now);
    await recordCrmRecordEvent(tx, 'updated', recordOf(updated!));
    return (await taskById(tx, org, row.id))!;
  });
}

/**
 * Completes an open task (who and when kept on it); records crm.record.updated and crm.task.completed.
 * A completed task is answered as it is, with no event. Its due reminder never comes after.
 */
export async function completeTask({ db, clock }: TaskClockDeps, actor: Actor, { taskId }: { taskId: string }): Promise<TaskView> {
  const org = actor.organizationId;
  return db.transaction(async (tx) => {
    const row = await lockTaskRow(tx, org, taskId);
    if (!row) throw taskNotFound();
    if (row.status === 'completed') return (await taskById(tx, org, row.id))!;
    const now = clock.now();
    const by = changedBy(actor);
    const [done] = await tx
      .update(tasks)
      .set({
        status: 'completed',
        completedAt: now,
        completedByType: by.type,
        completedById: by.id,
        completedByUserId: by.userId,
        updatedAt: now,
      })
      .where(and(eq(tasks.id, row.id), eq(tasks.organizationId, org)))
      .returning();
    await recordEvents(tx, org, [
      {
        type: 'crm.record.updated',
        body: { object_kind: 'task', record_id: done!.id, display_name: done!.title, organization_id: org },
      },
      {
        type: 'crm.task.completed',
        body: {
          task_id: done!.id,
          title: done!.title,
          assignee_user_id: done!.assigneeUserId,
          due_at: done!.dueAt?.toISOString() ?? null,
          completed_at: now.toISOString(),
          completed_by: { type: by.type, id: by.id, user_id: by.userId },
          organization_id: org,
        },
      },
    ]);
    return (await taskById(tx, org, row.id))!;
  });
}

/**
 * Opens a completed task again (its completion forgotten); records crm.record.updated. An open task is
 * answered as it is. A due time that passed while it was completed, never reminded, is reminded now.
 */
export async function reopenTask({ db, clock }: TaskClockDeps, actor: Actor, { taskId }: { taskId: string }): Promise<TaskView> {
  const org = actor.organizationId;
  return db.transaction(async (tx) => {
    const row = await lockTaskRow(tx, org, taskId);
    if (!row) throw taskNotFound();
    if (row.status === 'open') return (await taskById(tx, org, row.id))!;
    const [open] = await tx
      .update(tasks)
      .set({
        status: 'open',
        completedAt: null,
        completedByType: null,
        completedById: null,
        completedByUserId: null,
        updatedAt: clock.now(),
      })
      .where(and(eq(tasks.id, row.id), eq(tasks.organizationId, org)))
      .returning();
    await recordCrmRecordEvent(tx, 'updated', recordOf(open!));
    return (await taskById(tx, org, row.id))!;
  });
}

/** Deletes a task with its targets and comments. Records crm.record.deleted. */
export async function deleteTask({ db }: TaskDeps, actor: Actor, { taskId }: { taskId: string }): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await lockTaskRow(tx, actor.organizationId, taskId);
    if (!row) throw taskNotFound();
    await tx.delete(tasks).where(and(eq(tasks.id, row.id), eq(tasks.organizationId, actor.organizationId)));
    await recordCrmRecordEvent(tx, 'deleted', recordOf(row));
  });
}
