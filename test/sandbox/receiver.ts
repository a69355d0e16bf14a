/**
 * A stand-in for the party the sandbox calls back (Parley's webhook routes): a real HTTP server on
 * 127.0.0.1 that records every request with its raw body, and can be told to refuse some.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '../eventually.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { channels } from '../../src/db/schema.ts';
import type { TestServer } from '../harness.ts';

export type Received = { method: string; path: string; headers: IncomingHttpHeaders; raw: string; json: any };

export type Receiver = {
  url: string;
  received: Received[];
  /** Requests answered with HTTP 500 (see refuseNext). */
  refused: Received[];
  /** Answer the next `count` requests (of those `match` picks) with HTTP 500. */
  refuseNext(count: number, match?: (request: Received) => boolean): void;
  /** Resolves with the received requests once `predicate` holds for them; rejects after `timeoutMs`. */
  waitFor(predicate: (received: Received[]) => boolean, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
};

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const refused: Received[] = [];
  let refusals = 0;
  let refusable: (request: Received) => boolean = () => true;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        json = undefined;
      }
      const request: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw, json };
      if (refusals > 0 && refusable(request)) {
        refusals--;
        refused.push(request);
        res.writeHead(500).end('refused');
        return;
      }
      received.push(request);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook/${randomUUID()}`,
    received,
    refused,
    refuseNext(count, match = () => true) {
      refusals = count;
      refusable = match;
    },
    async waitFor(predicate, timeoutMs = 20_000) {
      return eventually('the callbacks asked for', () => predicate(received) && received, timeoutMs).catch((err: Error) => {
        throw new Error(`${err.message}: ${JSON.stringify(received.map((r) => r.json))}`);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function hmacHex(secret: string, raw: string): string {
  return createHmac('sha256', secret).update(raw).digest('hex');
}

/** Official webhooks carrying a status for message `id`. */
export function statusesOf(received: Received[], id: string): Array<Record<string, any>> {
  return received.flatMap((r) =>
    (r.json?.entry ?? []).flatMap((e: any) =>
      (e.changes ?? []).flatMap((c: any) => (c.value?.statuses ?? []).filter((s: any) => s.id === id)),
    ),
  );
}

/** A channel row bound to the sandbox account `providerRef` (as channel creation makes them). */
export async function insertSandboxChannel(
  server: TestServer,
  input: { platform: 'chatapp_official' | 'chatapp_unofficial'; providerRef: string; sandbox?: boolean },
): Promise<string> {
  const id = uuidv7();
  await server.container.database.db.insert(channels).values({
    id,
    organizationId: server.organizationId,
    platform: input.platform,
    name: `sandbox ${input.platform}`,
    status: 'connected',
    providerRef: input.providerRef,
    // A sandbox number is the channel's alone, as creation binds it; another claim is unverified.
    boundRef: (input.sandbox ?? true) ? input.providerRef : null,
    sandbox: input.sandbox ?? true,
  });
  return id;
}
