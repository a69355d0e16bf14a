/** The CRM area's API calls (companies, deals, tasks, comments, lists and segments) and wire types (the server's record types, imported as types only). */
import type { ListEntryRecord, ListRecord } from '../../../http/v1/lists.presenters.ts';
import type { SegmentRecord } from '../../../http/v1/segments.presenters.ts';
import type { ContactRecord } from '../../../http/v1/contacts.presenters.ts';
import type { CompanyFields } from '../../../domain/companies/fields.ts';
import type { DealFields } from '../../../domain/deals/fields.ts';
import type { TaskFields } from '../../../domain/tasks/fields.ts';
import type { CommentRecord } from '../../../http/v1/comments.presenters.ts';
import type { CompanyRecord } from '../../../http/v1/companies.presenters.ts';
import type { ChangedByRecord, RecordRefRecord } from '../../../http/v1/crm.presenters.ts';
import type { DealRecord, StageChangeRecord } from '../../../http/v1/deals.presenters.ts';
import type { BoardRecord, PipelineRecord, StageRecord } from '../../../http/v1/pipelines.presenters.ts';
import type { TaskRecord } from '../../../http/v1/tasks.presenters.ts';
import { call, type Page } from '../../api.ts';

export type {
  BoardRecord,
  ChangedByRecord,
  CommentRecord,
  CompanyRecord,
  DealRecord,
  PipelineRecord,
  RecordRefRecord,
  StageChangeRecord,
  StageRecord,
  TaskRecord,
};
export type BoardStage = BoardRecord['stages'][number];
export type CompanyBody = Partial<CompanyFields>;
export type DealBody = Partial<DealFields>;
export type TaskBody = Partial<TaskFields>;
/** A record comments and tasks hang on. */
export type RecordKind = 'company' | 'deal' | 'contact' | 'task' | 'conversation';

const enc = encodeURIComponent;
const data = <T>(r: { data: T }) => r.data;
/** Drops the empty filters, so the query string holds only what is set. */
const query = (q: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(q).map(([k, v]) => [k, v === '' ? undefined : v]));

export type CompanyFilter = { name?: string; sort?: string; owner?: string };
export type TaskFilter = {
  assignee?: string;
  status?: 'open' | 'completed';
  due_after?: string;
  due_before?: string;
  overdue?: 'true';
  record?: string;
  sort?: string;
};

export const crmApi = {
  companies: (filter: CompanyFilter, cursor?: string) =>
    call<Page<CompanyRecord>>('GET', '/v1/companies', {
      query: query({ name_contains: filter.name, sort: filter.sort, owner: filter.owner, cursor }),
    }),
  /** Companies by name for a picker: the first 200 (a larger CRM types a few letters in the list page). */
  companyOptions: () => call<Page<CompanyRecord>>('GET', '/v1/companies', { query: { sort: 'name', limit: '200' } }).then(data),
  company: (id: string) => call<{ data: CompanyRecord }>('GET', `/v1/companies/${enc(id)}`).then(data),
  createCompany: (body: CompanyBody) => call<{ data: CompanyRecord }>('POST', '/v1/companies', { body }).then(data),
  updateCompany: (id: string, body: CompanyBody) => call<{ data: CompanyRecord }>('PATCH', `/v1/companies/${enc(id)}`, { body }).then(data),
  deleteCompany: (id: string) => call<void>('DELETE', `/v1/companies/${enc(id)}`),

  pipelines: () => call<Page<PipelineRecord>>('GET', '/v1/pipelines', { query: { limit: '100' } }).then(data),
  board: (pipelineId: string) => call<{ data: BoardRecord }>('GET', `/v1/pipelines/${enc(pipelineId)}/board`).then(data),
  stageDeals: (pipelineId: string, stageId: string, cursor: string) =>
    call<Page<DealRecord>>('GET', `/v1/pipelines/${enc(pipelineId)}/stages/${enc(stageId)}/deals`, { query: { cursor } }),

  deals: (filter: { company_id?: string; contact_id?: string }, cursor?: string) =>
    call<Page<DealRecord>>('GET', '/v1/deals', { query: query({ ...filter, cursor }) }),
  deal: (id: string) => call<{ data: DealRecord }>('GET', `/v1/deals/${enc(id)}`).then(data),
  createDeal: (body: DealBody) => call<{ data: DealRecord }>('POST', '/v1/deals', { body }).then(data),
  updateDeal: (id: string, body: DealBody) => call<{ data: DealRecord }>('PATCH', `/v1/deals/${enc(id)}`, { body }).then(data),
  deleteDeal: (id: string) => call<void>('DELETE', `/v1/deals/${enc(id)}`),
  stageHistory: (id: string, cursor?: string) =>
    call<Page<StageChangeRecord>>('GET', `/v1/deals/${enc(id)}/stage-history`, { query: { cursor } }),

  tasks: (filter: TaskFilter, cursor?: string) => call<Page<TaskRecord>>('GET', '/v1/tasks', { query: query({ ...filter, cursor }) }),
  createTask: (body: TaskBody) => call<{ data: TaskRecord }>('POST', '/v1/tasks', { body }).then(data),
  completeTask: (id: string) => call<{ data: TaskRecord }>('POST', `/v1/tasks/${enc(id)}/complete`).then(data),
  reopenTask: (id: string) => call<{ data: TaskRecord }>('POST', `/v1/tasks/${enc(id)}/reopen`).then(data),
  deleteTask: (id: string) => call<void>('DELETE', `/v1/tasks/${enc(id)}`),

  comments: (record: string, cursor?: string) => call<Page<CommentRecord>>('GET', '/v1/comments', { query: { record, cursor } }),
  addComment: (kind: RecordKind, id: string, body: string) =>
    call<{ data: CommentRecord }>('POST', '/v1/comments', { body: { record: { kind, id }, body } }).then(data),
  deleteComment: (id: string) => call<void>('DELETE', `/v1/comments/${enc(id)}`),
};

