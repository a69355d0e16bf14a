/**
 * Turns the SQL one accepted message sent to the database (captured in the server process) into a
 * replayable script: the same statement texts, with the values that must differ per message
 * (fresh ids, the recipient, the time) and the values read back from earlier statements (the
 * conversation row) turned into bindings. Rendered as a pgbench script (PostgreSQL) or run in
 * process (PGlite, which has no pgbench).
 */

export type TraceEntry = {
  text: string;
  values: unknown[];
  /** Result rows as objects (column name -> value), when the statement returned rows. */
  rows: Array<Record<string, unknown>> | undefined;
};

export type Binding =
  | { k: 'lit'; v: string | number | boolean | null }
  | { k: 'now' }
  /** A fresh, time-ordered UUID, the same everywhere within one replayed message. */
  | { k: 'fresh'; i: number }
  /** The recipient's digits, drawn from the phone pool per replayed message. */
  | { k: 'phone' }
  /** A column of the single row an earlier statement returned (v: its value in the trace). */
  | { k: 'ref'; s: number; col: string; v: string }
  /** A string with ids inside (the job's JSON payload). */
  | { k: 'subst'; text: string; subs: Array<{ find: string; by: Binding }> };

export type Statement = { text: string; params: Binding[] /** later statements read its row */; ref: boolean };
export type Script = { statements: Statement[]; fresh: number };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UUID_IN = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}(:?\d{2})?)?$/;

/** A UUIDv7 made at or after `sinceMs` (so: made while the traced request ran). */
function isFreshV7(value: string, sinceMs: number): boolean {
  if (!UUID.test(value) || value[14] !== '7') return false;
  const ms = parseInt(value.slice(0, 8) + value.slice(9, 13), 16);
  return ms >= sinceMs - 1000;
}

/**
 * The pool of recipients the benchmark sends to: valid German mobile numbers ending in 5, so none
 * ends in the sandbox's scripted 0001 (undeliverable), 0002 (refused) or 0429 (throttled).
 */
export function poolPhone(i: number): string {
  return '49151' + String(2_000_000 + i) + '5';
}

/**
 * Builds the script from a trace. `phone` is the traced request's recipient (digits); `sinceMs`
 * the time the traced request started.
 */
export function buildScript(trace: TraceEntry[], phone: string, sinceMs: number): Script {
  const fresh = new Map<string, number>();
  const refs = new Map<string, { s: number; col: string }>();
  const statements: Statement[] = [];
  const bind = (value: unknown): Binding => {
    if (value === null || value === undefined) return { k: 'lit', v: null };
    if (value instanceof Date) return { k: 'now' };
    if (typeof value === 'number' || typeof value === 'boolean') return { k: 'lit', v: value };
    if (typeof value === 'bigint') return { k: 'lit', v: Number(value) };
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (ISO_TIME.test(text)) return { k: 'now' };
    if (text === phone) return { k: 'phone' };
    if (UUID.test(text)) {
      if (isFreshV7(text, sinceMs)) {
        if (!fresh.has(text)) fresh.set(text, fresh.size);
        return { k: 'fresh', i: fresh.get(text)! };
      }
      const ref = refs.get(text.toLowerCase());
      if (ref) {
        statements[ref.s]!.ref = true;
        return { k: 'ref', ...ref, v: text };
      }
      return { k: 'lit', v: text };
    }
    const inner = [...new Set(text.match(UUID_IN) ?? [])].map((id) => ({ id, by: bind(id) })).filter((x) => x.by.k !== 'lit');
    const subs = inner.map((x) => ({ find: x.id, by: x.by }));
    // The recipient inside a JSON parameter (digits, and E.164 around them) is drawn per message too.
    if (text.includes(phone)) subs.push({ find: phone, by: { k: 'phone' } });
    if (subs.length > 0) return { k: 'subst', text, subs };
    return { k: 'lit', v: text };
  };
  trace.forEach((entry, s) => {
    statements.push({ text: entry.text.replace(/\s+/g, ' ').trim(), params: entry.values.map(bind), ref: false });
    // A single row read back (the conversation, the inserted message): later uses of its id follow it.
    if (entry.rows?.length === 1) {
      const id = entry.rows[0]!.id;
      if (typeof id === 'string' && UUID.test(id) && !refs.has(id.toLowerCase())) refs.set(id.toLowerCase(), { s, col: 'id' });
    }
  });
  return { statements, fresh: fresh.size };
}

const isBegin = (t: string) => /^(begin|start transaction)\b/i.test(t);
const isCommit = (t: string) => /^(commit|end)\b/i.test(t);

/**
 * The least write that makes an accepted message durable: its row alone (the row is its own
 * dispatch job), in one statement, for the traced message's organization, channel and
 * conversation. The accepting statement takes its messages as JSON ($1); its answer names the
 * conversation.
 */
