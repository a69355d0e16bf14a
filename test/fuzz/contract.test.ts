/**
 * The contract fuzzer in CI: 6,000 requests from a fixed seed against every operation of the
 * OpenAPI document and the sandbox routes (test/fuzz/contract.ts). Longer runs: bench/fuzz.ts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestServer } from '../harness.ts';
import { runContractFuzz, summarize } from './contract.ts';
import { closedLoopbackPort, createFixtures, startFuzzServer } from './fixtures.ts';
import { guardLoopback, type LoopbackGuard } from './loopback-guard.ts';

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 6_000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);

let server: TestServer;
let guard: LoopbackGuard;
let closedPort: number;
before(async () => {
  closedPort = await closedLoopbackPort();
  guard = guardLoopback(closedPort);
  server = await startFuzzServer(closedPort);
});
after(async () => {
  await server?.close();
  guard?.restore();
});

// Within the runner's limit for this file (10 min), so a stall fails here with the progress so far on stderr.
// The fixtures and the first thousand requests are slow (the server's work right after the fixtures: to be
// found, see the session note); 10,000 requests took 266 s in a whole run here, so CI sends 6,000 (round
// robin over the operations: a prefix of the 10,000, every operation still asked ~40 times).
test(`${REQUESTS} fuzzed requests: documented statuses and bodies, no 5xx, none slow, memory bounded, nothing leaves the machine`, {
  timeout: 540_000,
}, async () => {
  const fixtures = await createFixtures(server, closedPort);
  const started = Date.now();
  process.stderr.write(`fixtures ready; fuzzing with seed ${SEED}\n`);
  const report = await runContractFuzz({
    server,
    fixtures,
    requests: REQUESTS,
    seed: SEED,
    concurrency: 4,
    closedPort,
    timeLimitMs: 5000,
    progress: (sent) => process.stderr.write(`${sent} requests in ${((Date.now() - started) / 1000).toFixed(0)} s\n`),
  });
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `sent ${report.sent} in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(report.byStatus)}; slowest ${Math.round(report.slowestMs)} ms; ` +
      `heap +${report.heapGrowthMb.toFixed(1)} MB, rss +${report.rssGrowthMb.toFixed(1)} MB`,
  );
  assert.equal(report.sent, REQUESTS);
  assert.deepEqual(guard.violations, [], 'every connection and lookup stayed on loopback');
  // Handlers ran: some requests succeeded and many were refused for what they carried.
  assert.ok(
    Object.entries(report.byStatus).some(([s, n]) => s.startsWith('2') && n > REQUESTS / 20),
    'a share of the requests succeeded',
  );
  assert.ok((report.byStatus['400'] ?? 0) > REQUESTS / 20, 'a share of the requests were refused as invalid');
  assert.ok(report.heapGrowthMb < 256, `heap grew ${report.heapGrowthMb.toFixed(1)} MB`);
  assert.ok(report.rssGrowthMb < 768, `rss grew ${report.rssGrowthMb.toFixed(1)} MB`);
  assert.equal(report.failures.length, 0, `${report.failures.length} contract failures:\n${summarize(report.failures)}`);
});
