/** The lists and segments pages' API calls and wire types (the server's record types, imported as types only). */
import type { ListEntryRecord, ListRecord } from '../../../http/v1/lists.presenters.ts';
import type { SegmentRecord } from '../../../http/v1/segments.presenters.ts';
import type { ContactRecord } from '../../../http/v1/contacts.presenters.ts';
import { call, type Page } from '../../api.ts';

export type { ContactRecord, ListEntryRecord, ListRecord, SegmentRecord };

/** A condition of a filter, and a group of them (the language of docs/crm.md "Segments"). */
export type FilterCondition = { field: string; op: string; value?: unknown };
export type FilterGroup = { and: Array<FilterCondition | FilterGroup> } | { or: Array<FilterCondition | FilterGroup> };
export type SegmentPreview = { count: number; contacts: ContactRecord[] };

const data = <T>(r: { data: T }) => r.data;
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
