/** The tasks routes' records (tasks.ts): the presenter of a task, typed from the response schema. */
import type { z } from 'zod';
import type { TaskPriority, TaskStatus } from '../../domain/tasks/fields.ts';
import type { TaskView } from '../../domain/tasks/records.ts';
import { presentChangedBy, presentRecordRef } from './crm.presenters.ts';
import type { TaskSchema } from './tasks.ts';

export type TaskRecord = z.infer<typeof TaskSchema>;

export function presentTask(row: TaskView): TaskRecord {
  return {
    id: row.id,
    title: row.title,
    notes: row.notes,
    due_at: row.dueAt?.toISOString() ?? null,
    assignee_user_id: row.assigneeUserId,
    priority: row.priority as TaskPriority | null,
    status: row.status as TaskStatus,
    completed_at: row.completedAt?.toISOString() ?? null,
    completed_by: row.completedByType ? presentChangedBy(row.completedByType, row.completedById, row.completedByUserId) : null,
    targets: row.targets.map(presentRecordRef),
    created_by: presentChangedBy(row.createdByType, row.createdById, row.createdByUserId),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
