/**
 * The Parley client: every operation of the generated table (generated/operations.ts) as a typed
 * method of its group (`parley.messages.send`), and any operation by its operationId
 * (`parley.request('sendMessage', …)`), over openapi-fetch. Credentials, the organization and the
 * user agent are set by a middleware; the OAuth token, timeouts and retries by the fetch under it
 * (transport.ts).
 */
import createClient from 'openapi-fetch';
import type { Client, Middleware } from 'openapi-fetch';
import { errorFor } from './errors.ts';
import { EventStream, type EventStreamOptions } from './events-stream.ts';
import type { paths } from './generated/openapi.ts';
import { GROUPS, OPERATIONS } from './generated/operations.ts';
import { TokenAuth, type OAuthOptions } from './oauth.ts';
import type { OperationSpec } from './operation-spec.ts';
import { PagePromise, type Page } from './pagination.ts';
import { createTransport, type CallPolicy, type FetchLike } from './transport.ts';
import type { ArgsOf, Groups, OperationId, ReturnOf } from './types.ts';
import { randomUuid } from './uuid.ts';

export const SDK_VERSION = '0.1.0';

export type ParleyOptions = OAuthOptions & {
  /** The service's base URL, e.g. `https://parley.example.com` (no `/v1`). */
  baseUrl: string;
  /** An API key (`prl_…`), sent as X-Api-Key. Or an OAuth access token (accessToken, refreshToken, clientId). */
  apiKey?: string;
  /** Sent as X-Organization-Id: the organization a token reaching several acts in. */
  organizationId?: string;
  /** Retries of one call after a 429, a 503 or a failed connection (default 2). */
  maxRetries?: number;
  /** How long one attempt waits for the answer's headers (default 60 s). */
  timeoutMs?: number;
  /** The fetch to send with (default globalThis.fetch). */
  fetch?: (input: Request) => Promise<Response>;
  /** Appended to the User-Agent (`parley-sdk-ts/0.1.0 <userAgent>`), where the runtime lets it be set. */
  userAgent?: string;
};

/** The groups, with the event stream's helper in place of the raw stream operation. */
export type ParleyGroups = Omit<Groups, 'events'> & {
  readonly events: Omit<Groups['events'], 'stream'> & {
    /** The organization's events live, reconnecting with the last event id after a drop (events-stream.ts). */
    stream(options?: EventStreamOptions): EventStream;
  };
};

/** The operations' table as the client reads it. */
const TABLE = OPERATIONS as Record<OperationId, OperationSpec>;

/** Argument fields that are not parameters. */
const OWN_FIELDS = new Set(['body', 'signal', 'headers', 'idempotencyKey']);

function formOf(body: unknown): URLSearchParams {
  if (body instanceof URLSearchParams) return body;
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) form.append(name, String(item));
  }
  return form;
}

function multipartOf(body: unknown): FormData {
  if (body instanceof FormData) return body;
  const form = new FormData();
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    form.append(name, value instanceof Blob ? value : String(value));
  }
  return form;
}

class ParleyClient {
  readonly baseUrl: string;
  readonly #client: Client<paths>;
  readonly #send: ReturnType<typeof createTransport>;

  constructor(options: ParleyOptions) {
    if (!options?.baseUrl) throw new TypeError('Parley: baseUrl is required');
    if (options.apiKey && options.accessToken) throw new TypeError('Parley: give apiKey or accessToken, not both');
    if (options.refreshToken && !options.clientId)
      throw new TypeError('Parley: refreshToken needs clientId (the OAuth client it was issued to)');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    const baseFetch: FetchLike = options.fetch ?? ((request) => globalThis.fetch(request));
    const auth =
      options.accessToken || options.refreshToken
        ? new TokenAuth(options, `${this.baseUrl}/v1/oauth/token`, (request) =>
            this.#send(request, { repeatable: false, authenticate: false }),
          )
        : undefined;
    this.#send = createTransport({ fetch: baseFetch, maxRetries: options.maxRetries ?? 2, timeoutMs: options.timeoutMs ?? 60_000, auth });
    this.#client = createClient<paths>({ baseUrl: this.baseUrl });
    this.#client.use(headersMiddleware(options));
    for (const [group, methods] of Object.entries(GROUPS)) {
      const bound: Record<string, unknown> = {};
      for (const [name, operationId] of Object.entries(methods))
        bound[name] = (args?: object) => this.request(operationId as OperationId, args as never);
      (this as Record<string, unknown>)[group] = bound;
    }
    (this as unknown as { events: Record<string, unknown> }).events.stream = (streamOptions?: EventStreamOptions) =>
      this.#stream(streamOptions);
  }

