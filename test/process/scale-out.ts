/**
 * Scale-out, shared by the test (test/process/scale-out.test.ts, reduced size) and the benchmark
 * (bench/scale-out.ts, full size): N API processes (ROLES=api) and M worker processes (ROLES=worker)
 * on one fresh PostgreSQL database. Official and gateway channels bound to the sandbox; the sandbox is
 * served by every API process, and every process's BASE_URL names the first one, so every worker's
 * sends and the sandbox's status callbacks go there. Two webhook endpoints on loopback receivers
 * take the message events. Messages are POSTed through the APIs in turn, each with an idempotency
 * key; some are POSTed again with the same key through another API (the key is shared: same message,
 * replayed). With `kill`, when half are accepted, a worker is SIGKILLed (the others take over its
 * leases) and an API process other than the sandbox's is SIGKILLed and started again (POSTs it was
 * given are retried with their key through another API, as a client would).
 *
 * Then it asserts: every message is read (the sandbox fails none); the provider (the sandbox's
 * records) holds each exactly once; every event of the subscribed types reached every endpoint at
 * least once (webhook-id = event id); and nothing is stuck: no message queued or due, no pending
 * webhook delivery, no undispatched event or unprocessed provider event, no due pg-boss job waiting
 * or running, no channel session lease that has lapsed while held.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import { openDatabase, queryRows, type Database } from '../../src/db/client.ts';
import { randomToken } from '../../src/lib/crypto.ts';
import { eventually } from '../eventually.ts';
import { freePort, request, type TestServer } from '../harness.ts';
import { approvedTemplate, pairedGatewayChannel, providerSendCounts } from '../messages-helpers.ts';
import { startReceiver, type Receiver } from '../webhook-receiver.ts';
import { runService, type ServiceProcess } from './service.ts';

export type ScaleOutOptions = {
  /** Where the processes keep their state: a temp directory and a fresh PostgreSQL database (DATABASE_URL). */
  deployment: { dataDir: string; databaseUrl: string };
  apis: number;
  workers: number;
  messages: number;
  /** SIGKILL a worker (and kill and restart an API process) when half the messages are accepted. */
  kill: boolean;
  /** POSTs in flight at once. */
  concurrency?: number;
  /** Every this many messages, one is POSTed again with its key through another API. */
  retryEvery?: number;
  /** The longest wait for the end state (every message read, every event delivered, nothing stuck). */
  deadlineMs?: number;
  /** Progress lines (the benchmark prints them). */
  log?: (line: string) => void;
};

export type ScaleOutResult = {
  messages: number;
  /** First POST to the last 201. */
  acceptSeconds: number;
  /** First POST to the last message read (its row's last update). */
  endToEndSeconds: number;
  /** Messages read per second, end to end. */
  rate: number;
  /** Webhook deliveries the receivers took (all endpoints, with redeliveries). */
  webhookRequests: number;
  /** Events of the subscribed types, each delivered to every endpoint. */
  events: number;
  /** POSTs retried with their key through another API (planned ones and those a killed API cut off). */
  retried: number;
  /** CPU seconds the API and worker processes used (user + system, from /proc), the killed ones up to their kill. */
  cpuSeconds: number;
};

const EVENT_TYPES = ['message.new', 'message.sent', 'message.status_update'];
const OFFICIAL_CHANNELS = 2;
const GATEWAY_CHANNELS = 2;
/** Recipients per official channel that wrote in first (its customer-service window is open). */
const OFFICIAL_RECIPIENTS = 4;
const ENDPOINTS = 2;
/** Pacing raised so the channels do not set the pace (per process: docs/operations.md). */
const THROUGHPUT_PER_SECOND = 1000;

/** Message i's own recipient: the sandbox delivers and reads (it does not end in 0001, 0002 or 0429). */
const recipient = (i: number) => `49152${String(3_000_000 + i)}5`;
const officialRecipient = (channel: number, k: number) => `4915340${channel}${String(k).padStart(4, '0')}5`;

