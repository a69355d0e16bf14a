/**
 * A loopback HTTP proxy in front of a test server, for what the service does not do on demand: answer
 * 429 or 503 with Retry-After, lose an answer (forward the request, then cut the connection without
 * answering), or cut every open connection (an event stream dropped). It records each request it saw.
 */
import { request as httpRequest, createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Seen = {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  at: number;
  answered?: number;
  answerHeaders?: IncomingHttpHeaders;
  /** When the client's side of the exchange closed. */
  closedAt?: number;
};

/**
 * What to do with a request: forward it; answer it here; forward it and cut the connection instead of
 * answering; cut it at once; forward the answer until its first server-sent event, then send nothing
 * more while keeping the connection open (a connection that died without closing).
 */
export type Action =
  | 'forward'
  | 'lose-answer'
  | 'reset'
  | 'stall-after-event'
  | { status: number; headers?: Record<string, string>; body?: string };

export type Proxy = {
  url: string;
  seen: Seen[];
  /** Decides each next request (default: forward). */
  act(fn: (request: Seen, index: number) => Action): void;
  /** Cuts every open connection (streams included). */
  cutAll(): void;
  close(): Promise<void>;
};

export async function startProxy(target: string): Promise<Proxy> {
  const upstream = new URL(target);
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  let decide: (request: Seen, index: number) => Action = () => 'forward';
  const server = createServer((req, res) => {
    const entry: Seen = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, at: Date.now() };
    const index = seen.push(entry) - 1;
    res.on('close', () => (entry.closedAt = Date.now()));
    const action = decide(entry, index);
    if (action === 'reset') {
      req.socket.destroy();
      return;
    }
    if (typeof action === 'object') {
      req.resume();
      res.writeHead(action.status, { 'content-type': 'application/problem+json', ...action.headers });
      res.end(action.body ?? JSON.stringify({ title: 'from the proxy', status: action.status, detail: 'from the proxy', code: 'proxy' }));
      entry.answered = action.status;
      return;
    }
    const forwarded = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        entry.answered = answer.statusCode;
        entry.answerHeaders = answer.headers;
        if (action === 'lose-answer') {
          // The service did the work; the client never hears of it.
          answer.resume();
          answer.on('end', () => req.socket.destroy());
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (action !== 'stall-after-event') {
          answer.pipe(res);
          return;
        }
        let stalled = false;
        answer.on('data', (chunk: Buffer) => {
          if (stalled) return;
          res.write(chunk);
          stalled = /(^|\n)id:/.test(chunk.toString('utf8'));
        });
      },
    );
    forwarded.on('error', () => req.socket.destroy());
    res.on('close', () => forwarded.destroy());
    req.pipe(forwarded);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    act(fn) {
      decide = fn;
    },
    cutAll() {
      for (const socket of sockets) socket.destroy();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