  /** Any operation by its operationId (every one of the document, those left out of the groups too). */
  request<K extends OperationId>(
    operationId: K,
    ...args: Record<never, never> extends ArgsOf<K> ? [args?: ArgsOf<K>] : [args: ArgsOf<K>]
  ): ReturnOf<K> {
    const spec = TABLE[operationId];
    if (!spec) throw new TypeError(`Parley: no operation ${String(operationId)}`);
    const given = (args[0] ?? {}) as Record<string, unknown>;
    if (spec.list) {
      return new PagePromise<Page<unknown>>(
        (cursor) => this.#call(operationId, spec, cursor === undefined ? given : { ...given, cursor }) as Promise<Page<unknown>>,
        undefined,
      ) as unknown as ReturnOf<K>;
    }
    return this.#call(operationId, spec, given) as ReturnOf<K>;
  }

  async #call(operationId: string, spec: OperationSpec, args: Record<string, unknown>): Promise<unknown> {
    const path: Record<string, unknown> = {};
    const query: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(args)) {
      if (OWN_FIELDS.has(name) || value === undefined) continue;
      if (spec.path.includes(`{${name}}`)) path[name] = value;
      else query[name] = value;
    }
    for (const [, name] of spec.path.matchAll(/\{([^}]+)\}/g)) {
      if (path[name!] === undefined || path[name!] === '') throw new TypeError(`Parley: ${operationId} needs ${name}`);
    }
    const headers: Record<string, string> = {
      ...(spec.answer === undefined ? { Accept: 'application/json' } : spec.answer === 'stream' ? { Accept: 'text/event-stream' } : {}),
      ...(args.headers as Record<string, string> | undefined),
    };
    const explicitKey = typeof args.idempotencyKey === 'string' ? args.idempotencyKey : undefined;
    if (explicitKey) headers['Idempotency-Key'] = explicitKey;
    const policy: CallPolicy = { repeatable: Boolean(explicitKey || spec.idempotencyKey), authenticate: true };
    const body = args.body === null ? undefined : args.body;
    let bodySerializer: ((body: unknown) => BodyInit) | undefined;
    if (body !== undefined) {
      if (spec.body === 'form') {
        headers['Content-Type'] = 'application/x-www-form-urlencoded';
        bodySerializer = (b) => formOf(b).toString();
      } else if (spec.body === 'multipart') bodySerializer = multipartOf;
      else if (spec.body === 'text') {
        headers['Content-Type'] = spec.media ?? 'text/plain';
        bodySerializer = (b) => b as BodyInit;
      }
    }
    const { data, error, response } = await this.#client.request(
      spec.method.toLowerCase() as 'get',
      spec.path as never,
      {
        params: { path, query },
        body,
        headers,
        signal: args.signal as AbortSignal | undefined,
        parseAs: spec.answer === 'none' ? 'text' : (spec.answer ?? 'json'),
        ...(bodySerializer ? { bodySerializer } : {}),
        fetch: (request: Request) => this.#send(request, policy),
      } as never,
    );
    if (!response.ok) throw errorFor(response.status, error, response.headers);
    return spec.answer === 'none' ? undefined : data;
  }

  #stream(options: EventStreamOptions = {}): EventStream {
    return new EventStream(async (query, lastEventId, signal) => {
      const body = await this.#call('streamEvents', TABLE.streamEvents, {
        ...query,
        signal,
        headers: lastEventId ? { 'Last-Event-ID': lastEventId } : {},
      });
      return body as ReadableStream<Uint8Array>;
    }, options);
  }
}

/** The headers every request carries: the API key, the organization, the user agent, and an Idempotency-Key on every POST. */
function headersMiddleware(options: ParleyOptions): Middleware {
  const userAgent = `parley-sdk-ts/${SDK_VERSION}${options.userAgent ? ` ${options.userAgent}` : ''}`;
  const inBrowser = typeof (globalThis as { document?: unknown }).document !== 'undefined';
  return {
    onRequest({ request }) {
      if (options.apiKey) request.headers.set('X-Api-Key', options.apiKey);
      if (options.organizationId) request.headers.set('X-Organization-Id', options.organizationId);
      // A browser sends its own User-Agent (the header cannot be set there).
      if (!inBrowser) request.headers.set('User-Agent', userAgent);
      if (request.method === 'POST' && !request.headers.has('Idempotency-Key')) request.headers.set('Idempotency-Key', randomUuid());
      return request;
    },
  };
}

/** The client: its own methods and, made by the constructor from the generated table, its groups. */
export type Parley = ParleyClient & ParleyGroups;
export const Parley = ParleyClient as new (options: ParleyOptions) => Parley;
