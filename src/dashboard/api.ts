/**
 * The dashboard's fetch client: same-origin JSON calls authenticated by the session cookie, acting
 * in the chosen organization (X-Organization-Id). Errors become ApiError carrying the problem
 * body's `detail`. Nothing here logs request or response bodies: they can hold secrets.
 */
import type { AcceptedInvitationRecord, InvitationPreviewRecord } from '../http/v1/invitations.presenters.ts';
import type { ApiKeyRecord, CreatedApiKeyRecord } from '../http/v1/api-keys.presenters.ts';
import type { OrganizationMembershipRecord, SessionInfoRecord, SessionViewRecord, UserSessionRecord } from '../http/v1/auth.presenters.ts';
import type { SignedUpRecord, SignupStateRecord } from '../http/v1/signup.ts';
import type { DeviceDecisionRecord, DeviceVerificationRecord } from '../http/oauth/device.ts';
import type { OAuthAuthorizationRequestRecord, OAuthRedirectRecord } from '../http/oauth/authorize.ts';
import type { OAuthConsentRecord } from '../http/oauth/consent.ts';
import type { Page } from '../http/schemas.ts';

// The wire records are the server's, inferred from the response schemas in src/http (type-only
// imports, erased by the build: no server code reaches the bundle). The areas' api.ts do the same.
export type {
  AcceptedInvitationRecord,
  ApiKeyRecord,
  CreatedApiKeyRecord,
  DeviceDecisionRecord,
  DeviceVerificationRecord,
  InvitationPreviewRecord,
  OAuthAuthorizationRequestRecord,
  OAuthConsentRecord,
  OAuthRedirectRecord,
  OrganizationMembershipRecord,
  Page,
  SessionInfoRecord,
  SessionViewRecord,
  SignedUpRecord,
  SignupStateRecord,
  UserSessionRecord,
};

/** A field the API refused: `pointer` is a JSON pointer into the body or query (`/email`, `/content/body`). */
export type FieldProblem = { pointer: string; message: string; location?: string };

export class ApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly fieldErrors: FieldProblem[];
  constructor(status: number, detail: string, code: string | undefined, fieldErrors: FieldProblem[] = []) {
    super(detail);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.fieldErrors = fieldErrors;
  }

  /** The API's message for one field (by JSON pointer, or its prefix for nested fields), if it named it. */
  fieldError(pointer: string): string | undefined {
    return this.fieldErrors.find((f) => f.pointer === pointer || f.pointer.startsWith(`${pointer}/`))?.message;
  }
}

const CSRF_COOKIE = 'parley_csrf';

/** The session's CSRF token (the readable companion of the session cookie); absent when signed out. */
export function csrfToken(): string | undefined {
  for (const part of document.cookie.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === CSRF_COOKIE) return decodeURIComponent(rest.join('='));
  }
  return undefined;
}

/** Whether this browser may hold a session: without the companion cookie there is none to ask about. */
export function mayHaveSession(): boolean {
  return csrfToken() !== undefined;
}

const ORG_STORAGE_KEY = 'parley.organizationId';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let organizationId: string | undefined = readStoredOrganization();
let onUnauthenticated: (() => void) | undefined;

function readStoredOrganization(): string | undefined {
  try {
    const stored = localStorage.getItem(ORG_STORAGE_KEY);
    return stored && UUID.test(stored) ? stored : undefined;
  } catch {
    return undefined;
  }
}

/** The organization every call acts in; remembered across visits. */
export function setOrganization(id: string | undefined): void {
  organizationId = id && UUID.test(id) ? id : undefined;
  try {
    if (organizationId) localStorage.setItem(ORG_STORAGE_KEY, organizationId);
    else localStorage.removeItem(ORG_STORAGE_KEY);
  } catch {
    // Storage may be unavailable (private mode); the choice then lasts for this page only.
  }
}

export function currentOrganization(): string | undefined {
  return organizationId;
}

/** Called when a call answers 401: the session ended (expired, revoked or logged out elsewhere). */
export function setUnauthenticatedHandler(handler: (() => void) | undefined): void {
  onUnauthenticated = handler;
}

type CallOptions = { body?: unknown; query?: Record<string, string | undefined>; organization?: string | null; quiet401?: boolean };

/** One API call. `organization: null` leaves X-Organization-Id out. */
export async function call<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const org = options.organization === null ? undefined : (options.organization ?? organizationId);
  if (org) headers['X-Organization-Id'] = org;
  if (method !== 'GET') {
    const token = csrfToken();
    if (token) headers['X-CSRF-Token'] = token;
  }
  let body: string | undefined;
  // A JSON content type with an empty body is a 400, so it is only sent with a body.
  if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let url = path;
  if (options.query) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(options.query)) if (v !== undefined) params.set(k, v);
    const qs = params.toString();
    if (qs) url += `?${qs}`;
  }
  let response: Response;
  try {
    response = await fetch(url, { method, headers, body, credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 'cannot reach the server; check your connection and try again', 'network');
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const error = apiErrorOf(response.status, response.statusText, parsed);
    if (response.status === 401 && !options.quiet401) onUnauthenticated?.();
    throw error;
  }
  return parsed as T;
}

