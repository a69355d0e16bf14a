/**
 * SIGKILL in the middle of a dispatch batch, shared by the kill tests of both role layouts: messages
 * on an official and a gateway channel (both bound to the sandbox), the sandbox answering a 500 and a
 * 429, then holding a batch's sends unanswered (some it received, some not) when the process that
 * sent them is killed. After a
 * restart, what was lost is counted: every acknowledged message is read, none failed, the provider
 * holds each exactly once, and every message's read status reached the webhook endpoint.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { openDatabase, queryRows } from '../../src/db/client.ts';
import { randomToken } from '../../src/lib/crypto.ts';
import { eventually } from '../eventually.ts';
import { freePort, request } from '../harness.ts';
import { pairedGatewayChannel, providerSendCounts } from '../messages-helpers.ts';
import { startReceiver } from '../webhook-receiver.ts';
import { createDeployment, runService, startService, type ServiceProcess } from './service.ts';

const OFFICIAL_MESSAGES = 24;
const GATEWAY_MESSAGES = 12;
/**
 * Per channel, in this order: a 500 and a 429 (retried), then sends the sandbox records but never
 * answers and sends it neither records nor answers: those are in flight when the kill comes.
 */
const FAULTS = [
  { fault: 'error', times: 1 },
  { fault: 'rate_limit', times: 1 },
  { fault: 'lose_answer', times: 2 },
  { fault: 'hang', times: 2 },
];

