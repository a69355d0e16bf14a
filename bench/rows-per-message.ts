/**
 * What one message costs the database through the whole pipeline (accept -> sent -> delivered -> read,
 * each step's webhook delivered): rows inserted, updated and deleted per table, and transactions
 * committed, per message. Counts, not times: the rows hardly depend on the machine's load, so a design
 * that writes less shows here (issue 36's "rows written per message, before and after"); transactions
 * do (the service gathers more work into one when more waits), so compare them at the same load.
 *
 *   node bench/rows-per-message.ts [--messages 2000] [--concurrency 32] [--write]
 *
 * PostgreSQL only (TEST_DATABASE_URL or the local server): the counts are the server's statistics
 * (pg_stat_user_tables, pg_stat_database) of a fresh database, read after the service stopped (its
 * connections' pending statistics are flushed when they end). The scenario is bench/pipeline.ts's burst:
 * one default process with the sandbox provider, a paired gateway channel, one webhook endpoint
 * (message.sent and message.status_update); the warm-up's messages are counted out by taking the
 * difference from just before the burst. The sandbox's own tables (the simulated provider) are listed
 * apart: a real provider's writes are not Parley's.
 *
 * Statements (each a round trip: the service sends no pipelined queries) are counted too when the server
 * has pg_stat_statements preloaded (a private server: `shared_preload_libraries = 'pg_stat_statements'`,
 * `pg_stat_statements.track = all`; the shared test server has not, and the line is left out): its
 * counters are reset just before the burst and read after, for this database only.
 */
import pg from 'pg';
import { machine, writeSection } from './bench-report.ts';
import { hasFlag, numberOption } from './lib/common.ts';
import { burst, deployWithTraffic, sleep, untilRead } from './lib/message-traffic.ts';

const count = numberOption('messages', 2000);
const concurrency = numberOption('concurrency', 32);
const WARM_UP = 20;

type TableCounts = { table: string; ins: number; upd: number; del: number; hot: number };
type Snapshot = { tables: Map<string, TableCounts>; commits: number };
type StatementCount = { query: string; calls: number; toplevel: boolean; walBytes: number };

/** pg_stat_statements of this database, or undefined when the server does not load it. */
async function statements(url: string, reset: boolean): Promise<StatementCount[] | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('create extension if not exists pg_stat_statements');
    if (reset) {
      await client.query('select pg_stat_statements_reset()');
      return [];
    }
    const { rows } = await client.query<{ query: string; calls: string; toplevel: boolean; wal_bytes: string }>(
      `select query, calls, toplevel, wal_bytes from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database()) order by calls desc`,
    );
    return rows.map((r) => ({ query: r.query, calls: Number(r.calls), toplevel: r.toplevel, walBytes: Number(r.wal_bytes) }));
  } catch {
    return undefined;
  } finally {
    await client.end();
  }
}

async function snapshot(url: string): Promise<Snapshot> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Other backends' statistics reach shared memory when they flush (at the latest when they end).
    const { rows } = await client.query<{ relname: string; ins: string; upd: string; del: string; hot: string }>(
      'select relname, n_tup_ins as ins, n_tup_upd as upd, n_tup_del as del, n_tup_hot_upd as hot from pg_stat_user_tables',
    );
    const [db] = (
      await client.query<{ commits: string }>('select xact_commit as commits from pg_stat_database where datname = current_database()')
    ).rows;
    return {
      tables: new Map(
        rows.map((r) => [r.relname, { table: r.relname, ins: Number(r.ins), upd: Number(r.upd), del: Number(r.del), hot: Number(r.hot) }]),
      ),
      commits: Number(db!.commits),
    };
  } finally {
    await client.end();
  }
}

/**
 * Statements per message from pg_stat_statements (every connection): those the clients sent (top
 * level, each a round trip: nothing is pipelined) and those run inside them (foreign-key checks,
 * functions), with the most frequent of each.
 */