/**
 * The ApiError of a failed answer's parsed body: a problem, the `{error, code, errors}` shape, or the
 * built-in sandbox's own (its control routes answer as its gateway does: `{error: {code, message}}`).
 */
export function apiErrorOf(status: number, statusText: string, parsed: unknown): ApiError {
  const problem = (parsed ?? {}) as { detail?: unknown; error?: unknown; code?: unknown; errors?: unknown };
  const nested =
    typeof problem.error === 'object' && problem.error !== null ? (problem.error as { code?: unknown; message?: unknown }) : {};
  const detail =
    typeof problem.detail === 'string'
      ? problem.detail
      : typeof problem.error === 'string'
        ? problem.error
        : typeof nested.message === 'string'
          ? nested.message
          : `${status} ${statusText || 'request failed'}`;
  const code = typeof problem.code === 'string' ? problem.code : typeof nested.code === 'string' ? nested.code : undefined;
  const fields = Array.isArray(problem.errors) ? (problem.errors as FieldProblem[]).filter((f) => typeof f?.pointer === 'string') : [];
  return new ApiError(status, detail, code, fields);
}

export const api = {
  login: (email: string, password: string) =>
    call<{ data: UserSessionRecord }>('POST', '/v1/auth/login', { body: { email, password }, organization: null, quiet401: true }),
  logout: () => call<void>('POST', '/v1/auth/logout', { quiet401: true }),
  session: (organization?: string | null) =>
    call<{ data: SessionInfoRecord }>('GET', '/v1/auth/session', { organization, quiet401: true }).then((r) => r.data),
  sessions: (cursor?: string) => call<Page<SessionViewRecord>>('GET', '/v1/auth/sessions', { query: { cursor } }),
  revokeSession: (id: string) => call<void>('DELETE', `/v1/auth/sessions/${encodeURIComponent(id)}`),
  apiKeys: (cursor?: string) => call<Page<ApiKeyRecord>>('GET', '/v1/api-keys', { query: { cursor } }),
  createApiKey: (name: string, permissions: string[]) =>
    call<{ data: CreatedApiKeyRecord }>('POST', '/v1/api-keys', { body: { name, permissions } }).then((r) => r.data),
  revokeApiKey: (id: string) => call<void>('DELETE', `/v1/api-keys/${encodeURIComponent(id)}`),
  authorizationRequest: (id: string) =>
    call<{ data: OAuthAuthorizationRequestRecord }>('GET', `/v1/oauth/authorization-requests/${encodeURIComponent(id)}`).then(
      (r) => r.data,
    ),
  approveAuthorization: (id: string, organizationIds: string[]) =>
    call<{ data: OAuthRedirectRecord }>('POST', `/v1/oauth/authorization-requests/${encodeURIComponent(id)}/approve`, {
      body: { organization_ids: organizationIds },
    }).then((r) => r.data),
  denyAuthorization: (id: string) =>
    call<{ data: OAuthRedirectRecord }>('POST', `/v1/oauth/authorization-requests/${encodeURIComponent(id)}/deny`).then((r) => r.data),
  lookupDevice: (userCode: string) =>
    call<{ data: DeviceVerificationRecord }>('POST', '/v1/oauth/device/lookup', { body: { user_code: userCode } }).then((r) => r.data),
  approveDevice: (userCode: string, organizationIds: string[]) =>
    call<{ data: DeviceDecisionRecord }>('POST', '/v1/oauth/device/approve', {
      body: { user_code: userCode, organization_ids: organizationIds },
    }).then((r) => r.data),
  lookupInvitation: (token: string) =>
    call<{ data: InvitationPreviewRecord }>('POST', '/v1/invitations/lookup', { body: { token }, organization: null }).then((r) => r.data),
  acceptInvitation: (token: string, signUp?: { name: string; password: string }) =>
    call<{ data: AcceptedInvitationRecord }>('POST', '/v1/invitations/accept', {
      body: { token, ...signUp },
      organization: null,
      quiet401: true,
    }).then((r) => r.data),
  signupState: () =>
    call<{ data: SignupStateRecord }>('GET', '/v1/auth/signup', { organization: null, quiet401: true }).then((r) => r.data),
  signup: (input: { name: string; email: string; password: string; organization_name: string }) =>
    call<{ data: SignedUpRecord }>('POST', '/v1/auth/signup', { body: input, organization: null, quiet401: true }),
  resetPassword: (token: string, newPassword: string) =>
    call<void>('POST', '/v1/auth/password-reset', { body: { token, new_password: newPassword }, organization: null, quiet401: true }),
  denyDevice: (userCode: string) =>
    call<{ data: DeviceDecisionRecord }>('POST', '/v1/oauth/device/deny', { body: { user_code: userCode } }).then((r) => r.data),
};

/** The message to show for anything a call threw. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return 'something went wrong; reload the page and try again';
}

/** Every row of a cursor-paged list, for pickers that must offer them all (members, channels, approved templates). */
export async function allPages<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>, maxPages = 50): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < maxPages; i++) {
    const page = await fetchPage(cursor);
    rows.push(...page.data);
    if (!page.meta.next_cursor) break;
    cursor = page.meta.next_cursor;
  }
  return rows;
}
