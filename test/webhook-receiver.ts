/**
 * A webhook receiver for tests: a node:http server on 127.0.0.1 that records every request (raw
 * body, headers, arrival time) and answers as the test says (a status, a delay, or never).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';

export type ReceivedRequest = {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
  /** When the exchange ended (answered, or the sender gave up); undefined while open. */
  closedAt?: number;
};

/**
 * What to answer: a status (and body, after delayMs), 'hang' to hold the request open until the
 * receiver closes, or 'reset' to cut the connection without answering.
 */
export type Answer = { status: number; body?: string; delayMs?: number; contentType?: string } | 'hang' | 'reset';

export type Receiver = {
  url: string;
  requests: ReceivedRequest[];
  /** Sets how the next requests are answered (default 200). */
  answer(fn: (request: ReceivedRequest, index: number) => Answer): void;
  close(): Promise<void>;
};

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  let respond: (request: ReceivedRequest, index: number) => Answer = () => ({ status: 200, body: 'ok' });
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: performance.timeOrigin + performance.now(),
      };
      const index = requests.push(received) - 1;
      res.on('close', () => (received.closedAt = performance.timeOrigin + performance.now()));
      const answer = respond(received, index);
      if (answer === 'reset') {
        req.socket.destroy();
        return;
      }
      if (answer === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/plain' });
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    requests,
    answer(fn) {
      respond = fn;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The most requests that were open at once among these. The receiver may learn late that the sender
 * gave up (a busy event loop), so an exchange is taken to end at the earliest of: when the receiver
 * saw it close, or `senderTimeoutMs` after it arrived (the sender had given up by then), less graceMs.
 */
export function peakConcurrency(requests: ReceivedRequest[], senderTimeoutMs = Infinity, graceMs = 100): number {
  const marks = requests.flatMap((r) => [
    [r.receivedAt, 1],
    [Math.max(r.receivedAt, Math.min(r.closedAt ?? Infinity, r.receivedAt + senderTimeoutMs) - graceMs), -1],
  ]) as Array<[number, number]>;
  marks.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let peak = 0;
  for (const [, step] of marks) peak = Math.max(peak, (open += step));
  return peak;
}

/**
 * Verifies a received request with the standardwebhooks package, as an independent receiver would,
 * with the receiver's clock at `nowMs` (the library checks the timestamp against Date.now()).
 * Returns the parsed body; throws WebhookVerificationError when no signature matches.
 */
export function verifyWith(secret: string, request: ReceivedRequest, nowMs = Date.now()): unknown {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers[name] = value;
  const realNow = Date.now;
  Date.now = () => nowMs;
  try {
    return new Webhook(secret).verify(request.body, headers);
  } finally {
    Date.now = realNow;
  }
}
