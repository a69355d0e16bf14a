/**
 * OAuth on PostgreSQL, over HTTP, ratios from one run (issue 11):
 *  - GET /v1/channels with an access token (Authorization: Bearer) against the same route with an API
 *    key, alternating rounds (target: bearer ≥ 90% of the API-key rate);
 *  - refresh grants per second at POST /v1/oauth/token (each chain presents the refresh token the
 *    previous exchange gave it: rotation as a client does it; target ≥ 1,000/s on 2 cores).
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/oauth.ts [--seconds 5] [--rounds 3 (or --runs 3)] [--connections 16] [--chains 32]
 *
 * The service runs as its own process (`node src/main.ts`, API role, log level warn) on a fresh
 * database made on TEST_DATABASE_URL's server. The client, grant and tokens are rows inserted here
 * (the flows that make them are tested in test/api/oauth-tokens.test.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { Pool } from 'undici';
import { randomToken } from '../src/lib/crypto.ts';
import { machine, median, writeSection } from './bench-report.ts';
import { createTestDatabaseUrl, freePort } from '../test/harness.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    // bench/run-all.ts passes every benchmark --runs N --write: a run here is a round (the section is always written).
    runs: { type: 'string' },
    write: { type: 'boolean', default: false },
    connections: { type: 'string', default: '16' },
    chains: { type: 'string', default: '32' },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.runs ?? values.rounds);
const CONNECTIONS = Number(values.connections);
const CHAINS = Number(values.chains);
if (!process.env.TEST_DATABASE_URL) {
  console.error('set TEST_DATABASE_URL to a PostgreSQL server (a fresh database is made on it)');
  process.exit(2);
}

const fresh = await createTestDatabaseUrl();
const port = await freePort();
const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-bench-'));
const apiKey = `prl_bench_${randomToken(24)}`;
const service = spawn(process.execPath, [path.join(import.meta.dirname, '..', 'src', 'main.ts')], {
  env: {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    DATABASE_URL: fresh.url,
    ROLES: 'api',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '0',
    AUTH_FAILURE_LIMIT_PER_MINUTE: '0',
    BOOTSTRAP_ADMIN_EMAIL: 'bench@example.com',
    BOOTSTRAP_ADMIN_PASSWORD: 'correct horse battery staple',
    BOOTSTRAP_API_KEY: apiKey,
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const db = new pg.Client({ connectionString: fresh.url });
const baseUrl = `http://127.0.0.1:${port}`;

const hash = `encode(sha256($1::bytea), 'hex')`;

try {
  for (let i = 0; ; i++) {
    if (
      await fetch(`${baseUrl}/v1/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 600) throw new Error('the service did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  await db.connect();
  const setting = async (name: string) => Object.values((await db.query(`show ${name}`)).rows[0] as Record<string, string>)[0]!;
  const version = `${await setting('server_version')} (synchronous_commit=${await setting('synchronous_commit')}, fsync=${await setting('fsync')}: every refresh grant is a flushed commit)`;
  const org = (await db.query<{ id: string }>('select id from organizations order by created_at limit 1')).rows[0]!.id;
  const user = (await db.query<{ id: string }>('select id from users order by created_at limit 1')).rows[0]!.id;
  const clientId = `pcl_bench_${randomToken(8)}`;
  const clientRow = (
    await db.query<{ id: string }>(
      `insert into oauth_clients (id, client_id, organization_id, name, type, redirect_uris, grant_types, scopes)
       values (gen_random_uuid(), $1, $2, 'bench', 'public', '{http://127.0.0.1/cb}', '{authorization_code,refresh_token}', '{channels:read}') returning id`,
      [clientId, org],
    )
  ).rows[0]!.id;
  const grant = (
    await db.query<{ id: string }>(
      `insert into oauth_grants (id, client_id, user_id, scopes) values (gen_random_uuid(), $1, $2, '{channels:read}') returning id`,
      [clientRow, user],
    )
  ).rows[0]!.id;
  await db.query('insert into oauth_grant_organizations (grant_id, organization_id) values ($1, $2)', [grant, org]);
  const accessToken = `pla_${randomToken(32)}`;
  await db.query(
    `insert into oauth_tokens (id, grant_id, kind, token_hash, scopes, expires_at) values (gen_random_uuid(), $2, 'access', ${hash}, '{channels:read}', now() + interval '1 day')`,
    [accessToken, grant],
  );
  const refreshTokens: string[] = [];
  // Each chain is an authorization of its own (a grant), as each installed client is.
  for (let i = 0; i < CHAINS; i++) {
    const token = `plr_${randomToken(32)}`;
    const own = (
      await db.query<{ id: string }>(
        `insert into oauth_grants (id, client_id, user_id, scopes) values (gen_random_uuid(), $1, $2, '{channels:read}') returning id`,
        [clientRow, user],
      )
    ).rows[0]!.id;
    await db.query('insert into oauth_grant_organizations (grant_id, organization_id) values ($1, $2)', [own, org]);
    await db.query(
      `insert into oauth_tokens (id, grant_id, kind, token_hash, scopes, expires_at) values (gen_random_uuid(), $2, 'refresh', ${hash}, '{channels:read}', now() + interval '30 days')`,
      [token, own],
    );
    refreshTokens.push(token);
  }

  async function channels(headers: Record<string, string>): Promise<{ rate: number; p99: number; non2xx: number }> {
    const result = await autocannon({ url: `${baseUrl}/v1/channels`, connections: CONNECTIONS, duration: SECONDS, headers });
    return { rate: result['2xx'] / result.duration, p99: result.latency.p99, non2xx: result.non2xx };
  }

  /** Refresh grants per second: CHAINS clients, each presenting the refresh token its last exchange gave it. */
  async function refreshes(): Promise<{ rate: number; failures: number }> {
    const http = new Pool(baseUrl, { connections: CONNECTIONS });
    let ok = 0;
    let failures = 0;
    const deadline = performance.now() + SECONDS * 1000;
    const started = performance.now();
    await Promise.all(
      refreshTokens.map(async (_, chain) => {
        while (performance.now() < deadline) {
          const res = await http.request({
            path: '/v1/oauth/token',
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
            body: new URLSearchParams({
              grant_type: 'refresh_token',
              refresh_token: refreshTokens[chain]!,
              client_id: clientId,
            }).toString(),
          });
          const body = (await res.body.json()) as { refresh_token?: string };
          if (res.statusCode === 200 && body.refresh_token) {
            refreshTokens[chain] = body.refresh_token;
            ok++;
          } else {
            failures++;
            return;
          }
        }
      }),
    );
    await http.close();
    return { rate: ok / ((performance.now() - started) / 1000), failures };
  }

  const keyHeaders = { 'x-api-key': apiKey, accept: 'application/json' };
  const bearerHeaders = { authorization: `Bearer ${accessToken}`, accept: 'application/json' };
  await channels(keyHeaders);
  await channels(bearerHeaders);
  const ratios: number[] = [];
  const keyRates: number[] = [];
  const bearerRates: number[] = [];
  const refreshRates: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const key = await channels(keyHeaders);
    const bearer = await channels(bearerHeaders);
    if (key.non2xx || bearer.non2xx) throw new Error(`non-2xx answers: key ${key.non2xx}, bearer ${bearer.non2xx}`);
    keyRates.push(key.rate);
    bearerRates.push(bearer.rate);
    ratios.push(bearer.rate / key.rate);
    const refresh = await refreshes();
    if (refresh.failures) throw new Error(`${refresh.failures} refresh chains failed`);
    refreshRates.push(refresh.rate);
    console.log(
      `round ${round + 1}: API key ${key.rate.toFixed(0)}/s, bearer ${bearer.rate.toFixed(0)}/s (${((100 * bearer.rate) / key.rate).toFixed(1)}%), refresh grants ${refresh.rate.toFixed(0)}/s`,
    );
  }
  const ratio = median(ratios);
  const refreshRate = median(refreshRates);
  writeSection(
    'oauth',
    `## OAuth (bench/oauth.ts)

Command: \`TEST_DATABASE_URL=postgres://... node bench/oauth.ts --seconds ${SECONDS} --rounds ${ROUNDS} --connections ${CONNECTIONS} --chains ${CHAINS}\` (${new Date().toISOString().slice(0, 10)})

${machine({ PostgreSQL: version })}
- ${ROUNDS} rounds of ${SECONDS} s, autocannon with ${CONNECTIONS} connections; the service is one process (API role, pool of 10) on the same machine.
- Refresh: ${CHAINS} grants, each a chain presenting the refresh token its last exchange returned.

| Measure | Median | Rounds | Target |
| --- | --- | --- | --- |
| GET /v1/channels with an API key | ${median(keyRates).toFixed(0)} req/s | ${keyRates.map((r) => r.toFixed(0)).join(', ')} | |
| GET /v1/channels with a bearer token | ${median(bearerRates).toFixed(0)} req/s | ${bearerRates.map((r) => r.toFixed(0)).join(', ')} | |
| Bearer / API key | **${(100 * ratio).toFixed(1)}%** | ${ratios.map((r) => `${(100 * r).toFixed(1)}%`).join(', ')} | ≥ 90% ${ratio >= 0.9 ? '(met)' : '(NOT met)'} |
| Refresh grants (${CHAINS} rotating chains) | **${refreshRate.toFixed(0)}/s** | ${refreshRates.map((r) => r.toFixed(0)).join(', ')} | ≥ 1,000/s ${refreshRate >= 1000 ? '(met)' : '(NOT met)'} |
`,
  );
  console.log(`bearer/API key ${(100 * ratio).toFixed(1)}%, refresh grants ${refreshRate.toFixed(0)}/s`);
} finally {
  await db.end().catch(() => undefined);
  service.kill('SIGTERM');
  await new Promise((r) => service.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
  await fresh.drop();
}
