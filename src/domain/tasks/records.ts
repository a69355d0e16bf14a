/**
 * A task as every read returns it: the row with its targets, each named as its record is now. The
 * reads the task routes and lists share.
 */
import { and, asc, eq, inArray, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { taskTargets, tasks } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid } from '../../lib/ids.ts';
import { nameRecords, type NamedRecordRef, type RecordKind } from '../crm/record-refs.ts';
import { notFound } from '../errors.ts';

export type TaskRow = typeof tasks.$inferSelect;

/** A task with its targets (by kind, then id), each with its record's name now. */
export type TaskView = TaskRow & { targets: NamedRecordRef[] };

export type TaskDeps = { db: Executor };
export type TaskClockDeps = { db: Executor; clock: Clock };

export const taskNotFound = () => notFound('task');

/** The rows, in their order, with their targets (one query for the links, one per kind for the names). */
export async function withTargets(db: Executor, organizationId: string, rows: TaskRow[]): Promise<TaskView[]> {
  if (rows.length === 0) return [];
  const links = await db
    .select({ taskId: taskTargets.taskId, kind: taskTargets.recordKind, id: taskTargets.recordId })
    .from(taskTargets)
    .where(
      inArray(
        taskTargets.taskId,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(asc(taskTargets.recordKind), asc(taskTargets.recordId));
  const named = await nameRecords(
    db,
    organizationId,
    links.map((l) => ({ kind: l.kind as RecordKind, id: l.id })),
  );
  const byTask = new Map<string, NamedRecordRef[]>();
  links.forEach((l, i) => byTask.set(l.taskId, [...(byTask.get(l.taskId) ?? []), named[i]!]));
  return rows.map((row) => ({ ...row, targets: byTask.get(row.id) ?? [] }));
}

/** The organization's tasks matching a condition, as views. */
export async function selectTasks(db: Executor, organizationId: string, condition: SQL | undefined): Promise<TaskView[]> {
  return withTargets(
    db,
    organizationId,
    await db
      .select()
      .from(tasks)
      .where(and(eq(tasks.organizationId, organizationId), condition)),
  );
}

/** A task of the organization, or undefined. */
export async function taskById(db: Executor, organizationId: string, taskId: string): Promise<TaskView | undefined> {
  if (!isUuid(taskId)) return undefined;
  return (await selectTasks(db, organizationId, eq(tasks.id, taskId.toLowerCase())))[0];
}

/** A task row of the organization locked to be changed, or undefined. */
export async function lockTaskRow(tx: Executor, organizationId: string, taskId: string): Promise<TaskRow | undefined> {
  if (!isUuid(taskId)) return undefined;
  const [row] = await tx
    .select()
    .from(tasks)
    .where(and(eq(tasks.id, taskId.toLowerCase()), eq(tasks.organizationId, organizationId)))
    .limit(1)
    .for('update');
  return row;
}
