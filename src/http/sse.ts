/**
 * Server-sent events (text/event-stream) on a Fastify reply: the framing, the keep-alive comments,
 * a bound on what waits for a slow client, caps on the streams one holder keeps open, and the end of
 * every open stream when the server closes.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';

export type SseMessage = { id: string; event: string; data: unknown };

export type SseSettings = {
  /** Between keep-alive comments; `alive()` is asked before each, and a false ends the stream. */
  heartbeatMs: number;
  /** The reconnection delay suggested to the client (`retry:`). */
  retryMs: number;
  /** Bytes that may wait for a slow client when more comes; past it the connection is dropped (the client resumes with Last-Event-ID). */
  maxBufferBytes: number;
};

export type SseStream = {
  /** Writes messages; false when they wait in the buffer (the client is slower than the events). */
  send(messages: SseMessage[]): boolean;
  drained(): Promise<void>;
  /** Ends the stream (the client may reconnect). */
  end(): void;
  /** Called once the connection is gone, however it ended. */
  onClose(fn: () => void): void;
};

/** One message's lines: data is JSON on one line, so no field can break the framing. */
export function sseFrame({ id, event, data }: SseMessage): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The streams one server holds open, so closing the server ends them rather than waiting on them. */
export function createSseRegistry() {
  const open = new Set<SseStream>();
  return {
    add(stream: SseStream) {
      open.add(stream);
      stream.onClose(() => open.delete(stream));
    },
    endAll() {
      for (const stream of [...open]) stream.end();
    },
    size: () => open.size,
  };
}

/** A place among the open streams, given back once (when the stream closes, or when it never starts). */
export type StreamPlace = { release(): void };

/** Why a stream was refused: the holder whose cap it would pass, and that cap. */
export type StreamCapRefusal = { over: 'credential' | 'organization'; cap: number };

/**
 * The open streams of one process counted by who holds them: a credential, and its organization. A
 * stream takes a place under both caps or none; each stream holds a connection and a file descriptor,
 * which are this process's, so this process counts them.
 */
export function createStreamCaps(caps: { perCredential: number; perOrganization: number }) {
  const counts = new Map<string, number>();
  const count = (key: string) => counts.get(key) ?? 0;
  const add = (key: string, by: number) => {
    const next = count(key) + by;
    if (next > 0) counts.set(key, next);
    else counts.delete(key);
  };
  return {
    take(holder: { credential: string; organization: string }): StreamPlace | StreamCapRefusal {
      const credential = `credential:${holder.credential}`;
      const organization = `organization:${holder.organization}`;
      if (count(credential) >= caps.perCredential) return { over: 'credential', cap: caps.perCredential };
      if (count(organization) >= caps.perOrganization) return { over: 'organization', cap: caps.perOrganization };
      add(credential, 1);
      add(organization, 1);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          add(credential, -1);
          add(organization, -1);
        },
      };
    },
    /** Streams open under a credential or an organization (tests, diagnostics). */
    open: (kind: 'credential' | 'organization', id: string) => count(`${kind}:${id}`),
  };
}

/**
 * Takes the response over (the route's validation and authentication are done) and starts the
 * stream: status, headers (those the hooks set included), the retry hint.
 */
export function startSse(request: FastifyRequest, reply: FastifyReply, settings: SseSettings & { alive(): Promise<boolean> }): SseStream {
  reply.hijack();
  const res: ServerResponse = reply.raw;
  const set = Object.entries(reply.getHeaders()).filter((entry): entry is [string, string | number | string[]] => entry[1] !== undefined);
  res.writeHead(200, {
    ...Object.fromEntries(set),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    // Proxies that buffer responses (nginx) pass this one through as it comes.
    'x-accel-buffering': 'no',
  });
  // A HEAD request gets the headers only, and its connection back.
  if (request.method === 'HEAD') res.end();
  else res.write(`retry: ${settings.retryMs}\n\n`);
  const closers: Array<() => void> = [];
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    for (const fn of closers.splice(0)) fn();
  };
  res.once('close', close);
  let checking = false;
  const heartbeat = setInterval(() => {
    if (checking || closed) return;
    checking = true;
    settings
      .alive()
      .then(
        (ok) => (ok ? write(': keepalive\n\n') : stream.end()),
        (err: unknown) => {
          request.log.warn({ err }, 'event stream: checking the credential again failed; ending the stream');
          stream.end();
        },
      )
      .finally(() => (checking = false));
  }, settings.heartbeatMs);
  const write = (text: string): boolean => {
    if (closed) return false;
    // More than the bound still waiting from before when more comes (events, or the keep-alive, so a
    // client stuck while catching up goes too): the client does not keep up. A burst on its own may
    // go past the bound; catching up writes a page and waits for the drain.
    if (res.writableLength > settings.maxBufferBytes) {
      request.log.info({ buffered_bytes: res.writableLength }, 'event stream: the client does not keep up; dropping the connection');
      res.destroy();
      return false;
    }
    return res.write(text);
  };
  const stream: SseStream = {
    send: (messages) => write(messages.map(sseFrame).join('')),
    drained: () =>
      closed || res.writableLength === 0
        ? Promise.resolve()
        : new Promise((resolve) => {
            const done = () => {
              res.off('drain', done);
              const at = closers.indexOf(done);
              if (at >= 0) closers.splice(at, 1);
              resolve();
            };
            res.once('drain', done);
            closers.push(done);
          }),
    end: () => {
      if (!closed) res.end();
    },
    onClose: (fn) => (closed ? fn() : closers.push(fn)),
  };
  return stream;
}
