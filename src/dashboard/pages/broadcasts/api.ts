/** The broadcasts area's API calls and wire types (the server's record types, imported as types only). */
import type { BroadcastRecipientRecord, BroadcastRecord } from '../../../http/v1/broadcasts.presenters.ts';
import type { z } from 'zod';
import type { AudienceCountSchema, CreateBroadcastBody, ReportSchema, UpdateBroadcastBody } from '../../../http/v1/broadcasts.schemas.ts';
import { apiErrorOf, ApiError, call, currentOrganization, type Page } from '../../api.ts';

export type { BroadcastRecipientRecord, BroadcastRecord };
export type BroadcastStatus = BroadcastRecord['status'];
export type RecipientStatus = BroadcastRecipientRecord['status'];
export type BroadcastAudience = BroadcastRecord['audience'];
export type AudienceCount = z.infer<typeof AudienceCountSchema>;
export type BroadcastReport = z.infer<typeof ReportSchema>;
export type CreateBroadcastRequest = z.input<typeof CreateBroadcastBody>;
export type UpdateBroadcastRequest = z.input<typeof UpdateBroadcastBody>;
/** The actions a broadcast's page offers (POST /v1/broadcasts/{id}/{action}). */
export type BroadcastAction = 'schedule' | 'cancel' | 'pause' | 'resume' | 'stop';

const path = (id: string) => `/v1/broadcasts/${encodeURIComponent(id)}`;
const data = <T>(r: { data: T }) => r.data;

export const broadcastsApi = {
  list: (status: string | undefined, cursor?: string) =>
    call<Page<BroadcastRecord>>('GET', '/v1/broadcasts', { query: { status, cursor } }),
  get: (id: string) => call<{ data: BroadcastRecord }>('GET', path(id)).then(data),
  create: (body: CreateBroadcastRequest) => call<{ data: BroadcastRecord }>('POST', '/v1/broadcasts', { body }).then(data),
  update: (id: string, body: UpdateBroadcastRequest) => call<{ data: BroadcastRecord }>('PATCH', path(id), { body }).then(data),
  remove: (id: string) => call<void>('DELETE', path(id)),
  audienceCount: (id: string) => call<{ data: AudienceCount }>('GET', `${path(id)}/audience-count`).then(data),
  act: (id: string, action: BroadcastAction) => call<{ data: BroadcastRecord }>('POST', `${path(id)}/${action}`).then(data),
  report: (id: string) => call<{ data: BroadcastReport }>('GET', `${path(id)}/report`).then(data),
  recipients: (id: string, status: string | undefined, cursor?: string) =>
    call<Page<BroadcastRecipientRecord>>('GET', `${path(id)}/recipients`, { query: { status, cursor } }),
};

/**
 * The recipients as a CSV file (GET /v1/broadcasts/{id}/recipients?format=csv), fetched with the
 * organization's header and handed to the browser as a download. An answer that is not CSV (a server
 * without the export) is refused with a message rather than saved as a file.
 */
export async function downloadRecipientsCsv(id: string, status: string | undefined, fileName: string): Promise<void> {
  const query = new URLSearchParams({ format: 'csv', ...(status ? { status } : {}) });
  const org = currentOrganization();
  let response: Response;
  try {
    response = await fetch(`${path(id)}/recipients?${query.toString()}`, {
      headers: { Accept: 'text/csv', ...(org ? { 'X-Organization-Id': org } : {}) },
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiError(0, 'cannot reach the server; check your connection and try again', 'network');
  }
  if (!response.ok) {
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    throw apiErrorOf(response.status, response.statusText, parsed);
  }
  if (!(response.headers.get('content-type') ?? '').includes('text/csv')) {
    throw new ApiError(response.status, 'this server does not export recipients as CSV yet', 'unsupported');
  }
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