function statementLines(list: StatementCount[]): string[] {
  const sumOf = (xs: StatementCount[]) => xs.reduce((s, r) => s + r.calls, 0);
  const top = list.filter((r) => r.toplevel);
  const nested = list.filter((r) => !r.toplevel);
  const txControl = sumOf(top.filter((r) => /^(begin|commit|rollback)\b/i.test(r.query.trim())));
  const oneLine = (q: string) => q.replace(/\s+/g, ' ').slice(0, 90).replace(/\|/g, '\\|');
  const rowsOf = (xs: StatementCount[]) => xs.slice(0, 8).map((r) => `| \`${oneLine(r.query)}\` | ${(r.calls / count).toFixed(2)} |`);
  return [
    '',
    `Statements per message (pg_stat_statements, every connection, the sandbox's included): sent by the clients (each a round trip) **${(sumOf(top) / count).toFixed(2)}**, of them BEGIN/COMMIT/ROLLBACK ${(txControl / count).toFixed(2)}; run inside them (foreign-key checks, functions) ${(sumOf(nested) / count).toFixed(2)}. The most frequent of each:`,
    '',
    `WAL written per message by the statements the clients sent (pg_stat_statements' wal_bytes, this database only): **${Math.round(top.reduce((s, r) => s + r.walBytes, 0) / count).toLocaleString('en')} bytes**.`,
    '',
    '| Statement | Per message |',
    '| --- | --- |',
    ...rowsOf(top),
    '| *inside statements:* | |',
    ...rowsOf(nested),
  ];
}

const deployed = await deployWithTraffic('postgres', 1000, WARM_UP);
try {
  const url = deployed.database!.url;
  // The warm-up's work settled (its jobs done), then the counters before the burst.
  await sleep(2000);
  const before = await snapshot(url);
  const counting = (await statements(url, true)) !== undefined;
  const accepted = await burst(deployed.service, deployed.channelId, count, WARM_UP, concurrency);
  const missing = await untilRead(
    deployed.receiver,
    accepted.map((a) => a.id),
  );
  if (missing > 0) throw new Error(`${missing} messages were not read`);
  // Let the last jobs (webhook deliveries of the last statuses) finish, then stop: the statistics flush.
  await sleep(3000);
  await deployed.stopService();
  await sleep(1500);
  const after = await snapshot(url);
  const statementCounts = counting ? await statements(url, false) : undefined;

  const rows: TableCounts[] = [];
  for (const [table, end] of after.tables) {
    const start = before.tables.get(table) ?? { table, ins: 0, upd: 0, del: 0, hot: 0 };
    const d = { table, ins: end.ins - start.ins, upd: end.upd - start.upd, del: end.del - start.del, hot: end.hot - start.hot };
    if (d.ins + d.upd + d.del > 0) rows.push(d);
  }
  rows.sort((a, b) => b.ins + b.upd + b.del - (a.ins + a.upd + a.del) || a.table.localeCompare(b.table));
  const per = (n: number) => (n / count).toFixed(2);
  const isSandbox = (t: string) => t.startsWith('sandbox_');
  const sum = (list: TableCounts[]) =>
    list.reduce((s, r) => ({ ins: s.ins + r.ins, upd: s.upd + r.upd, del: s.del + r.del }), { ins: 0, upd: 0, del: 0 });
  const parley = sum(rows.filter((r) => !isSandbox(r.table)));
  const sandbox = sum(rows.filter((r) => isSandbox(r.table)));
  const line = (r: { ins: number; upd: number; del: number }) =>
    `${per(r.ins)} | ${per(r.upd)} | ${per(r.del)} | **${per(r.ins + r.upd + r.del)}**`;
  const lines = [
    '## Rows written per message (bench/rows-per-message.ts), PostgreSQL',
    '',
    `Command: \`node bench/rows-per-message.ts --messages ${count} --concurrency ${concurrency}\` (${new Date().toISOString().slice(0, 10)})`,
    '',
    machine(),
    '',
    `${count.toLocaleString('en')} messages through the pipeline's burst (accept -> sent -> delivered -> read, one webhook endpoint for message.sent and message.status_update), counted from pg_stat_user_tables and pg_stat_database of a fresh database after the service stopped. Rows hardly depend on the machine's load; transactions do (batches grow when work waits). Per message:`,
    '',
    '| Table | Inserted | Updated | Deleted | Rows written |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.table}${isSandbox(r.table) ? ' (sandbox)' : ''} | ${line(r)} |`),
    `| **Parley's tables** | ${line(parley)} |`,
    `| The sandbox's tables (the simulated provider) | ${line(sandbox)} |`,
    '',
    `Transactions committed per message (every connection, the sandbox's included): **${per(after.commits - before.commits)}**.`,
    ...(statementCounts ? statementLines(statementCounts) : []),
  ];
  console.log(lines.join('\n'));
  if (hasFlag('write')) writeSection('rows-per-message', lines.join('\n'));
} finally {
  await deployed.close();
}
