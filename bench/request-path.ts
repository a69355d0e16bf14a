/**
 * The request path: the service's hot routes against a bare Fastify route doing the same work, in
 * the same run (issue 14 item 2).
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/request-path.ts [--runs 3] [--duration 5] [--connections 10] [--write]
 *   node bench/request-path.ts --pglite [--runs 1] [--write]
 *
 * The service is `node src/main.ts` as its own process, in the default single-process layout (api
 * and worker), log level info (the default; its lines go to a pipe this process drains), request
 * limits off. The baseline is a bare Fastify server in a second process (bench/lib/bare-server.ts):
 * no hooks, no logger, no authentication, its routes running the same SQL as named statements
 * through a pg Pool of 10 on the same database; and a bare POST route with a JSON schema and no
 * database. autocannon drives both from this process; in each round every scenario runs the
 * baseline and then the service, so both see the same machine. Reported: medians over the rounds
 * of requests/s and p99, and the median of the per-round ratios.
 * With --pglite the service runs on embedded PGlite (on disk) and the baseline on a copy of its
 * data directory, one embedded connection (no pool).
 *   BENCH_SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" profiles the service; --only <text> runs the
 *   scenarios whose name holds the text.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { randomToken } from '../src/lib/crypto.ts';
import { freePort, createTestDatabaseUrl, type TestDatabaseUrl } from '../test/harness.ts';
import { machine, median, writeSection } from './bench-report.ts';
import { api, cpuUsOf, hasFlag, messageBody, numberOption, option, pairedGatewayChannel, pgServerUrl, round } from './lib/common.ts';
import { postgresVersion, startService, type Service } from './lib/webhooks.ts';

const pglite = hasFlag('pglite') || hasFlag('pglite-memory');
const runs = numberOption('runs', 3);
const seconds = numberOption('duration', 5);
const connections = numberOption('connections', 10);
const write = hasFlag('write');

type Target = { method: 'GET' | 'POST'; path: string; bodies?: string[]; auth: boolean };
type Scenario = { name: string; service: Target; bare: Target; target: number };
type Sample = { rate: number; p99: number; non2xx: number; errors: number; cpuUs: number; firstRefusal?: string };

async function hit(baseUrl: string, apiKey: string, t: Target, duration: number, pid: number): Promise<Sample> {
  const cpuBefore = cpuUsOf(pid);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (t.bodies) headers['content-type'] = 'application/json';
  if (t.auth) headers['x-api-key'] = apiKey;
  let i = 0;
  let firstRefusal: string | undefined;
  const result = await autocannon({
    url: baseUrl + t.path,
    connections,
    duration,
    timeout: 30,
    requests: [
      {
        method: t.method,
        path: t.path,
        headers,
        // The first answer that is not a 2xx, to say what went wrong.
        onResponse: (status: number, body: string) => {
          if ((status < 200 || status > 299) && firstRefusal === undefined) firstRefusal = `${status} ${body.slice(0, 300)}`;
        },
        ...(t.bodies
          ? {
              setupRequest: (request) => {
                request.body = t.bodies![i++ % t.bodies!.length]!;
                return request;
              },
            }
          : {}),
      },
    ],
  });
  const cpuUs = (cpuUsOf(pid) - cpuBefore) / Math.max(1, result['2xx']);
  return {
    rate: result['2xx'] / result.duration,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpuUs,
    ...(firstRefusal ? { firstRefusal } : {}),
  };
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'parley-bench-reqpath-'));
const bareDir = mkdtempSync(path.join(os.tmpdir(), 'parley-bench-bare-'));
const shared = { dataDir, apiKey: `prl_bench_${randomToken(24)}`, key: Buffer.from(randomToken(32), 'base64url').toString('base64') };
const env = { RATE_LIMIT_PER_MINUTE: '0', AUTH_FAILURE_LIMIT_PER_MINUTE: '0', SANDBOX_STATUS_DELAY_MS: '200' };
let database: TestDatabaseUrl | undefined;
let service: Service | undefined;
let bare: ChildProcess | undefined;

try {
  database = pglite ? undefined : await createTestDatabaseUrl(pgServerUrl());
  const dbLine = database
    ? `${await postgresVersion(pgServerUrl())} on 127.0.0.1 (same machine), a fresh database`
    : 'embedded PGlite on disk in the service process';
  const header = machine({ Database: dbLine });
  service = await startService(database, env, shared);
  const server = { baseUrl: service.baseUrl, apiKey: shared.apiKey };

  // Seed: three channels (one paired, to send on, at its default pace: the worker trickles), 50 contacts, a message.
  const channelId = await pairedGatewayChannel(server);
  for (const n of [1, 2]) {
    const made = await api(server, 'POST', '/v1/channels', { platform: 'chatapp_unofficial', name: `Bench ${n}`, sandbox: true });
    if (made.status !== 201) throw new Error(`channel: ${made.status} ${JSON.stringify(made.body)}`);
  }
  const phones = Array.from({ length: 50 }, (_, i) => `+4930${String(5_550_000 + i)}`);
  const contactIds: string[] = [];
  for (const [i, phone] of phones.entries()) {
    const made = await api(server, 'POST', '/v1/contacts', { phone_number: phone, name: `Contact ${i}`, email: `c${i}@bench.example` });
    if (made.status !== 201) throw new Error(`contact: ${made.status} ${JSON.stringify(made.body)}`);
    contactIds.push(made.body.data.id as string);
  }
  const sent = await api(server, 'POST', '/v1/messages', JSON.parse(messageBody(channelId, 0)));
  if (sent.status !== 201) throw new Error(`message: ${sent.status} ${JSON.stringify(sent.body)}`);
  const messageId = sent.body.data.id as string;
  const organizationId = await organizationOf(server);

  if (pglite) {
    // The baseline reads a copy of the service's data directory (PGlite holds it alone).
    await service.stop();
    cpSync(path.join(dataDir, 'db', 'pgdata'), path.join(bareDir, 'pgdata'), { recursive: true });
    // On the same port: the sandbox gateway's URL in the channel names it (on another port the
    // watchdog found the gateway gone and disconnected the channel, whose sends were then refused).
    service = await startService(undefined, env, shared, service);
  }
  const barePort = await freePort();
  bare = spawn(process.execPath, [path.join(import.meta.dirname, 'lib', 'bare-server.ts')], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      BARE_PORT: String(barePort),
      BARE_ORG: organizationId,
      ...(database ? { DATABASE_URL: database.url } : { BARE_PGLITE_DIR: path.join(bareDir, 'pgdata') }),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    bare!.stdout!.on('data', (d: Buffer) => String(d).includes('listening') && resolve());
    bare!.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
  });
  const bareUrl = `http://127.0.0.1:${barePort}`;
  const [barePid, servicePid] = [bare.pid!, service.child.pid!];

  const lookupBodies = phones.map((p) => JSON.stringify({ identifiers: [{ type: 'phone', value: p }] }));
  const messageBodies = Array.from({ length: 1000 }, (_, i) => messageBody(channelId, i + 1));
  const scenarios: Scenario[] = [
    {
      name: 'GET /v1/channels',
      service: { method: 'GET', path: '/v1/channels', auth: true },
      bare: { method: 'GET', path: '/bare/channels', auth: false },
      target: 0.5,
    },
    {
      name: 'GET /v1/messages/{id}',
      service: { method: 'GET', path: `/v1/messages/${messageId}`, auth: true },
      bare: { method: 'GET', path: `/bare/messages/${messageId}`, auth: false },
      target: 0.5,
    },
    {
      name: 'GET /v1/contacts/{id}',
      service: { method: 'GET', path: `/v1/contacts/${contactIds[7]}`, auth: true },
      bare: { method: 'GET', path: `/bare/contacts/${contactIds[7]}`, auth: false },
      target: 0.5,
    },
    {
      name: 'POST /v1/contacts/lookup (phone)',
      service: { method: 'POST', path: '/v1/contacts/lookup', bodies: lookupBodies, auth: true },
      bare: { method: 'POST', path: '/bare/contacts/lookup', bodies: lookupBodies, auth: false },
      target: 0.5,
    },
    {
      name: 'POST /v1/messages (bare: no database)',
      service: { method: 'POST', path: '/v1/messages', bodies: messageBodies, auth: true },
      bare: { method: 'POST', path: '/bare/messages', bodies: messageBodies, auth: false },
      target: 0.15,
    },
  ];

  // --only <text>: just the scenarios whose name holds it (profiling one route).
  const only = option('only', '');
  if (only) scenarios.splice(0, scenarios.length, ...scenarios.filter((s) => s.name.includes(only)));
  // What the service's process spends with no request (the worker's polling, timers), per second.
  const idleFrom = cpuUsOf(servicePid);
  await new Promise((r) => setTimeout(r, 3000));
  const idleCpuMsPerS = (cpuUsOf(servicePid) - idleFrom) / 3000;
  console.log(`service idle: ${idleCpuMsPerS.toFixed(1)} ms CPU per second`);
  // Warm-up: both servers' code paths compiled, statements prepared, caches filled.
  for (const s of scenarios) {
    await hit(bareUrl, shared.apiKey, s.bare, 1, barePid);
    await hit(service.baseUrl, shared.apiKey, s.service, 1, servicePid);
  }
  const results = new Map<string, Array<{ bare: Sample; service: Sample }>>();
  for (let r = 0; r < runs; r++) {
    for (const s of scenarios) {
      const b = await hit(bareUrl, shared.apiKey, s.bare, seconds, barePid);
      const v = await hit(service.baseUrl, shared.apiKey, s.service, seconds, servicePid);
      for (const [who, x] of [
        ['bare', b],
        ['service', v],
      ] as const) {
        if (x.non2xx > 0 || x.errors > 0) {
          // The channel sent on, as the service has it now (a refused send often says it changed).
          const channel = who === 'service' ? await api(server, 'GET', `/v1/channels/${channelId}`) : undefined;
          const now = channel
            ? `; the channel now: ${JSON.stringify({ status: channel.body.data?.status, status_reason: channel.body.data?.status_reason })}`
            : '';
          throw new Error(
            `${s.name} (${who}): ${x.non2xx} non-2xx, ${x.errors} errors${x.firstRefusal ? `; the first: ${x.firstRefusal}` : ''}${now}`,
          );
        }
      }
      results.set(s.name, [...(results.get(s.name) ?? []), { bare: b, service: v }]);
      console.log(
        `round ${r + 1} ${s.name}: bare ${b.rate.toFixed(0)}/s p99 ${b.p99} ms; service ${v.rate.toFixed(0)}/s p99 ${v.p99} ms (${((100 * v.rate) / b.rate).toFixed(1)}%); CPU per request ${b.cpuUs.toFixed(0)} / ${v.cpuUs.toFixed(0)} µs`,
      );
    }
  }

  const rows = scenarios.map((s) => {
    const rs = results.get(s.name)!;
    const ratio = median(rs.map((x) => x.service.rate / x.bare.rate));
    const fmt = (v: number) => Math.round(v).toLocaleString('en');
    return (
      `| ${s.name} | ${fmt(median(rs.map((x) => x.bare.rate)))} | ${round(median(rs.map((x) => x.bare.p99)))} ms | ` +
      `${fmt(median(rs.map((x) => x.service.rate)))} | ${round(median(rs.map((x) => x.service.rate)) > 0 ? median(rs.map((x) => x.service.p99)) : NaN)} ms | ` +
      `**${(100 * ratio).toFixed(1)}%** | ≥ ${100 * s.target}% | ${ratio >= s.target ? 'met' : 'not met'} | ` +
      `${fmt(median(rs.map((x) => x.bare.cpuUs)))} / ${fmt(median(rs.map((x) => x.service.cpuUs)))} µs |`
    );
  });
  const name = pglite ? 'request-path-pglite' : 'request-path';
  const command = pglite
    ? `node bench/request-path.ts --pglite --runs ${runs}`
    : `TEST_DATABASE_URL=postgres://... node bench/request-path.ts --runs ${runs}`;
  const report = `## Request path: hot routes against a bare Fastify route (bench/request-path.ts)${pglite ? ', PGlite' : ''}

Command: \`${command}\` (${new Date().toISOString().slice(0, 10)})

${header}
- Service: \`node src/main.ts\` as its own process, api and worker in one (the default layout), log level info (lines to a pipe), request limits off${database ? ', pool of 10' : ''}
- Baseline: a bare Fastify server in its own process (bench/lib/bare-server.ts): no hooks, logger or authentication; ${database ? 'the same SQL as named statements through a pg Pool of 10 on the same database' : "the same SQL on a copy of the service's PGlite data directory (one embedded connection: no pool)"}; its POST route validates a JSON schema of the message body and touches no database
- Load: autocannon in a third process, ${connections} connections, ${seconds} s per measurement; each of ${runs} rounds runs every scenario on the baseline, then on the service

Values are medians over the rounds; the ratio is the median of the per-round ratios (service / baseline requests per second).
With no request the service's process used ${idleCpuMsPerS.toFixed(1)} ms of CPU per second (the worker's polling and timers), included below.
CPU per request is the server process's CPU time (user + system, /proc) over the measurement divided by its 2xx answers: it depends less than the rates on what else the machine runs, though a crowded machine raises it too (cache misses, switches)${pglite ? '' : " (PostgreSQL's own CPU is not in it)"}.

| Scenario | Baseline req/s | Baseline p99 | Service req/s | Service p99 | Service / baseline | Target | | CPU per request: baseline / service |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}
`;
  console.log(report);
  if (write) writeSection(name, report);
} finally {
  bare?.kill('SIGTERM');
  await service?.stop();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(bareDir, { recursive: true, force: true });
}

async function organizationOf(server: { baseUrl: string; apiKey: string }): Promise<string> {
  const res = await api(server, 'GET', '/v1/organizations');
  const id = (res.body?.data as Array<{ id: string }> | undefined)?.[0]?.id;
  if (!id) throw new Error(`organization: ${res.status} ${JSON.stringify(res.body)}`);
  return id;
}
