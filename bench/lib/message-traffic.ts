/**
 * Message traffic through one running service, as the pipeline and memory benchmarks drive it: a
 * webhook receiver on 127.0.0.1 that times each message's sent/delivered/read webhooks, and
 * POST /v1/messages in bursts (closed loop) or at a steady rate (open loop); and the deployment both
 * measure: one default process with a paired sandbox channel and a webhook endpoint on the receiver.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomToken } from '../../src/lib/crypto.ts';
import { createTestDatabaseUrl, type TestDatabaseUrl } from '../../test/harness.ts';
import { api, messageBody, pairedGatewayChannel, pgServerUrl } from './common.ts';
import { startService, type Service } from './webhooks.ts';

export const now = () => performance.timeOrigin + performance.now();
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Where POST /v1/messages goes: a running service and its API key. */
export type MessageTarget = { baseUrl: string; apiKey: string };

export type Seen = { sent?: number; delivered?: number; read?: number };

export type Receiver = { url: string; seen: Map<string, Seen>; deliveries(): number; lastAt(): number; close(): Promise<void> };

/** One endpoint; every delivery parsed and timed. */
export async function startReceiver(): Promise<Receiver> {
  const seen = new Map<string, Seen>();
  let deliveries = 0;
  let lastAt = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = now();
      deliveries++;
      lastAt = at;
      const type = String(req.headers['webhook-event-type'] ?? '');
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { message_id?: string; status?: string };
        if (body.message_id) {
          const entry = seen.get(body.message_id) ?? {};
          if (type === 'message.sent') entry.sent ??= at;
          else if (type === 'message.status_update' && (body.status === 'delivered' || body.status === 'read')) entry[body.status] ??= at;
          seen.set(body.message_id, entry);
        }
      } catch {
        // Not ours to judge here; the count above still holds.
      }
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    deliveries: () => deliveries,
    lastAt: () => lastAt,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export async function post(service: MessageTarget, body: string): Promise<{ id: string; at: number }> {
  const res = await fetch(`${service.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': service.apiKey },
    body,
  });
  const json = (await res.json()) as { data: { id: string } };
  if (res.status !== 201) throw new Error(`POST /v1/messages answered ${res.status}: ${JSON.stringify(json)}`);
  return { id: json.data.id, at: now() };
}

/** `n` messages to recipients from `offset`, `lanes` in flight. */
export async function burst(service: MessageTarget, channelId: string, n: number, offset: number, lanes: number) {
  const accepted: Array<{ id: string; at: number }> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < n) {
        const i = next++;
        accepted.push(await post(service, messageBody(channelId, offset + i)));
      }
    }),
  );
  return accepted;
}

/** `perSecond` messages a second for `n` messages, open loop. */
export async function steady(service: MessageTarget, channelId: string, n: number, offset: number, perSecond: number) {
  const start = now();
  const pending: Array<Promise<{ id: string; at: number }>> = [];
  for (let i = 0; i < n; i++) {
    const wait = start + (i * 1000) / perSecond - now();
    if (wait > 1) await sleep(wait);
    pending.push(post(service, messageBody(channelId, offset + i)));
  }
  return Promise.all(pending);
}

/** Waits until every id's `read` webhook arrived (or the deadline passed); resolves to how many are missing. */
export async function untilRead(receiver: Receiver, ids: string[], deadlineMs = 300_000): Promise<number> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const missing = ids.filter((id) => receiver.seen.get(id)?.read === undefined).length;
    if (missing === 0 || Date.now() > deadline) return missing;
    await sleep(100);
  }
}

export type Deployed = {
  service: Service;
  receiver: Receiver;
  channelId: string;
  /** PostgreSQL's database (undefined on PGlite, which lives in dataDir/db). */
  database: TestDatabaseUrl | undefined;
  dataDir: string;
  /** Stops the service only (its database stays, to be read). */
  stopService(): Promise<void>;
  /** Stops everything and removes the database and the data directory. */
  close(): Promise<void>;
};

/**
 * A fresh database; `node src/main.ts` on it (roles api and worker, LOG_LEVEL=warn, rate limit off,
 * SANDBOX_STATUS_DELAY_MS=0); a paired sandbox gateway channel with pacing `pacing`/s; one webhook
 * endpoint on a receiver on 127.0.0.1 (message.sent, message.status_update); `warmUp` messages sent
 * and waited for until read.
 */
export async function deployWithTraffic(backend: 'postgres' | 'pglite', pacing: number, warmUp: number): Promise<Deployed> {
  const database = backend === 'postgres' ? await createTestDatabaseUrl(pgServerUrl()) : undefined;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'parley-bench-traffic-'));
  const shared = { dataDir, apiKey: `prl_bench_${randomToken(24)}`, key: Buffer.from(randomToken(32), 'base64url').toString('base64') };
  const receiver = await startReceiver();
  let service: Service | undefined;
  const stopService = async () => {
    await service?.stop();
    service = undefined;
  };
  const close = async () => {
    await stopService();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  };
  try {
    service = await startService(
      database,
      { LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', SANDBOX_STATUS_DELAY_MS: '0', ALLOW_PRIVATE_NETWORK_TARGETS: 'true' },
      shared,
    );
    const channelId = await pairedGatewayChannel(service, pacing);
    const made = await api(service, 'POST', '/v1/settings/developer/webhooks/endpoints', {
      url: `${receiver.url}/hook`,
      event_types: ['message.sent', 'message.status_update'],
    });
    if (made.status !== 201) throw new Error(`endpoint: ${made.status} ${JSON.stringify(made.body)}`);
    const warm = await burst(service, channelId, warmUp, 0, 4);
    if (
      await untilRead(
        receiver,
        warm.map((w) => w.id),
      )
    )
      throw new Error('warm-up messages were not read');
    return { service, receiver, channelId, database, dataDir, stopService, close };
  } catch (err) {
    await close();
    throw err;
  }
}
