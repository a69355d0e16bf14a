/**
 * The contract fuzzer's long run (the CI run is test/fuzz/contract.test.ts): the same walk of the
 * OpenAPI document, as many requests as asked, from a given seed, against the service in this
 * process over PGlite (or PostgreSQL with TEST_DATABASE_URL). Prints the failures grouped by cause
 * and exits 1 when there is one.
 *
 *   node bench/fuzz.ts [requests=100000] [--seed 20261123] [--concurrency 4] [--time-limit-ms 5000] [--by-operation]
 */
import { parseArgs } from 'node:util';
import { runContractFuzz, summarize } from '../test/fuzz/contract.ts';
import { closedLoopbackPort, createFixtures, startFuzzServer } from '../test/fuzz/fixtures.ts';
import { guardLoopback } from '../test/fuzz/loopback-guard.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seed: { type: 'string', default: '20261123' },
    concurrency: { type: 'string', default: '4' },
    'time-limit-ms': { type: 'string', default: '5000' },
    'by-operation': { type: 'boolean', default: false },
  },
});
const requests = Number(positionals[0] ?? 100_000);
if (!Number.isInteger(requests) || requests < 1) throw new Error('usage: node bench/fuzz.ts [requests] [--seed n] [--concurrency n]');

const closedPort = await closedLoopbackPort();
const guard = guardLoopback(closedPort);
const server = await startFuzzServer(closedPort);
let failed = false;
try {
  const fixtures = await createFixtures(server, closedPort);
  const started = Date.now();
  const report = await runContractFuzz({
    server,
    fixtures,
    requests,
    seed: Number(values.seed),
    concurrency: Number(values.concurrency),
    closedPort,
    timeLimitMs: Number(values['time-limit-ms']),
    progress: (sent) => {
      if (sent % 10_000 === 0) process.stdout.write(`${sent} requests, ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
    },
  });
  const seconds = (Date.now() - started) / 1000;
  process.stdout.write(
    `\nsent ${report.sent} in ${seconds.toFixed(1)} s (${Math.round(report.sent / seconds)}/s), seed ${values.seed}\n` +
      `statuses ${JSON.stringify(report.byStatus)}\nslowest ${Math.round(report.slowestMs)} ms; heap +${report.heapGrowthMb.toFixed(1)} MB, rss +${report.rssGrowthMb.toFixed(1)} MB\n`,
  );
  if (values['by-operation']) {
    for (const [op, statuses] of Object.entries(report.byOperation).sort())
      process.stdout.write(`${op.padEnd(80)} ${JSON.stringify(statuses)}\n`);
  }
  if (guard.violations.length > 0) {
    failed = true;
    process.stdout.write(
      `\nconnections or lookups off loopback (redirected to the closed port):\n${[...new Set(guard.violations)].join('\n')}\n`,
    );
  }
  if (report.failures.length > 0) {
    failed = true;
    process.stdout.write(`\n${report.failures.length} contract failures:\n${summarize(report.failures)}\n`);
  } else {
    process.stdout.write('no contract failures\n');
  }
} finally {
  await server.close().catch((err: unknown) => {
    failed = true;
    process.stdout.write(`${String(err)}\n`);
  });
  guard.restore();
}
process.exit(failed ? 1 : 0);
