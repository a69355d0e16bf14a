/** The contacts area's API calls and wire types (the server's record types, imported as types only). */
import type {
  ConsentRecord,
  ContactRecord,
  IdentityRecord,
  ImportResultRecord,
  NoteRecord,
  SuppressionRecord,
  TagRecord,
} from '../../../http/v1/contacts.presenters.ts';
import type { ContactFieldsRequest, PutContactConsentRequest, UpsertContactSuppressionRequest } from '../../../http/v1/contacts.schemas.ts';
import type { ChannelView } from '../../../http/v1/channels.presenters.ts';
import type { ConversationRecord } from '../../../http/v1/conversations.presenters.ts';
import type { OrderRecord } from '../../../http/v1/orders.presenters.ts';
import type { BlockedNumberRecord, NumberProfileRecord } from '../../../http/v1/channel-profiles.presenters.ts';
import type { ContactMergePreviewRecord } from '../../../http/v1/contacts-merge.presenters.ts';
import type { DealRecord } from '../../../http/v1/deals.presenters.ts';
import type { TimelineItemRecord } from '../../../http/v1/timeline.presenters.ts';
import { apiErrorOf, ApiError, call, csrfToken, currentOrganization, type Page } from '../../api.ts';

export type {
  ConsentRecord,
  ContactRecord,
  ConversationRecord,
  IdentityRecord,
  ImportResultRecord,
  NoteRecord,
  OrderRecord,
  SuppressionRecord,
  TagRecord,
};
export type ChannelRecord = ChannelView;
export type { ContactMergePreviewRecord, DealRecord, TimelineItemRecord };
export type { BlockedNumberRecord, NumberProfileRecord };

const channelPath = (id: string) => `/v1/channels/${encodeURIComponent(id)}`;

const path = (id: string) => `/v1/contacts/${encodeURIComponent(id)}`;
const data = <T>(r: { data: T }) => r.data;

