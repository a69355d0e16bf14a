/**
 * The writable fields of a task, one schema for every way in (POST, PATCH), and their normalization:
 * empty notes to null, ids in one case. What the fields refer to (the
 * assignee, the targets) is checked against the organization's records by tasks.ts.
 */
import { z } from 'zod';
import type { RecordRef } from '../crm/record-refs.ts';
import { IsoTimestamp } from '../timestamps.ts';

export const TASK_PRIORITIES = ['low', 'medium', 'high'] as const;
export type TaskPriority = (typeof TASK_PRIORITIES)[number];
export const TASK_STATUSES = ['open', 'completed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
/** What a task may be linked to. */
export const TASK_TARGET_KINDS = ['contact', 'company', 'deal', 'conversation'] as const;
export const TASK_TARGETS_MAX = 100;
export const TASK_TITLE_MAX = 500;
export const TASK_NOTES_MAX = 10_000;

export const TaskTargetInputSchema = z
  .strictObject({
    kind: z.enum(TASK_TARGET_KINDS),
    id: z.uuid(),
  })
  .meta({ description: 'A record of the organization: a contact, company, deal or conversation' });

export const TaskFieldsSchema = z.strictObject({
  title: z.string().trim().min(1).max(TASK_TITLE_MAX).meta({ example: 'Send the revised offer' }),
  notes: z.string().trim().max(TASK_NOTES_MAX).nullable().optional().meta({ description: 'Free text; "" or null clears it' }),
  due_at: IsoTimestamp.nullable().optional().meta({
    description: 'When it is due (ISO 8601 with an offset). crm.task.due is recorded once it passes, unless the task is completed first',
    example: '2025-06-05T09:00:00Z',
  }),
  assignee_user_id: z.uuid().nullable().optional().meta({ description: 'A member of the organization; null for nobody' }),
  priority: z.enum(TASK_PRIORITIES).nullable().optional(),
  targets: z
    .array(TaskTargetInputSchema)
    .max(TASK_TARGETS_MAX)
    .optional()
    .meta({ description: `The records the task is about, at most ${TASK_TARGETS_MAX}; on a change, the whole set` }),
});

export type TaskFields = z.infer<typeof TaskFieldsSchema>;

/** Normalized fields: undefined leaves a value as it is, null clears it. */
export type TaskInput = {
  title?: string;
  notes?: string | null;
  dueAt?: Date | null;
  assigneeUserId?: string | null;
  priority?: TaskPriority | null;
  targets?: RecordRef[];
};

/** The fields as the domain takes them (the schema has checked them). */
export function normalizeTaskFields(fields: Partial<TaskFields>): TaskInput {
  const input: TaskInput = {};
  if (fields.title !== undefined) input.title = fields.title;
  if (fields.notes !== undefined) input.notes = fields.notes === '' ? null : fields.notes;
  if (fields.due_at !== undefined) input.dueAt = fields.due_at === null ? null : new Date(fields.due_at);
  if (fields.assignee_user_id !== undefined) input.assigneeUserId = fields.assignee_user_id?.toLowerCase() ?? null;
  if (fields.priority !== undefined) input.priority = fields.priority;
  // As given (a repeat included), so that a refusal names the place it was given at.
  if (fields.targets !== undefined) input.targets = fields.targets.map((t) => ({ kind: t.kind, id: t.id.toLowerCase() }));
  return input;
}
