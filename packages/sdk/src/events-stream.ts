/**
 * `parley.events.stream()`: the organization's events live from GET /v1/events/stream (server-sent
 * events), as an async iterable. The bytes are parsed by eventsource-parser; after a drop (the
 * connection cut, the server closing the stream, a 5xx or 429) it reconnects with Last-Event-ID, the
 * id of the last event handed out, so that nothing is missed and nothing comes twice. It waits the
 * server's `retry:` before reconnecting, longer (exponentially, up to 30 s) while attempts keep failing.
 * An AbortSignal, or leaving the loop, ends it; a refusal (400, 401, 403, 404) is thrown.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ConnectionError, ParleyError } from './errors.ts';
import type { components, operations } from './generated/openapi.ts';
import { abortableSleep } from './transport.ts';

/** An event record, as GET /v1/events lists it: `{id, type, created_at, data}`. */
export type ParleyEvent = components['schemas']['Event'];
export type EventType = NonNullable<NonNullable<operations['listEvents']['parameters']['query']>['type']>;

export type EventStreamOptions = {
  /** Only these event types (default all). */
  types?: Array<EventType | (string & {})>;
  /** Resume after this id (a stream's `lastEventId`, or `meta.next_cursor` of GET /v1/events); without it the stream starts now. */
  lastEventId?: string;
  /** Ends the stream (the loop finishes without an error). */
  signal?: AbortSignal;
  /** Called each time the stream is open (the first time, and after each reconnection): from then on no event is missed. */
  onOpen?: () => void;
  /**
   * Reconnect when nothing at all (not even a keep-alive) came for this long (default 90 s: six of the
   * service's 15-second keep-alives), so a connection that died without closing is noticed.
   */
  idleTimeoutMs?: number;
};

/** Opens the stream once: its body, or a thrown ParleyError (ConnectionError when no answer came). */
export type StreamOpener = (
  query: { types?: string },
  lastEventId: string | undefined,
  signal: AbortSignal | undefined,
) => Promise<ReadableStream<Uint8Array>>;

const FIRST_RECONNECT_MS = 1_000;
const IDLE_TIMEOUT_MS = 90_000;
const MAX_RECONNECT_MS = 30_000;

/** Whether a failure to open (or read) the stream is worth another try: no answer, a 5xx or a 429. */
function isTransient(err: unknown): boolean {
  return err instanceof ConnectionError || (err instanceof ParleyError && (err.status >= 500 || err.status === 429));
}

export class EventStream implements AsyncIterable<ParleyEvent> {
  /** The id of the last event handed out: keep it to resume later (`lastEventId`, or `cursor` of GET /v1/events). */
  lastEventId: string | undefined;
  /** How many times the stream was opened (1 + reconnections). */
  connections = 0;
  readonly #open: StreamOpener;
  readonly #options: EventStreamOptions;

  constructor(open: StreamOpener, options: EventStreamOptions = {}) {
    this.#open = open;
    this.#options = options;
    this.lastEventId = options.lastEventId;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ParleyEvent, void, undefined> {
    const { signal } = this.#options;
    const types = this.#options.types?.length ? { types: this.#options.types.join(',') } : {};
    let reconnectMs = FIRST_RECONNECT_MS;
    let failures = 0;
    while (!signal?.aborted) {
      let body: ReadableStream<Uint8Array>;
      try {
        body = await this.#open(types, this.lastEventId, signal);
        this.connections++;
        this.#options.onOpen?.();
      } catch (err) {
        if (signal?.aborted) return;
        if (!isTransient(err)) throw err;
        if (!(await this.#wait(reconnectMs * 2 ** Math.min(failures++, 5), signal))) return;
        continue;
      }
      const pending: EventSourceMessage[] = [];
      const parser = createParser({
        onEvent: (message) => pending.push(message),
        onRetry: (ms) => (reconnectMs = ms),
      });
      const reader = body.getReader();
      const decoder = new TextDecoder();
      const idleMs = this.#options.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
      let idle: ReturnType<typeof setTimeout> | undefined;
      try {
        for (;;) {
          clearTimeout(idle);
          // A silent connection is given up (the pending read then ends) and opened again.
          idle = setTimeout(() => reader.cancel().catch(() => undefined), idleMs);
          const { done, value } = await reader.read();
          if (done) break;
          parser.feed(decoder.decode(value, { stream: true }));
          while (pending.length > 0) {
            const message = pending.shift()!;
            if (!message.data) continue;
            failures = 0;
            const event = JSON.parse(message.data) as ParleyEvent;
            if (message.id) this.lastEventId = message.id;
            yield event;
          }
        }
      } catch (err) {
        // A cut connection ends the read with an error: reconnect, unless the caller aborted.
        if (signal?.aborted) return;
        if (err instanceof SyntaxError) throw err;
      } finally {
        clearTimeout(idle);
        reader.cancel().catch(() => undefined);
      }
      if (!(await this.#wait(reconnectMs * 2 ** Math.min(failures++, 5), signal))) return;
    }
  }

  /** Waits before reconnecting; false when the caller aborted meanwhile. */
  async #wait(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
    try {
      await abortableSleep(Math.min(ms, MAX_RECONNECT_MS), signal);
      return true;
    } catch {
      return false;
    }
  }
}