export const contactsApi = {
  list: (filter: { search?: string; tag?: string }, cursor?: string) =>
    call<Page<ContactRecord>>('GET', '/v1/contacts', {
      query: { search: filter.search || undefined, tag: filter.tag || undefined, cursor },
    }),
  get: (id: string) => call<{ data: ContactRecord }>('GET', path(id)).then(data),
  create: (fields: ContactFieldsRequest) => call<{ data: ContactRecord }>('POST', '/v1/contacts', { body: fields }).then(data),
  update: (id: string, fields: ContactFieldsRequest) => call<{ data: ContactRecord }>('PATCH', path(id), { body: fields }).then(data),
  remove: (id: string) => call<void>('DELETE', path(id)),
  identities: (id: string) => call<Page<IdentityRecord>>('GET', `${path(id)}/identities`).then(data),
  notes: (id: string, cursor?: string) => call<Page<NoteRecord>>('GET', `${path(id)}/notes`, { query: { cursor } }),
  addNote: (id: string, body: string) => call<{ data: NoteRecord }>('POST', `${path(id)}/notes`, { body: { body } }).then(data),
  deleteNote: (id: string, noteId: string) => call<void>('DELETE', `${path(id)}/notes/${encodeURIComponent(noteId)}`),
  tags: (id: string) => call<Page<TagRecord>>('GET', `${path(id)}/tags`).then(data),
  addTag: (id: string, tag: string) => call<{ data: TagRecord }>('POST', `${path(id)}/tags`, { body: { tag } }).then(data),
  removeTag: (id: string, tag: string) => call<void>('DELETE', `${path(id)}/tags/${encodeURIComponent(tag)}`),
  consents: (id: string) => call<Page<ConsentRecord>>('GET', `${path(id)}/consents`).then(data),
  putConsent: (id: string, channel: string, body: PutContactConsentRequest) =>
    call<{ data: ConsentRecord }>('PUT', `${path(id)}/consent/${encodeURIComponent(channel)}`, { body }).then(data),
  suppressions: (id: string) => call<Page<SuppressionRecord>>('GET', `${path(id)}/suppressions`).then(data),
  suppress: (id: string, body: UpsertContactSuppressionRequest) =>
    call<{ data: SuppressionRecord }>('POST', `${path(id)}/suppressions`, { body }).then(data),
  lift: (id: string, channel: string) => call<void>('DELETE', `${path(id)}/suppressions/${encodeURIComponent(channel)}`),
  orders: (id: string, cursor?: string) => call<Page<OrderRecord>>('GET', '/v1/orders', { query: { contact_id: id, cursor } }),
  updateOrder: (orderId: string, body: { status?: OrderRecord['status']; payment_status?: OrderRecord['payment_status'] }) =>
    call<{ data: OrderRecord }>('PATCH', `/v1/orders/${encodeURIComponent(orderId)}`, { body }).then(data),
  conversations: (id: string, cursor?: string) =>
    call<Page<ConversationRecord>>('GET', '/v1/conversations', { query: { contact_id: id, cursor } }),
  timeline: (id: string, kind: string, cursor?: string) =>
    call<Page<TimelineItemRecord>>('GET', `${path(id)}/timeline`, { query: { kind: kind || undefined, cursor } }),
  deals: (id: string, cursor?: string) => call<Page<DealRecord>>('GET', '/v1/deals', { query: { contact_id: id, cursor } }),
  mergePreview: (id: string, duplicateId: string) =>
    call<{ data: ContactMergePreviewRecord }>('POST', `${path(id)}/merge/preview`, { body: { duplicate_id: duplicateId } }).then(data),
  merge: (id: string, duplicateId: string) =>
    call<{ data: ContactRecord }>('POST', `${path(id)}/merge`, { body: { duplicate_id: duplicateId } }).then(data),
  // Through a channel's phone (unofficial channels): the number's profile, and blocking it.
  profile: (channelId: string, phone: string) =>
    call<{ data: NumberProfileRecord }>('GET', `${channelPath(channelId)}/profiles/${encodeURIComponent(phone)}`).then(data),
  blocklist: (channelId: string) => call<Page<BlockedNumberRecord>>('GET', `${channelPath(channelId)}/blocklist`).then(data),
  block: (channelId: string, phone: string) =>
    call<{ data: BlockedNumberRecord }>('POST', `${channelPath(channelId)}/blocklist`, { body: { phone } }).then(data),
  unblock: (channelId: string, phone: string) =>
    call<{ data: BlockedNumberRecord }>('DELETE', `${channelPath(channelId)}/blocklist/${encodeURIComponent(phone)}`).then(data),
};

/** How far an import upload has come: bytes sent of the file's size. */
export type UploadProgress = { sent: number; total: number };

/**
 * POST /v1/contacts/import with the file as the body (text/csv or JSON lines), reporting the upload's
 * progress. XMLHttpRequest, not fetch: only it reports upload progress. Same headers as `call`.
 */
export function importContacts(file: File, onProgress: (progress: UploadProgress) => void): Promise<ImportResultRecord> {
  const type = /\.(ndjson|jsonl)$/i.test(file.name) ? 'application/x-ndjson' : 'text/csv';
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/v1/contacts/import');
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.setRequestHeader('Content-Type', `${type}; charset=utf-8`);
    const org = currentOrganization();
    if (org) xhr.setRequestHeader('X-Organization-Id', org);
    const token = csrfToken();
    if (token) xhr.setRequestHeader('X-CSRF-Token', token);
    xhr.upload.onprogress = (e) => onProgress({ sent: e.loaded, total: e.lengthComputable ? e.total : file.size });
    xhr.onerror = () => reject(new ApiError(0, 'cannot reach the server; check your connection and try again', 'network'));
    xhr.onload = () => {
      let parsed: unknown;
      try {
        parsed = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        parsed = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve((parsed as { data: ImportResultRecord }).data);
      else reject(apiErrorOf(xhr.status, xhr.statusText, parsed));
    };
    xhr.send(file);
  });
}