export type { ContactRecord, ListEntryRecord, ListRecord, SegmentRecord };

/** A condition of a filter, and a group of them (the language of docs/crm.md "Segments"). */
export type FilterCondition = { field: string; op: string; value?: unknown };
export type FilterGroup = { and: Array<FilterCondition | FilterGroup> } | { or: Array<FilterCondition | FilterGroup> };
export type SegmentPreview = { count: number; contacts: ContactRecord[] };

const listPath = (id: string) => `/v1/lists/${encodeURIComponent(id)}`;
const segmentPath = (id: string) => `/v1/segments/${encodeURIComponent(id)}`;

export const listsApi = {
  list: (cursor?: string) => call<Page<ListRecord>>('GET', '/v1/lists', { query: { cursor, sort: 'name' } }),
  get: (id: string) => call<{ data: ListRecord }>('GET', listPath(id)).then(data),
  create: (body: { name: string; kind: string; description?: string | null }) =>
    call<{ data: ListRecord }>('POST', '/v1/lists', { body }).then(data),
  remove: (id: string) => call<void>('DELETE', listPath(id)),
  entries: (id: string, cursor?: string) => call<Page<ListEntryRecord>>('GET', `${listPath(id)}/entries`, { query: { cursor } }),
  add: (id: string, recordIds: string[]) =>
    call<{ data: { added: string[]; existing: string[] } }>('POST', `${listPath(id)}/entries`, { body: { record_ids: recordIds } }).then(
      data,
    ),
  removeEntry: (id: string, recordId: string) => call<void>('DELETE', `${listPath(id)}/entries/${encodeURIComponent(recordId)}`),
};

export const segmentsApi = {
  list: (cursor?: string) => call<Page<SegmentRecord>>('GET', '/v1/segments', { query: { cursor, sort: 'name' } }),
  get: (id: string) => call<{ data: SegmentRecord }>('GET', segmentPath(id)).then(data),
  create: (body: { name: string; description?: string | null; filter: FilterGroup }) =>
    call<{ data: SegmentRecord }>('POST', '/v1/segments', { body }).then(data),
  update: (id: string, body: { name?: string; filter?: FilterGroup }) =>
    call<{ data: SegmentRecord }>('PATCH', segmentPath(id), { body }).then(data),
  remove: (id: string) => call<void>('DELETE', segmentPath(id)),
  count: (id: string) => call<{ data: { count: number; counted_at: string } }>('GET', `${segmentPath(id)}/count`).then(data),
  preview: (filter: FilterGroup) => call<{ data: SegmentPreview }>('POST', '/v1/segments/preview', { body: { filter } }).then(data),
};
