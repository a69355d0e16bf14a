/** The tasks of the CRM: create, list ("my tasks", a record's tasks: filters and sorts), get, update, complete, reopen, delete. */
import { z } from 'zod';
import { TASK_PRIORITIES, TASK_STATUSES, TASK_TARGET_KINDS, TaskFieldsSchema, normalizeTaskFields } from '../../domain/tasks/fields.ts';
import { listTasks, TASK_SORTS } from '../../domain/tasks/list.ts';
import { completeTask, createTask, deleteTask, getTask, reopenTask, updateTask } from '../../domain/tasks/tasks.ts';
import type { TaskClockDeps } from '../../domain/tasks/records.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, IsoTimestamp, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { ChangedBySchema, crmRead, crmWrite, OwnerFilter, recordOf, recordParam, RecordRefSchema, sortParam } from './crm.schemas.ts';
import { presentTask } from './tasks.presenters.ts';

const TAG = 'tasks';

export const TaskSchema = z
  .object({
    id: z.uuid(),
    title: z.string(),
    notes: z.string().nullable(),
    due_at: z.string().nullable(),
    assignee_user_id: z.uuid().nullable().meta({ description: 'The member it is assigned to' }),
    priority: z.enum(TASK_PRIORITIES).nullable(),
    status: z.enum(TASK_STATUSES),
    completed_at: z.string().nullable(),
    completed_by: ChangedBySchema.nullable().meta({ description: 'Who completed it; null while open' }),
    targets: z.array(RecordRefSchema).meta({ description: 'The records it is linked to, by kind, then id' }),
    created_by: ChangedBySchema.meta({ description: 'Who created it' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Task' });

const EXAMPLE_IDS = {
  assignee: '0196b1f2-0a00-7000-8000-0000000000b1',
  deal: '0196b1f2-0a00-7000-8000-000000000221',
  contact: '0196b1f2-0a00-7000-8000-0000000000d1',
};

const CreateTaskBody = TaskFieldsSchema.meta({
  id: 'CreateTaskRequest',
  description:
    'Creates an open task. Each target must be a record of the organization (400 naming `targets/N/id` otherwise), as must the assignee. Records crm.record.created (object_kind `task`).',
  examples: [
    {
      title: 'Send the revised offer',
      notes: 'With the 40-seat discount we discussed.',
      due_at: '2025-06-05T09:00:00Z',
      assignee_user_id: EXAMPLE_IDS.assignee,
      priority: 'high',
      targets: [
        { kind: 'deal', id: EXAMPLE_IDS.deal },
        { kind: 'contact', id: EXAMPLE_IDS.contact },
      ],
    },
    { title: 'Call back' },
  ],
});

const UpdateTaskBody = TaskFieldsSchema.partial().meta({
  id: 'UpdateTaskRequest',
  description:
    'The fields to change; null clears one (not the title); targets replaces the set. A new due_at arms the due reminder again (crm.task.due when it passes). Records crm.record.updated when something changed. Complete or reopen a task with its own routes.',
  examples: [{ due_at: '2025-06-06T09:00:00Z' }, { assignee_user_id: null, priority: null }],
});

const Params = z.object({ taskID: PathId });

/** What the tasks routes use: the database and the clock. */
export type TaskServices = TaskClockDeps;

export async function registerTaskRoutes(app: App, deps: TaskServices) {
  app.post(
    '/v1/tasks',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Create a task',
        description: CreateTaskBody.description,
        body: CreateTaskBody,
        response: { 201: dataOf(TaskSchema).describe('Created'), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request, reply) => {
      const input = normalizeTaskFields(request.body);
      const task = await inputFrom('body', createTask(deps, actorOf(request), { ...input, title: request.body.title }));
      return reply.code(201).send({ data: presentTask(task) });
    },
  );

  app.get(
    '/v1/tasks',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'List tasks',
        description:
          'Soonest due first (tasks without a due time last) unless `sort` says otherwise, by cursor. Filters combine: "my open tasks due this week" is `assignee=me&status=open&due_before=…`, "overdue" is `overdue=true`, a deal’s tasks `record=deal:ID`.',
        querystring: PageQuerySchema.extend({
          sort: sortParam(TASK_SORTS, 'due_at', 'The order: `due_at` (tasks without one last) or `created_at`.'),
          assignee: OwnerFilter.meta({
            description: 'Assigned to `me` (the signed-in user: not with an API key), to nobody (`none`) or to a user id',
          }),
          status: z.enum(TASK_STATUSES).optional(),
          due_after: IsoTimestamp.optional().meta({ description: 'Due at or after this time (ISO 8601 with an offset)' }),
          due_before: IsoTimestamp.optional().meta({ description: 'Due before this time (ISO 8601 with an offset)' }),
          overdue: z
            .enum(['true', 'false'])
            .optional()
            .meta({ description: '`true`: open tasks whose due time has passed; `false`: every other' }),
          record: recordParam(TASK_TARGET_KINDS, 'Tasks linked to this record.'),
        }),
        response: { 200: listOf(TaskSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await inputFrom(
        'query',
        listTasks(deps, actorOf(request), {
          limit: q.limit,
          cursor: q.cursor,
          sort: q.sort,
          assignee: q.assignee,
          status: q.status,
          dueAfter: q.due_after === undefined ? undefined : new Date(q.due_after),
          dueBefore: q.due_before === undefined ? undefined : new Date(q.due_before),
          overdue: q.overdue === undefined ? undefined : q.overdue === 'true',
          record: recordOf(q.record),
        }),
      );
      return { data: page.items.map(presentTask), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/tasks/:taskID',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'Get a task',
        params: Params,
        response: { 200: dataOf(TaskSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentTask(await getTask(deps, actorOf(request), { taskId: request.params.taskID })) }),
  );

  app.patch(
    '/v1/tasks/:taskID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Update a task',
        description: UpdateTaskBody.description,
        params: Params,
        body: UpdateTaskBody,
        response: { 200: dataOf(TaskSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const fields = normalizeTaskFields(request.body);
      const task = await inputFrom('body', updateTask(deps, actorOf(request), { taskId: request.params.taskID, fields }));
      return { data: presentTask(task) };
    },
  );

  app.post(
    '/v1/tasks/:taskID/complete',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Complete a task',
        description:
          'Keeps when and by whom; records crm.record.updated and crm.task.completed. A completed task is answered as it is, with no event; its due reminder never comes.',
        params: Params,
        response: { 200: dataOf(TaskSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentTask(await completeTask(deps, actorOf(request), { taskId: request.params.taskID })) }),
  );

  app.post(
    '/v1/tasks/:taskID/reopen',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Reopen a task',
        description:
          'Opens a completed task again (its completion cleared); records crm.record.updated. An open task is answered as it is. A due time that passed while it was completed, without its reminder, has it now.',
        params: Params,
        response: { 200: dataOf(TaskSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentTask(await reopenTask(deps, actorOf(request), { taskId: request.params.taskID })) }),
  );

  app.delete(
    '/v1/tasks/:taskID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Delete a task',
        description: 'With its links and comments. Records crm.record.deleted.',
        params: Params,
        response: { 204: z.null().describe('Deleted'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await deleteTask(deps, actorOf(request), { taskId: request.params.taskID });
      return reply.code(204).send(null);
    },
  );
}