type Channel = { id: string; official: boolean; recipients: string[]; template?: { name: string; language: { code: string } } };

/** CPU seconds (user + system) a running process has used so far; 0 where /proc is not there. */
function cpuSecondsOf(pid: number): number {
  try {
    // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th, in ticks (100 a second).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** One webhook endpoint's receiver, reduced to what is asserted: the event ids it saw. */
type Endpoint = { receiver: Receiver; seen: Set<string>; requests: number };

/** Moves what the receivers recorded into the sets (the raw requests are dropped: a full run takes hundreds of thousands). */
function drain(endpoints: Endpoint[]): void {
  for (const endpoint of endpoints) {
    for (const r of endpoint.receiver.requests.splice(0)) {
      endpoint.requests++;
      const id = r.headers['webhook-id'];
      if (typeof id === 'string') endpoint.seen.add(id);
    }
  }
}

export async function runScaleOut(options: ScaleOutOptions): Promise<ScaleOutResult> {
  const { deployment, messages: count } = options;
  const concurrency = options.concurrency ?? 16;
  const retryEvery = options.retryEvery ?? 50;
  const deadlineMs = options.deadlineMs ?? 120_000;
  const log = options.log ?? (() => undefined);
  const apiKey = `prl_scale_${randomToken(24)}`;
  const ports = await Promise.all(Array.from({ length: options.apis }, () => freePort()));
  const env: Record<string, string> = {
    DATABASE_URL: deployment.databaseUrl,
    // The sandbox is reached at BASE_URL by every process: the first API process serves it.
    BASE_URL: `http://127.0.0.1:${ports[0]}`,
    BOOTSTRAP_ADMIN_EMAIL: 'scale@example.com',
    BOOTSTRAP_ADMIN_PASSWORD: 'scale-out test password',
    BOOTSTRAP_API_KEY: apiKey,
    SANDBOX_STATUS_DELAY_MS: '20',
    PROVIDER_TIMEOUT_MS: '5000',
    // Long enough that nothing here may end as outcome unknown.
    MESSAGE_RECONCILE_SECONDS: '300',
    RATE_LIMIT_PER_MINUTE: '0',
    WEBHOOK_POLL_INTERVAL_MS: '200',
    // Every request at info would be tens of megabytes of output.
    LOG_LEVEL: 'warn',
  };
  const startApi = async (i: number) => {
    const api = await runService({ dataDir: deployment.dataDir, env: { ...env, ROLES: 'api' }, port: ports[i] });
    // Five processes booting at once on two busy cores take a while.
    await api.waitHealthy(180_000);
    return api;
  };
  const startWorker = async () => {
    const worker = await runService({ dataDir: deployment.dataDir, env: { ...env, ROLES: 'worker' } });
    const ready = async () => {
      const res = await fetch(`${worker.baseUrl}/readyz`).catch(() => undefined);
      await res?.arrayBuffer();
      if (worker.exit) throw new Error(`a worker exited at start (${JSON.stringify(worker.exit)}):\n${worker.stdout}\n${worker.stderr}`);
      return res?.status === 200 ? true : undefined;
    };
    await eventually('the worker to be ready', ready, { timeoutMs: 180_000, everyMs: 100 });
    return worker;
  };

  const endpoints: Endpoint[] = [];
  const apis: Array<ServiceProcess | undefined> = [];
  const workers: ServiceProcess[] = [];
  let database: Database | undefined;
  try {
    for (let i = 0; i < ENDPOINTS; i++) endpoints.push({ receiver: await startReceiver(`/hook${i}`), seen: new Set(), requests: 0 });
    // All at once on the empty database: migrations, pg-boss's install and the bootstrap take turns under a lock.
    const [upApis, upWorkers] = await Promise.all([
      Promise.all(Array.from({ length: options.apis }, (_, i) => startApi(i))),
      Promise.all(Array.from({ length: options.workers }, () => startWorker())),
    ]);
    apis.push(...upApis);
    workers.push(...upWorkers);
    database = await openDatabase({ kind: 'postgres', url: deployment.databaseUrl, poolSize: 2 });
    const db = database.db;
    const first = apis[0]!;
    const call = (api: { baseUrl: string }, method: string, url: string, body?: unknown, headers?: Record<string, string>) =>
      request(api, method, url, { key: apiKey, body, headers });
    log(`${options.apis} API and ${options.workers} worker processes up`);

    // Subscribed before anything happens: every event of these types is owed to every endpoint.
    for (const endpoint of endpoints) {
      const made = await call(first, 'POST', '/v1/settings/developer/webhooks/endpoints', {
        url: endpoint.receiver.url,
        event_types: EVENT_TYPES,
      });
      assert.equal(made.status, 201, made.text);
    }
    const channels: Channel[] = [];
    for (let c = 0; c < OFFICIAL_CHANNELS; c++) {
      const made = await call(apis[c % apis.length]!, 'POST', '/v1/channels', {
        platform: 'chatapp_official',
        name: `scale official ${c}`,
        settings: { throughput_per_second: THROUGHPUT_PER_SECOND },
      });
      assert.equal(made.status, 201, made.text);
      const recipients = Array.from({ length: OFFICIAL_RECIPIENTS }, (_, k) => officialRecipient(c, k));
      for (const from of recipients) {
        const wrote = await request(first, 'POST', '/sandbox/inbound', {
          key: apiKey,
          body: { channel_id: made.body.data.id, from, type: 'text', content: { body: 'hi' } },
        });
        assert.ok(wrote.status < 300, wrote.text);
      }
      const template = await approvedTemplate(
        { baseUrl: first.baseUrl, apiKey } as TestServer,
        made.body.data.id as string,
        `scale_update_${c}`,
      );
      channels.push({ id: made.body.data.id as string, official: true, recipients, template });
    }
    for (let c = 0; c < GATEWAY_CHANNELS; c++) {
      // Paired through the API process that does not serve the sandbox: pairing state is in the database.
      const api = apis[(c + 1) % apis.length]!;
      const { id } = await pairedGatewayChannel({ baseUrl: api.baseUrl, apiKey } as TestServer, `scale gateway ${c}`, {
        throughput_per_second: THROUGHPUT_PER_SECOND,
      });
      channels.push({ id, official: false, recipients: [] });
    }
    await eventually(
      'the official windows to open',
      async () => {
        const [row] = await queryRows<{ n: number }>(
          db,
          sql`select count(*)::int as n from conversations where last_inbound_at is not null`,
        );
        return row!.n === OFFICIAL_CHANNELS * OFFICIAL_RECIPIENTS ? true : undefined;
      },
      { timeoutMs: 60_000, everyMs: 100 },
    );
    log(`${channels.length} channels ready`);

    // ---- Sending
    const ids: string[] = new Array(count);
    const down = new Set<number>();
    let retried = 0;
    /** Why POSTs were retried, besides the planned replays: 503 or the connection's error code, and how often. */
    const failures = new Map<string, number>();
    let accepted = 0;
    let lastAcceptedAt = 0;
    let killing: Promise<void> | undefined;
    let cpuOfKilled = 0;
    // Official channels: a text in every fourth message to a customer who wrote in, else a template to
    // a recipient of its own (as business-initiated traffic is); gateway channels: a text to a recipient of its own.
    const bodyOf = (i: number) => {
      const channel = channels[i % channels.length]!;
      const round = Math.floor(i / channels.length);
      if (channel.official && round % 4 === 0) {
        return {
          channel_id: channel.id,
          to: channel.recipients[(round / 4) % channel.recipients.length]!,
          type: 'text',
          content: { body: `scale-out message ${i}` },
        };
      }
      if (channel.official) {
        const components = [{ type: 'body', parameters: [{ type: 'text', text: `order ${i}` }] }];
        return { channel_id: channel.id, to: recipient(i), type: 'template', content: { template: { ...channel.template!, components } } };
      }
      return { channel_id: channel.id, to: recipient(i), type: 'text', content: { body: `scale-out message ${i}` } };
    };
    /** POSTs message i with its key through API `via`, then through the others in turn while one is down or cut off. */
    const post = async (i: number, via: number): Promise<{ id: string; replayed: boolean }> => {
      for (let attempt = 0; ; attempt++) {
        const index = (via + attempt) % apis.length;
        const api = apis[index];
        if (!api || down.has(index)) continue;
        try {
          const res = await call(api, 'POST', '/v1/messages', bodyOf(i), { 'idempotency-key': `scale-${i}` });
          if (res.status === 201 || res.status === 200)
            return { id: res.body.data.id as string, replayed: res.headers.get('idempotent-replayed') === 'true' };
          // A 503 (a process that is stopping, or no database connection free within DATABASE_TIMEOUT_MS
          // on an overloaded machine) is retryable; anything else is a failure of the test.
          assert.equal(res.status, 503, `POST of message ${i}: ${res.status} ${res.text}`);
          failures.set('503', (failures.get('503') ?? 0) + 1);
        } catch (err) {
          if (err instanceof assert.AssertionError) throw err;
          // The connection failed (the process was killed): the same key through another API.
          const reason = String((err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message);
          failures.set(reason, (failures.get(reason) ?? 0) + 1);
        }
        retried++;
        if (attempt > 10 * apis.length) throw new Error(`POST of message ${i}: no API process took it`);
        if (attempt % apis.length === apis.length - 1) await new Promise((r) => setTimeout(r, 100));
      }
    };
    const killHalfway = async () => {
      const victim = workers.shift()!;
      cpuOfKilled += cpuSecondsOf(victim.pid);
      victim.kill();
      await victim.exited;
      log('a worker was SIGKILLed');
      if (apis.length < 2) return;
      // An API process other than the sandbox's: killed, and started again on its port.
      const index = apis.length - 1;
      down.add(index);
      const api = apis[index]!;
      cpuOfKilled += cpuSecondsOf(api.pid);
      api.kill();
      await api.exited;
      apis[index] = await startApi(index);
      down.delete(index);
      log('an API process was SIGKILLed and started again');
    };

    const started = performance.now();
    const startedAt = new Date();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let i = next++; i < count; i = next++) {
          const sent = await post(i, i % apis.length);
          ids[i] = sent.id;
          if (i % retryEvery === 0) {
            // The same request and key through another API process: the same message, replayed.
            const again = await post(i, (i + 1) % apis.length);
            retried++;
            assert.equal(again.id, sent.id, `message ${i} POSTed again with its key through another API made another message`);
            assert.equal(again.replayed, true, `message ${i}: the second POST was not answered as a replay`);
          }
          lastAcceptedAt = performance.now();
          if (++accepted === Math.floor(count / 2) && options.kill) killing = killHalfway();
        }
      }),
    );
    await killing;
    const acceptSeconds = (lastAcceptedAt - started) / 1000;
    log(
      `${count} accepted in ${acceptSeconds.toFixed(1)} s (${retried} retried through another API${failures.size ? `; failed first: ${[...failures].map(([why, n]) => `${why} ${n}`).join(', ')}` : ''})`,
    );
    assert.equal(new Set(ids).size, count, 'every message has an id of its own');

    // ---- Every message read
    let last = '';
    await eventually(
      'every message to reach a final status',
      async () => {
        const rows = await queryRows<{ status: string; n: number }>(
          db,
          sql`select status, count(*)::int as n from messages where direction = 'outbound' group by status order by status`,
        );
        last = rows.map((r) => `${r.status} ${r.n}`).join(', ');
        const final = rows.filter((r) => r.status === 'read' || r.status === 'failed').reduce((n, r) => n + r.n, 0);
        drain(endpoints);
        return final === count ? true : undefined;
      },
      { timeoutMs: deadlineMs, everyMs: 250 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}; outbound messages by status: ${last}`);
    });
    const failed = await queryRows<{ id: string; error_code: string | null; error_message: string | null }>(
      db,
      sql`select id, error_code, error_message from messages where direction = 'outbound' and status = 'failed' limit 10`,
    );
    assert.deepEqual(failed, [], 'the sandbox fails no message: every one is read');
    const [span] = await queryRows<{ last: Date }>(db, sql`select max(updated_at) as last from messages where direction = 'outbound'`);
    const endToEndSeconds = (new Date(span!.last).getTime() - startedAt.getTime()) / 1000;
    log(`${count} read in ${endToEndSeconds.toFixed(1)} s: ${(count / endToEndSeconds).toFixed(0)} messages/s end to end`);

    // ---- The provider saw each message exactly once
    const sends = await providerSendCounts(db);
    const twice = Object.entries(sends).filter(([, n]) => n !== 1);
    assert.deepEqual(twice, [], 'the provider holds no message twice');
    assert.deepEqual(
      ids.filter((id) => !(id in sends)),
      [],
      'the provider holds every message',
    );
    assert.equal(Object.keys(sends).length, count, 'the provider holds no message Parley did not accept');

    // ---- Every event at every endpoint
    let missing: string[] = [];
    const events = await eventually(
      'every event at every endpoint',
      async () => {
        drain(endpoints);
        const rows = await queryRows<{ id: string }>(
          db,
          sql`select id from events where type in (${sql.join(
            EVENT_TYPES.map((t) => sql`${t}`),
            sql`, `,
          )})`,
        );
        missing = endpoints.flatMap((e, n) => rows.filter((r) => !e.seen.has(r.id)).map((r) => `endpoint ${n}: ${r.id}`));
        return missing.length === 0 ? rows.length : undefined;
      },
      { timeoutMs: deadlineMs, everyMs: 250 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}; ${missing.length} missing, e.g. ${missing.slice(0, 5).join(', ')}`);
    });
    log(`${events} events at every endpoint`);
    // sent, delivered and read statuses of every message, and the message.sent event.
    assert.ok(events >= count * 4, `${events} events for ${count} messages`);

    // ---- Nothing stuck
    let stuck: Record<string, unknown> = {};
    await eventually(
      'nothing to be left queued, due, pending or held',
      async () => {
        const [row] = await queryRows<Record<string, number>>(
          db,
          sql`select
                (select count(*)::int from messages where status = 'queued' or dispatch_at <= now()) as messages_due,
                (select count(*)::int from webhook_deliveries where status = 'pending') as deliveries_pending,
                (select count(*)::int from events where position is null) as events_undispatched,
                (select count(*)::int from provider_events where processed_at is null) as provider_events_unprocessed,
                (select count(*)::int from pgboss.job where state in ('created', 'retry', 'active') and start_after <= now() - interval '5 seconds') as jobs_due,
                (select count(*)::int from channel_sessions where owner is not null and lease_until < now()) as leases_lapsed`,
        );
        stuck = Object.fromEntries(Object.entries(row!).filter(([, n]) => n > 0));
        return Object.keys(stuck).length === 0 ? true : undefined;
      },
      { timeoutMs: deadlineMs, everyMs: 250 },
    ).catch((err: Error) => {
      throw new Error(`${err.message}: ${JSON.stringify(stuck)}`);
    });

    log('nothing stuck');
    drain(endpoints);
    const rate = count / endToEndSeconds;
    const cpuSeconds = cpuOfKilled + [...apis, ...workers].reduce((n, p) => n + (p ? cpuSecondsOf(p.pid) : 0), 0);
    return {
      messages: count,
      acceptSeconds,
      endToEndSeconds,
      rate,
      webhookRequests: endpoints.reduce((n, e) => n + e.requests, 0),
      events,
      retried,
      cpuSeconds,
    };
  } finally {
    const running = [...apis, ...workers].filter((p): p is ServiceProcess => p !== undefined);
    await Promise.all(running.map((p) => p.stop()));
    await database?.close();
    await Promise.all(endpoints.map((e) => e.receiver.close()));
  }
}
