/**
 * A channel's pace holds across worker processes: two dispatchers on one database (as two worker
 * processes would run them, each with its own process id) together send no more than the one pace
 * allows. The clock is the service's injected one and stands still, so what the pace allows is exact:
 * one second's burst plus the slots of the claim horizon (pacing.ts), and nothing more until the
 * clock moves; no timing is measured.
 */
// stores: both
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { dispatchDeps } from '../../src/container.ts';
import { queryRows } from '../../src/db/client.ts';
import { createMessageDispatcher, type MessageDispatcher } from '../../src/domain/messages/dispatcher.ts';
import { BURST_MS, MAX_SLOT_WAIT_MS } from '../../src/domain/messages/pacing.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { eventually } from '../eventually.ts';
import { pairedGatewayChannel, send } from '../messages-helpers.ts';

let nowMs = Date.now();
const clock = { now: () => new Date(nowMs) };
let server: TestServer;
let second: MessageDispatcher;

before(async () => {
  server = await startTestServer({ worker: true, clock, env: { SANDBOX_STATUS_DELAY_MS: '600000' } });
  // A second worker process's dispatcher: its own id, its own writes, the same database.
  second = createMessageDispatcher(dispatchDeps(server.container), {
    database: server.container.database,
    concurrency: 32,
    pollMs: 200,
    processId: crypto.randomUUID(),
  });
  await second.start();
});
after(async () => {
  await second.stop({ timeoutMs: 5000 });
  await server.close();
});

test("two dispatchers together keep one channel's pace: the provider gets what one pace allows, and more only as time passes", {
  timeout: 120_000,
}, async () => {
  const RATE = 10;
  const channel = await pairedGatewayChannel(server, 'shared pace');
  const paced = await request(server, 'PATCH', `/v1/channels/${channel.id}`, {
    key: server.apiKey,
    body: { settings: { throughput_per_second: RATE } },
  });
  assert.equal(paced.status, 200, paced.text);
  const session = paced.body.data.settings.session as string;
  const db = server.container.database.db;
  const providerGot = async () =>
    (
      await queryRows<{ n: number }>(
        db,
        sql`select count(*)::int as n from sandbox_messages where account_id = ${session} and direction = 'outbound'`,
      )
    )[0]!.n;
  const state = async () =>
    (
      await queryRows<{ sent: number; leased: number }>(
        db,
        sql`select count(*) filter (where status <> 'queued')::int as sent,
                   count(*) filter (where status = 'queued' and dispatch_at > ${new Date(nowMs + 5000).toISOString()}::timestamptz)::int as leased
              from messages where channel_id = ${channel.id}`,
      )
    )[0]!;

  const answers = await Promise.all(
    Array.from({ length: 60 }, (_, i) =>
      send(server, {
        channel_id: channel.id,
        to: `4915112399${String(i).padStart(3, '0')}`,
        type: 'text',
        content: { body: `shared ${i}` },
      }),
    ),
  );
  assert.ok(
    answers.every((a) => a.status === 201),
    answers.find((a) => a.status !== 201)?.text,
  );
  server.container.dispatcher.wake();
  second.wake();

  // The clock stands still: one second's burst and the slots up to the claim horizon, one interval apart.
  const allowed = ((BURST_MS + MAX_SLOT_WAIT_MS) * RATE) / 1000;
  const settled = async (expected: number) =>
    eventually(
      `${expected} sent and no message held by a dispatcher`,
      async () => {
        const s = await state();
        assert.ok(s.sent <= expected, `${s.sent} messages sent where the pace allows ${expected}`);
        return s.sent === expected && s.leased === 0 ? s : undefined;
      },
      60_000,
    );
  await settled(allowed);
  // Both dispatchers look again: still nothing more while the clock stands.
  server.container.dispatcher.wake();
  second.wake();
  await new Promise((r) => setImmediate(r));
  await settled(allowed);
  assert.equal(await providerGot(), allowed, 'the provider got what one pace allows, not one per dispatcher');

  // A second passes: the pace allows one second's worth more.
  nowMs += 1000;
  server.container.dispatcher.wake();
  second.wake();
  await settled(allowed + RATE);
  assert.equal(await providerGot(), allowed + RATE);
});

test('a rate-limit pause of the channel holds the sends of every dispatcher', { timeout: 60_000 }, async () => {
  const channel = await pairedGatewayChannel(server, 'paused');
  const paced = await request(server, 'PATCH', `/v1/channels/${channel.id}`, {
    key: server.apiKey,
    body: { settings: { throughput_per_second: 100 } },
  });
  assert.equal(paced.status, 200, paced.text);
  // As a rate-limit answer in one process would (dispatch.ts), for 10 s from the standing clock.
  await dispatchDeps(server.container).pacer.pause(channel.id, 10_000);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++)
    ids.push(
      (
        await send(server, {
          channel_id: channel.id,
          to: `4915112398${String(i).padStart(3, '0')}`,
          type: 'text',
          content: { body: `held ${i}` },
        })
      ).body.data.id,
    );
  server.container.dispatcher.wake();
  second.wake();
  const db = server.container.database.db;
  const rows = () =>
    queryRows<{ status: string; due: Date | null }>(
      db,
      sql`select status, dispatch_at as due from messages where channel_id = ${channel.id}`,
    );
  // Each claim leaves them due when the pause nears its end; none is sent.
  await eventually('the messages left due near the end of the pause', async () => {
    const now = await rows();
    assert.ok(
      now.every((r) => r.status === 'queued'),
      JSON.stringify(now),
    );
    return now.every((r) => r.due && new Date(r.due).getTime() >= nowMs + 10_000 - MAX_SLOT_WAIT_MS - 1) ? true : undefined;
  });
  nowMs += 10_000;
  server.container.dispatcher.wake();
  second.wake();
  await eventually(
    'sent once the pause is over',
    async () => ((await rows()).every((r) => r.status !== 'queued') ? true : undefined),
    30_000,
  );
});
