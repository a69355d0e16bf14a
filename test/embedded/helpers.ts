/** Helpers for the embedded engine's tests: a server with scripted sockets, embedded channels, waits. */
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { channelSessions, channelSessionKeys } from '../../src/db/schema.ts';
import { eventually } from '../eventually.ts';
import { movableClock, request, startTestServer, type TestServer } from '../harness.ts';
import { createScriptedSockets, type ScriptedSocketsOptions } from './scripted-socket.ts';

/** Timings short enough for tests; leases long enough that moving the clock by a reconnect wait keeps them. */
export const EMBEDDED_TEST_ENV = {
  EMBEDDED_LEASE_TTL: '120s',
  EMBEDDED_LEASE_RENEW: '1s',
  EMBEDDED_POLL_INTERVAL: '200ms',
  EMBEDDED_RECONNECT_BASE: '60s',
  EMBEDDED_RECONNECT_MAX: '10m',
  EMBEDDED_QR_WAIT: '5s',
  EMBEDDED_COMMAND_TIMEOUT: '5s',
};

export async function startEmbeddedServer(options: ScriptedSocketsOptions & { env?: Record<string, string> } = {}) {
  const scripted = createScriptedSockets(options);
  const clock = movableClock();
  const server = await startTestServer({
    worker: true,
    clock,
    socketFactory: scripted.factory,
    env: { ...EMBEDDED_TEST_ENV, ...options.env },
  });
  return { server, scripted, clock };
}

/** An unofficial channel on the embedded engine: created with no gateway_base and without the sandbox. */
export async function embeddedChannel(server: TestServer, name = 'Phone'): Promise<{ id: string }> {
  const res = await request(server, 'POST', '/v1/channels', { key: server.apiKey, body: { platform: 'chatapp_unofficial', name } });
  assert.equal(res.status, 201, res.text);
  // No gateway named and no sandbox asked for: the embedded engine's.
  assert.equal(res.body.data.sandbox, false);
  assert.equal(res.body.data.settings.gateway_base, undefined);
  return { id: res.body.data.id as string };
}

export const getChannel = async (server: TestServer, id: string) =>
  (await request(server, 'GET', `/v1/channels/${id}`, { key: server.apiKey })).body.data;

export async function waitForStatus(server: TestServer, id: string, status: string, what = `the channel to be ${status}`) {
  return eventually(what, async () => {
    const channel = await getChannel(server, id);
    return channel.status === status ? channel : undefined;
  });
}

export async function sessionRow(server: TestServer, channelId: string) {
  const [row] = await server.container.database.db.select().from(channelSessions).where(eq(channelSessions.channelId, channelId));
  return row;
}

export async function keyRows(server: TestServer, channelId: string) {
  return server.container.database.db.select().from(channelSessionKeys).where(eq(channelSessionKeys.channelId, channelId));
}

/** Connects a channel, scans its QR with a phone and waits until it is connected; returns the socket that opened. */
export async function pairedChannel(ctx: Awaited<ReturnType<typeof startEmbeddedServer>>, phone = '4915112345678', name = 'Phone') {
  const channel = await embeddedChannel(ctx.server, name);
  const connect = await request(ctx.server, 'POST', `/v1/channels/${channel.id}/connect`, { key: ctx.server.apiKey });
  assert.equal(connect.status, 200, connect.text);
  await ctx.scripted.latest(channel.id)!.scan(phone, 'Shop');
  await waitForStatus(ctx.server, channel.id, 'connected');
  return { ...channel, socket: ctx.scripted.latest(channel.id)! };
}