/** 'one': ROLES=api,worker in one process, killed whole. 'split': an API process and a worker process (PostgreSQL only); the worker is killed. */
export async function killMidBatch(layout: 'one' | 'split'): Promise<void> {
  const deployment = await createDeployment();
  const receiver = await startReceiver();
  const apiKey = `prl_kill_${randomToken(24)}`;
  const apiPort = await freePort();
  const env = {
    ...deployment.env,
    BASE_URL: `http://127.0.0.1:${apiPort}`,
    BOOTSTRAP_ADMIN_EMAIL: 'kill@example.com',
    BOOTSTRAP_ADMIN_PASSWORD: 'kill test password',
    BOOTSTRAP_API_KEY: apiKey,
    SANDBOX_STATUS_DELAY_MS: '20',
    SANDBOX_FAULT_INJECTION: 'true',
    // Held sends are still held when the kill comes; a lost answer is asked about 10 s after its attempt.
    PROVIDER_TIMEOUT_MS: '5000',
    // Long enough that nothing here may end as outcome unknown.
    MESSAGE_RECONCILE_SECONDS: '300',
    RATE_LIMIT_PER_MINUTE: '0',
    // The webhook receiver is on loopback.
    ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    WEBHOOK_POLL_INTERVAL_MS: '200',
  };
  const startWorker = async () => {
    const worker = await runService({ dataDir: deployment.dataDir, env: { ...env, ROLES: 'worker' } });
    await worker.waitForLog('worker started', 60_000);
    return worker;
  };
  let api: ServiceProcess | undefined;
  let worker: ServiceProcess | undefined;
  try {
    api = await startService({ dataDir: deployment.dataDir, env: layout === 'split' ? { ...env, ROLES: 'api' } : env, port: apiPort });
    if (layout === 'split') worker = await startWorker();
    const service = api;
    const call = (method: string, url: string, body?: unknown) => request(service, method, url, { key: apiKey, body });

    const endpoint = await call('POST', '/v1/settings/developer/webhooks/endpoints', {
      url: receiver.url,
      event_types: ['message.status_update'],
    });
    assert.equal(endpoint.status, 201, endpoint.text);
    const official = (await call('POST', '/v1/channels', { platform: 'chatapp_official', name: 'kill official' })).body.data;
    const gateway = await pairedGatewayChannel({ ...service, apiKey } as never, 'kill gateway');
    const session = (await call('GET', `/v1/channels/${gateway.id}`)).body.data.settings.session as string;
    const to = '4915112349999';
    await request(service, 'POST', '/sandbox/inbound', {
      key: apiKey,
      body: { channel_id: official.id, from: to, type: 'text', content: { body: 'hi' } },
    });
    await eventually(
      'the window to open',
      async () => Boolean((await call('GET', `/v1/conversations?channel_id=${official.id}`)).body.data[0]?.last_inbound_at),
      { timeoutMs: 20_000, everyMs: 100 },
    );

    const accounts = [official.settings.phone_number_id as string, session];
    const rules = accounts.flatMap((account) => FAULTS.map((f) => ({ ...f, account })));
    const hits = rules.reduce((n, r) => n + r.times, 0);
    assert.equal((await request(service, 'PUT', '/sandbox/faults', { body: { rules } })).status, 200);

    const accepted = await Promise.all([
      ...Array.from({ length: OFFICIAL_MESSAGES }, (_, i) =>
        call('POST', '/v1/messages', { channel_id: official.id, to, type: 'text', content: { body: `o${i}` } }),
      ),
      ...Array.from({ length: GATEWAY_MESSAGES }, (_, i) =>
        call('POST', '/v1/messages', { channel_id: gateway.id, to, type: 'text', content: { body: `g${i}` } }),
      ),
    ]);
    const ids = accepted.map((res) => {
      assert.equal(res.status, 201, res.text);
      return res.body.data.id as string;
    });
    const officialIds = ids.slice(0, OFFICIAL_MESSAGES);
    const gatewayIds = ids.slice(OFFICIAL_MESSAGES);

    // The batch in flight: every fault has struck, and the held sends are with the sandbox, unanswered.
    await eventually(
      'the held sends',
      async () => {
        const res = await request(service, 'GET', '/sandbox/faults');
        return (res.body.rules as Array<{ hits: number }>).reduce((n, r) => n + r.hits, 0) === hits ? true : undefined;
      },
      { timeoutMs: 30_000, everyMs: 20 },
    );
    const victim = layout === 'split' ? worker! : api;
    victim.kill();
    await victim.exited;
    if (layout === 'split') worker = await startWorker();
    else api = await startService({ dataDir: deployment.dataDir, env, port: apiPort });
    const after = api;

    const final = new Map<string, { status: string; code?: string }>();
    const last = new Map<string, string>();
    await eventually(
      'every message to reach a final status',
      async () => {
        for (const id of ids) {
          if (final.has(id)) continue;
          const res = await request(after, 'GET', `/v1/messages/${id}`, { key: apiKey });
          assert.equal(res.status, 200, `message ${id} was lost`);
          const status = res.body.data.status as string;
          last.set(id, status);
          if (status === 'read' || status === 'failed') final.set(id, { status, code: res.body.data.error?.code });
        }
        return final.size === ids.length ? true : undefined;
      },
      // A dead worker's rows wait out their lease (30 s), its answers a lookup 10 s after their attempt,
      // its callback jobs a missed heartbeat: on a busy machine, after a restart, that adds up.
      { timeoutMs: 120_000, everyMs: 500 },
    ).catch(async (err: Error) => {
      const open = [...last].filter(([id]) => !final.has(id)).map(([id, status]) => `${id.slice(-6)} ${status}`);
      if (deployment.databaseUrl) {
        const db = await openDatabase({ kind: 'postgres', url: deployment.databaseUrl });
        const jobs = await queryRows(
          db.db,
          sql`select name, state, retry_count, retry_limit, heartbeat_on, heartbeat_seconds, started_on, start_after, output::text from pgboss.job where state not in ('completed') order by created_on`,
        );
        process.stderr.write(`JOBS ${JSON.stringify(jobs)}\n`);
        for (const [id] of [...last].filter(([id]) => !final.has(id))) {
          const rows = await queryRows(
            db.db,
            sql`select m.status, m.provider_message_id, m.channel_id, (select json_agg(h order by h.occurred_at) from message_status_log h where h.message_id = m.id) as history from messages m where m.id = ${id}`,
          );
          const events = await queryRows(
            db.db,
            sql`select received_at, processed_at, error, payload::text from provider_events where payload::text like ${'%' + String((rows[0] as { provider_message_id?: string })?.provider_message_id ?? id) + '%'} or payload::text like ${'%' + id + '%'} order by received_at`,
          );
          const sb = await queryRows(
            db.db,
            sql`select id, status, idempotency_key from sandbox_messages where idempotency_key = ${id} or body->>'biz_opaque_callback_data' = ${id}`,
          );
          process.stderr.write(`STUCK ${id} ${JSON.stringify(rows)}\nEVENTS ${JSON.stringify(events)}\nSANDBOX ${JSON.stringify(sb)}\n`);
        }
        await db.close();
      }
      throw new Error(
        `${err.message}; still open: ${open.join(', ')}\nworker log tail: ${(worker ?? api)!.stdout.split('\n').slice(-15).join('\n')}`,
      );
    });
    const failed = [...final].filter(([, o]) => o.status !== 'read');
    assert.deepEqual(failed, [], 'every message was read: none failed, none ended outcome unknown');

    await eventually(
      'a read webhook for every message',
      async () => {
        const read = new Set(
          receiver.requests
            .map((r) => JSON.parse(r.body))
            .filter((b) => b.status === 'read')
            .map((b) => b.message_id),
        );
        return ids.every((id) => read.has(id)) ? true : undefined;
      },
      { timeoutMs: 30_000, everyMs: 250 },
    );

    await after.stop();
    api = undefined;
    if (worker) await worker.stop();
    worker = undefined;
    const database = deployment.databaseUrl
      ? await openDatabase({ kind: 'postgres', url: deployment.databaseUrl })
      : await openDatabase({ kind: 'pglite', dataDir: path.join(deployment.dataDir, 'db') });
    try {
      const times = await providerSendCounts(database.db);
      assert.deepEqual(
        times,
        Object.fromEntries([...officialIds, ...gatewayIds].map((id) => [id, 1])),
        'the provider holds each message exactly once',
      );
    } finally {
      await database.close();
    }
  } finally {
    api?.kill();
    worker?.kill();
    if (api) await api.exited;
    if (worker) await worker.exited;
    await receiver.close();
    await deployment.cleanup();
  }
}
