/**
 * BENCHMARKS.md as data, for bench/run-all.ts: the sections the benchmarks write (between
 * `<!-- bench:NAME -->` markers), the numbers in their tables, the comparison of two runs, and the
 * file put back together. Pure functions (tested in test/bench/report-file.unit.test.ts).
 *
 * Blocks run-all writes itself are marked `<!-- run-all:NAME -->`, so a later run can tell its own
 * header from notes written by hand, which it keeps as they are.
 */

export type Section = { name: string; block: string };

const SECTION = /<!-- bench:([\w.-]+) -->[\s\S]*?<!-- \/bench:\1 -->/g;
const OWN = /<!-- run-all:([\w.-]+) -->[\s\S]*?<!-- \/run-all:\1 -->/g;

/** Every benchmark section of the file, in order (the block includes its markers). */
export function sectionsOf(text: string): Section[] {
  return [...text.matchAll(SECTION)].map((m) => ({ name: m[1]!, block: m[0] }));
}

/** What is neither a benchmark section, nor a block run-all wrote, nor the title: notes written by hand. */
export function notesOf(text: string): string {
  return text
    .replace(SECTION, '')
    .replace(OWN, '')
    .replace(/^# Benchmarks\s*$/m, '')
    .replace(/^Each section is written by the benchmark it names.*$/m, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** A block run-all owns (dropped and rewritten by the next run). */
export const ownBlock = (name: string, body: string) => `<!-- run-all:${name} -->\n${body.trim()}\n<!-- /run-all:${name} -->`;

// ---------------------------------------------------------------------------------------------
// The numbers in a section's tables

const NUMBER = /-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?/g;

/** The numbers a table cell shows, ignoring what is in parentheses (notes such as "(× baseline)") and markdown emphasis. */
export function numbersIn(cell: string): number[] {
  const plain = cell.replace(/\([^)]*\)/g, '').replace(/[*`_]/g, '');
  return [...plain.matchAll(NUMBER)].map((m) => Number(m[0].replace(/,/g, '')));
}

const NOT_MEDIANS = /^(rounds?|runs?)\b|per run|^target/i;

const cellsOf = (line: string) =>
  line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => c.trim());

const clean = (s: string) =>
  s
    .replace(/\([^)]*\)/g, '')
    .replace(/[*`_]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/** For each number numbersIn finds in a cell, whether it is in bold (a headline: the result a benchmark's target or baseline is about). */
export function emphasisIn(cell: string): boolean[] {
  return cell
    .replace(/\([^)]*\)/g, '')
    .split('**')
    .flatMap((part, i) => [...part.replace(/[*`_]/g, '').matchAll(NUMBER)].map(() => i % 2 === 1));
}

/** A value of a section's tables, and whether the table shows it in bold. */
export type TableValue = { value: number; headline: boolean };

/**
 * The values of a section's tables by key `row label | column`: the first cell of a row is its
 * label. A cell with one number gives one value; a cell with as many numbers as its header has
 * parts separated by "/" (e.g. "p50 / p99" over "7 / 10 ms") gives one per part; other cells (lists
 * of per-run values, prose) are left out, and so are columns of per-run values or of targets (not
 * medians: "Rounds", "Runs (s)", "p95 per run", "Target"). A key seen twice gets " #2", " #3".
 */
export function tableValuesOf(sectionText: string): Map<string, TableValue> {
  const values = new Map<string, TableValue>();
  const put = (key: string, value: TableValue) => {
    let k = key;
    for (let n = 2; values.has(k); n++) k = `${key} #${n}`;
    values.set(k, value);
  };
  const lines = sectionText.split('\n');
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i]!.trim().startsWith('|') || !/^\s*\|?\s*:?-{3,}/.test(lines[i + 1]!)) continue;
    const headers = cellsOf(lines[i]!);
    for (let j = i + 2; j < lines.length && lines[j]!.trim().startsWith('|'); j++) {
      const cells = cellsOf(lines[j]!);
      const label = clean(cells[0] ?? '');
      for (let c = 1; c < cells.length; c++) {
        const header = clean(headers[c] ?? `column ${c}`);
        if (NOT_MEDIANS.test(header)) continue;
        const numbers = numbersIn(cells[c]!);
        const bold = emphasisIn(cells[c]!);
        const parts = header.split('/').map((p) => p.trim());
        if (numbers.length === 1) put(`${label} | ${header}`, { value: numbers[0]!, headline: bold[0]! });
        else if (numbers.length > 1 && numbers.length === parts.length)
          numbers.forEach((v, n) => put(`${label} | ${header} [${parts[n]}]`, { value: v, headline: bold[n]! }));
      }
    }
  }
  return values;
}

/** tableValuesOf's values alone. */
export function valuesOf(sectionText: string): Map<string, number> {
  return new Map([...tableValuesOf(sectionText)].map(([key, v]) => [key, v.value]));
}

// ---------------------------------------------------------------------------------------------
// Two runs compared

/**
 * What a value measures, read from its column: `tail` for a percentile or an extreme of a latency
 * distribution (p50, p95, p99, max, min: a few slow samples move them, and they vary most from run
 * to run), `rate` for the rest (rates, ratios against a baseline, sizes, CPU per unit, medians of runs).
 */
export type ValueKind = 'rate' | 'tail';

const TAIL = /\b(p\d{2,3}(?:\.\d+)?|max|min)\b/i;

/** The kind of a value keyed `row | column` or `row | column [part]` (the part decides when there is one; the row label never does). */
export function kindOf(key: string): ValueKind {
  const column = key
    .split(' | ')
    .slice(1)
    .join(' | ')
    .replace(/\s+#\d+$/, '');
  const part = /\[([^\]]+)\]$/.exec(column)?.[1] ?? column;
  return TAIL.test(part) ? 'tail' : 'rate';
}

/** `headline`: the value is in bold in this run's table (a benchmark's result against its target or baseline). */
export type Difference = {
  section: string;
  key: string;
  before: number;
  after: number;
  relative: number;
  flagged: boolean;
  headline: boolean;
  kind: ValueKind;
};

/** Relative difference (after - before) / |before|; 0 when both are 0, Infinity when only before is. */
export function relativeDifference(before: number, after: number): number {
  if (before === after) return 0;
  if (before === 0) return Infinity;
  return (after - before) / Math.abs(before);
}

/** Every value present in a section of both runs, with its relative difference; flagged past `limit` (0.15: 15%). */
export function compareRuns(previous: Section[], current: Section[], limit = 0.15): Difference[] {
  const old = new Map(previous.map((s) => [s.name, valuesOf(s.block)]));
  const out: Difference[] = [];
  for (const section of current) {
    const before = old.get(section.name);
    if (!before) continue;
    for (const [key, { value: after, headline }] of tableValuesOf(section.block)) {
      const was = before.get(key);
      if (was === undefined) continue;
      const relative = relativeDifference(was, after);
      out.push({
        section: section.name,
        key,
        before: was,
        after,
        relative,
        flagged: Math.abs(relative) > limit,
        headline,
        kind: kindOf(key),
      });
    }
  }
  return out;
}

const pct = (r: number) => (Number.isFinite(r) ? `${r >= 0 ? '+' : ''}${(r * 100).toFixed(1)}%` : 'n/a');
const num = (v: number) => (Math.abs(v) >= 100 ? Math.round(v).toLocaleString('en-US') : String(Math.round(v * 100) / 100));

/** The comparison as a markdown table (flagged rows marked). */
export function differenceTable(diffs: Difference[]): string {
  return [
    '| Section | Value | Headline | Kind | Previous | This run | Difference | |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...diffs.map(
      (d) =>
        `| ${d.section} | ${d.key} | ${d.headline ? 'yes' : ''} | ${d.kind} | ${num(d.before)} | ${num(d.after)} | ${pct(d.relative)} | ${d.flagged ? '**> 15%**' : ''} |`,
    ),
  ].join('\n');
}

const differenceOf = (d: Difference) => `${d.section} "${d.key}" ${num(d.before)} → ${num(d.after)} (${pct(d.relative)})`;

/**
 * The short paragraph BENCHMARKS.md carries about the comparison: the headline values first (those
 * in bold: each benchmark's results, the ones its targets and baselines are about), rates and ratios
 * apart from latency tails (p99 of a millisecond-scale distribution moves with a few slow samples;
 * both are counted, neither is left out), then every value.
 */
export function agreementParagraph(diffs: Difference[], previousLabel: string, limit = 0.15): string {
  if (diffs.length === 0) return `No value of this run could be compared with ${previousLabel} (no section with the same tables in both).`;
  const share = (part: Difference[], of: Difference[]) =>
    `${part.length} of ${of.length} (${((100 * part.length) / of.length).toFixed(0)}%)`;
  const byDistance = (a: Difference, b: Difference) => Math.abs(b.relative) - Math.abs(a.relative);
  const headlines = diffs.filter((d) => d.headline);
  const headlineLine = (kind: ValueKind, what: string) => {
    const all = headlines.filter((d) => d.kind === kind);
    if (!all.length) return '';
    const off = all.filter((d) => d.flagged).sort(byDistance);
    const others = off.length
      ? `; the others: ${off.slice(0, 12).map(differenceOf).join('; ')}${off.length > 12 ? `; and ${off.length - 12} more` : ''}`
      : '';
    return ` ${what}: ${share(
      all.filter((d) => !d.flagged),
      all,
    )} agree within ${limit * 100}%${others}.`;
  };
  const within = diffs.filter((d) => !d.flagged);
  const sections = new Set(diffs.map((d) => d.section)).size;
  const worst = [...diffs]
    .sort(byDistance)
    .filter((d) => d.flagged)
    .slice(0, 8);
  const absolute = diffs
    .map((d) => Math.abs(d.relative))
    .filter(Number.isFinite)
    .sort((a, b) => a - b);
  const mid = absolute.length ? absolute[Math.floor(absolute.length / 2)]! : NaN;
  return [
    `Compared with ${previousLabel}.`,
    headlines.length
      ? `Headline values (in bold in the tables: the results the targets and baselines are about): ${headlines.length} in both, ${share(
          headlines.filter((d) => !d.flagged),
          headlines,
        )} agree within ${limit * 100}%.${headlineLine('rate', 'Rates, ratios, sizes and medians among them')}${headlineLine('tail', 'Latency percentiles and maxima among them')}`
      : 'No headline value (in bold) appears in both.',
    `All values: ${diffs.length} in ${sections} sections appear in both; ${share(within, diffs)} agree within ${limit * 100}%, the median absolute difference is ${(mid * 100).toFixed(1)}%.`,
    worst.length ? `Largest differences: ${worst.map(differenceOf).join('; ')}.` : 'None differs by more than that.',
  ].join(' ');
}

/** When the run that wrote `text` (a BENCHMARKS.md) started, as its header gives it ("2026-11-27 03:39"), if it has one. */
export function runDateOf(text: string): string | undefined {
  return /Written by `npm run bench`[^\n]*?(\d{4}-\d{2}-\d{2}[ T][\d:]+)/.exec(text)?.[1];
}

/** `text` (a BENCHMARKS.md) with its agreement block replaced by `body`, or added after the header block when it has none. */
export function withAgreement(text: string, body: string): string {
  const block = ownBlock('agreement', body);
  const existing = /<!-- run-all:agreement -->[\s\S]*?<!-- \/run-all:agreement -->/;
  if (existing.test(text)) return text.replace(existing, () => block);
  const header = /<!-- \/run-all:header -->/;
  if (header.test(text)) return text.replace(header, (end) => `${end}\n\n${block}`);
  return text.replace(/^# Benchmarks[ \t]*\n+/, () => `# Benchmarks\n\n${block}\n\n`);
}

// ---------------------------------------------------------------------------------------------
// The file put together

/**
 * The new BENCHMARKS.md: run-all's header, this run's sections, the sections of the previous file
 * this run did not write (kept, under a heading saying so), and the notes written by hand.
 */
export function assemble(parts: { header: string; agreement?: string; current: Section[]; previousText: string }): string {
  const written = new Set(parts.current.map((s) => s.name));
  const kept = sectionsOf(parts.previousText).filter((s) => !written.has(s.name));
  const notes = notesOf(parts.previousText);
  const out = ['# Benchmarks', ownBlock('header', parts.header)];
  if (parts.agreement) out.push(ownBlock('agreement', parts.agreement));
  out.push(...parts.current.map((s) => s.block));
  if (kept.length) {
    out.push(
      ownBlock(
        'kept',
        '## Sections kept from earlier runs\n\nNot rerun by the command above (another --only selection, a backend left out, or the soak not asked for); each says when and how it was measured.',
      ),
    );
    out.push(...kept.map((s) => s.block));
  }
  if (notes) {
    out.push(ownBlock('notes', '## Notes kept as written'));
    out.push(notes);
  }
  return `${out.join('\n\n')}\n`;
}