export function messageInsertOf(trace: TraceEntry[], channelId: string): Script {
  const accept = trace.find((e) => e.rows?.[0] && 'conversation_id' in e.rows[0]);
  const item =
    accept && typeof accept.values[0] === 'string' ? (JSON.parse(accept.values[0]) as Array<Record<string, unknown>>)[0] : undefined;
  if (!accept || !item || item.channel_id !== channelId) throw new Error('the accepting statement was not found in the trace');
  const conversationId = String(accept.rows![0]!.conversation_id);
  return {
    statements: [
      {
        text: `insert into messages (id, organization_id, channel_id, conversation_id, direction, to_phone, type, content, status, dispatch_at, created_at, updated_at)
               values ($1, $2, $3, $4, 'outbound', $5, 'text', '{"body": "benchmark"}'::jsonb, 'queued', $6, $6, $6)`,
        params: [
          { k: 'fresh', i: 0 },
          { k: 'lit', v: String(item.organization_id) },
          { k: 'lit', v: channelId },
          { k: 'lit', v: conversationId },
          { k: 'phone' },
          { k: 'now' },
        ],
        ref: false,
      },
    ],
    fresh: 1,
  };
}

// ---------------------------------------------------------------------------------------------
// pgbench

/** An E'' literal pgbench will not touch: no raw colon (pgbench reads :name as a variable). */
function pgLiteral(text: string): string {
  return "E'" + text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/:/g, '\\x3a').replace(/\n/g, '\\n').replace(/\r/g, '\\r') + "'";
}

function renderPg(b: Binding): string {
  switch (b.k) {
    case 'lit':
      if (b.v === null) return 'NULL';
      if (typeof b.v === 'number' || typeof b.v === 'boolean') return String(b.v);
      return pgLiteral(b.v);
    case 'now':
      return 'now()';
    case 'fresh':
      // UUIDv7-like: 48 bits of milliseconds (the transaction's start, so the same id in every
      // statement of one replayed message), then 80 random bits drawn by pgbench.
      return `(lpad(to_hex(floor(extract(epoch from now()) * 1000)::bigint), 12, '0') || '7' || lpad(to_hex((:f${b.i}a)::bigint), 9, '0') || lpad(to_hex((:f${b.i}b)::bigint), 10, '0'))::uuid`;
    case 'phone':
      return `('49151' || (2000000 + (:p)::int)::text || '5')`;
    case 'ref':
      return `(:s${b.s}_${b.col})`;
    case 'subst':
      return b.subs.reduce((acc, sub) => `replace(${acc}, ${pgLiteral(sub.find)}, (${renderPg(sub.by)})::text)`, pgLiteral(b.text));
  }
}

/** One line per statement for pgbench: comments dropped (the texts hold no `--` in strings), whitespace folded. */
function oneLine(text: string): string {
  return text
    .replace(/--[^\n]*(\n|$)/g, '\n')
    .replace(/\s+/g, ' ')
    .trim();
}

function renderStatementPg(st: Statement, s: number): string {
  const text = oneLine(st.text).replace(/\$(\d+)/g, (_, n: string) => renderPg(st.params[Number(n) - 1]!));
  return st.ref ? `${text} \\gset s${s}_` : `${text};`;
}

function header(script: Script, pool: number): string[] {
  const lines = [`\\set p random(0, ${pool - 1})`];
  for (let i = 0; i < script.fresh; i++) lines.push(`\\set f${i}a random(0, 68719476735)`, `\\set f${i}b random(0, 1099511627775)`);
  return lines;
}

/** The script as a pgbench file: one line per statement, each a round trip. */
export function toPgbench(script: Script, pool: number): string {
  return [...header(script, pool), ...script.statements.map(renderStatementPg)].join('\n') + '\n';
}

// ---------------------------------------------------------------------------------------------
// In process (PGlite)

export type Runner = {
  /** Runs fn in one transaction; statements inside go through q. */
  transaction<T>(fn: (q: (text: string, values: unknown[]) => Promise<Array<Record<string, unknown>>>) => Promise<T>): Promise<T>;
  query(text: string, values: unknown[]): Promise<Array<Record<string, unknown>>>;
};

export type NewId = () => string;

function valueOf(
  b: Binding,
  ctx: { ids: string[]; phone: string; now: string; rows: Array<Record<string, unknown> | undefined> },
): unknown {
  switch (b.k) {
    case 'lit':
      return b.v;
    case 'now':
      return ctx.now;
    case 'fresh':
      return ctx.ids[b.i];
    case 'phone':
      return ctx.phone;
    case 'ref':
      return ctx.rows[b.s]?.[b.col];
    case 'subst':
      return b.subs.reduce((acc, sub) => acc.split(sub.find).join(String(valueOf(sub.by, ctx))), b.text);
  }
}

/** Runs the script once (one replayed message), BEGIN..COMMIT as one transaction of the runner. */
export async function runOnce(script: Script, runner: Runner, newId: NewId, pool: number): Promise<void> {
  const ctx = {
    ids: Array.from({ length: script.fresh }, newId),
    phone: poolPhone(Math.floor(Math.random() * pool)),
    now: new Date().toISOString(),
    rows: [] as Array<Record<string, unknown> | undefined>,
  };
  const sts = script.statements;
  for (let s = 0; s < sts.length; s++) {
    const st = sts[s]!;
    if (isBegin(st.text)) {
      const end = sts.findIndex((x, j) => j > s && isCommit(x.text));
      if (end < 0) throw new Error('begin without commit');
      await runner.transaction(async (q) => {
        for (let j = s + 1; j < end; j++) {
          const inner = sts[j]!;
          const rows = await q(
            inner.text,
            inner.params.map((p) => valueOf(p, ctx)),
          );
          ctx.rows[j] = rows[0];
        }
      });
      s = end;
      continue;
    }
    const rows = await runner.query(
      st.text,
      st.params.map((p) => valueOf(p, ctx)),
    );
    ctx.rows[s] = rows[0];
  }
}
