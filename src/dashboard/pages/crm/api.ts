/** The CRM area's API calls and wire types (the server's record types, imported as types only). */
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
