/**
 * bench/run-all.ts's reading of BENCHMARKS.md: sections found by their markers, the numbers in their
 * tables keyed by row and column, two runs compared (flagged past 15%), and the file put back
 * together without losing or repeating what it does not own; and the soak's growth measures.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  assemble,
  compareRuns,
  differenceTable,
  emphasisIn,
  kindOf,
  notesOf,
  numbersIn,
  relativeDifference,
  runDateOf,
  sectionsOf,
  valuesOf,
  agreementParagraph,
  withAgreement,
} from '../../bench/lib/report-file.ts';
import { growthOf, slopeOf } from '../../bench/lib/series.ts';

const section = (name: string, body: string) => `<!-- bench:${name} -->\n${body}\n<!-- /bench:${name} -->`;

const pipeline = (read: string, p99: string) =>
  section(
    'pipeline-postgres',
    `## Pipeline

| Code | Accepted/s | Read/s (end to end) | Webhook deliveries/s (× baseline POSTs/s) | Steady accept → read p50 / p99 | Rounds |
| --- | --- | --- | --- | --- | --- |
| this run | 1,357 | **${read}** | 347 (0.09× of 3,747) | 7,401 / **${p99}** ms | 3554, 3510, 2946 |`,
  );

test('sections are found by matching markers, in order; a marker without its end is not a section', () => {
  const text = `# Benchmarks\n\n${section('a', 'one')}\n\nhand note\n\n${section('b-2.x', 'two')}\n<!-- bench:c -->\nunclosed`;
  assert.deepEqual(
    sectionsOf(text).map((s) => s.name),
    ['a', 'b-2.x'],
  );
  assert.equal(sectionsOf(text)[0]!.block, section('a', 'one'));
});

test('numbers in a cell: thousands separators, decimals and signs; parentheses and emphasis ignored', () => {
  assert.deepEqual(numbersIn('**1,139/s**'), [1139]);
  assert.deepEqual(numbersIn('347 (0.09× of 3,747)'), [347]);
  assert.deepEqual(numbersIn('7,401 / **10,880** ms'), [7401, 10880]);
  assert.deepEqual(numbersIn('-3.5%'), [-3.5]);
  assert.deepEqual(numbersIn('met'), []);
});

test('emphasis: which numbers of a cell are in bold, parentheses left out as numbersIn does', () => {
  assert.deepEqual(emphasisIn('**1,139/s**'), [true]);
  assert.deepEqual(emphasisIn('7,401 / **10,880** ms'), [false, true]);
  assert.deepEqual(emphasisIn('**2** (of **3**) / 4'), [true, false]);
  assert.deepEqual(emphasisIn('347 (0.09× of 3,747)'), [false]);
});

test('table values are keyed by row label and column; "a / b" headers split; lists and prose cells left out', () => {
  const values = valuesOf(pipeline('87', '10,880'));
  assert.deepEqual(Object.fromEntries(values), {
    'this run | Accepted/s': 1357,
    'this run | Read/s': 87,
    'this run | Webhook deliveries/s': 347,
    'this run | Steady accept → read p50 / p99 [Steady accept → read p50]': 7401,
    'this run | Steady accept → read p50 / p99 [p99]': 10880,
  });
});

test('columns of per-run values and of targets are not medians and are left out', () => {
  const text = `| Measure | Median | Rounds | p95 per run | Runs (s) | Target |\n| --- | --- | --- | --- | --- | --- |\n| rate | 504 | 504 | 3.1 | 2.5 | 1,000 |`;
  assert.deepEqual(Object.fromEntries(valuesOf(text)), { 'rate | Median': 504 });
});

test('a key seen twice in a section is numbered, so both are compared', () => {
  const text = `| a | b |\n| --- | --- |\n| x | 1 |\n\n| a | b |\n|---|---|\n| x | 2 |`;
  assert.deepEqual(Object.fromEntries(valuesOf(text)), { 'x | b': 1, 'x | b #2': 2 });
});

test('relative difference: against the previous value, 0 for equal values, Infinity from 0', () => {
  assert.equal(relativeDifference(100, 115), 0.15);
  assert.equal(relativeDifference(200, 100), -0.5);
  assert.equal(relativeDifference(-10, -5), 0.5);
  assert.equal(relativeDifference(0, 0), 0);
  assert.equal(relativeDifference(0, 3), Infinity);
});

test('two runs compared: only values in a section of both; more than 15% flagged, 15% not', () => {
  const previous = sectionsOf(`${pipeline('100', '10,000')}\n${section('gone', '| a | b |\n| --- | --- |\n| x | 1 |')}`);
  const current = sectionsOf(`${pipeline('115', '12,000')}\n${section('new', '| a | b |\n| --- | --- |\n| x | 1 |')}`);
  const diffs = compareRuns(previous, current);
  assert.deepEqual(new Set(diffs.map((d) => d.section)), new Set(['pipeline-postgres']));
  const byKey = Object.fromEntries(diffs.map((d) => [d.key, d]));
  assert.equal(byKey['this run | Read/s']!.flagged, false);
  assert.equal(byKey['this run | Steady accept → read p50 / p99 [p99]']!.flagged, true);
  assert.equal(byKey['this run | Steady accept → read p50 / p99 [p99]']!.relative, 0.2);
  assert.equal(byKey['this run | Accepted/s']!.relative, 0);
  // Bold values are the headlines: Read/s and the p99, not the p50 beside it.
  assert.deepEqual(
    diffs.filter((d) => d.headline).map((d) => d.key),
    ['this run | Read/s', 'this run | Steady accept → read p50 / p99 [p99]'],
  );
  const table = differenceTable(diffs);
  assert.equal(table.split('\n').length, 2 + diffs.length);
  assert.equal(table.split('\n').filter((l) => l.includes('**> 15%**')).length, 1);
  const paragraph = agreementParagraph(diffs, 'the previous file');
  assert.match(paragraph, /All values: 5 in 1 sections appear in both; 4 of 5 \(80%\) agree within 15%/);
  assert.match(paragraph, /Headline values \([^)]*\): 2 in both, 1 of 2 \(50%\) agree within 15%\./);
  // The headlines split by kind: the rate agrees, the tail (p99) is named with its difference.
  assert.match(paragraph, /Rates, ratios, sizes and medians among them: 1 of 1 \(100%\) agree within 15%\./);
  assert.match(
    paragraph,
    /Latency percentiles and maxima among them: 0 of 1 \(0%\) agree within 15%; the others: pipeline-postgres "this run \| Steady accept → read p50 \/ p99 \[p99\]" 10,000 → 12,000 \(\+20\.0%\)\./,
  );
  assert.match(agreementParagraph([], 'the previous file'), /No value/);
});

test('a value is a latency tail when its column (or the part of it) is a percentile or an extreme; the row label does not count', () => {
  assert.equal(kindOf('this run | Steady accept → read p50 / p99 [p99]'), 'tail');
  assert.equal(kindOf('this run | Steady accept → read p50 / p99 [p50]'), 'tail');
  assert.equal(kindOf('201 → delivered | p50 / p90 / p99 / max [max]'), 'tail');
  assert.equal(kindOf('this run | provider.inbound wait p50 / p99 / max ms [max ms]'), 'tail');
  assert.equal(kindOf('first page | p95'), 'tail');
  assert.equal(kindOf('first page | p95 #2'), 'tail');
  assert.equal(kindOf('this run | Read/s'), 'rate');
  assert.equal(kindOf('GET /v1/channels | Service / baseline'), 'rate');
  assert.equal(kindOf('at 300/s offered for 60 s, max | Median'), 'rate');
  assert.equal(kindOf('RSS max | Value'), 'rate');
  assert.equal(kindOf('this run | Accepted/s [maximum]'), 'rate');
});

test('the agreement block: replaced where it is, else put after the header, else after the title', () => {
  const header = '<!-- run-all:header -->\nheader\n<!-- /run-all:header -->';
  const old = '<!-- run-all:agreement -->\nold paragraph\n<!-- /run-all:agreement -->';
  const replaced = withAgreement(`# Benchmarks\n\n${header}\n\n${old}\n\n${section('a', 'x $& y')}\n`, 'new $1 paragraph');
  assert.doesNotMatch(replaced, /old paragraph/);
  assert.equal(replaced.match(/run-all:agreement -->/g)?.length, 2);
  assert.match(
    replaced,
    /header\n<!-- \/run-all:header -->\n\n<!-- run-all:agreement -->\nnew \$1 paragraph\n<!-- \/run-all:agreement -->/,
  );
  assert.deepEqual(
    sectionsOf(replaced).map((s) => s.block),
    [section('a', 'x $& y')],
  );
  const added = withAgreement(`# Benchmarks\n\n${header}\n\n${section('a', 'x')}\n`, 'added');
  assert.match(added, /<!-- \/run-all:header -->\n\n<!-- run-all:agreement -->\nadded\n<!-- \/run-all:agreement -->\n\n<!-- bench:a -->/);
  assert.equal(
    runDateOf(
      `# Benchmarks\n\n<!-- run-all:header -->\nWritten by \`npm run bench\` (bench/run-all.ts) on 2026-11-27 03:39 UTC, in 56 minutes\n<!-- /run-all:header -->`,
    ),
    '2026-11-27 03:39',
  );
  assert.equal(runDateOf('# Benchmarks\n'), undefined);
  const bare = withAgreement(`# Benchmarks\n\n${section('a', 'x')}\n`, 'added');
  assert.match(bare, /^# Benchmarks\n\n<!-- run-all:agreement -->\nadded\n<!-- \/run-all:agreement -->\n\n<!-- bench:a -->/);
});

test('the file put together: new sections replace old ones, the rest is kept once, a second assembly repeats nothing', () => {
  const previousText = `# Benchmarks\n\nEach section is written by the benchmark it names (\`node bench/<name>.ts\`); rerun it to refresh the numbers.\n\n${section('a', 'old a')}\n\n## A regression check\n\nwritten by hand\n\n${section('b', 'old b')}\n`;
  const first = assemble({ header: 'header one', current: [{ name: 'a', block: section('a', 'new a') }], previousText });
  assert.deepEqual(
    sectionsOf(first).map((s) => s.block),
    [section('a', 'new a'), section('b', 'old b')],
  );
  assert.match(first, /header one/);
  assert.equal(first.match(/written by hand/g)?.length, 1);
  assert.equal(first.match(/Each section is written/g), null);

  const second = assemble({
    header: 'header two',
    agreement: 'agreement',
    current: [{ name: 'b', block: section('b', 'new b') }],
    previousText: first,
  });
  assert.deepEqual(
    sectionsOf(second).map((s) => s.block),
    [section('b', 'new b'), section('a', 'new a')],
  );
  assert.doesNotMatch(second, /header one/);
  assert.match(second, /header two[\s\S]*agreement/);
  assert.equal(second.match(/written by hand/g)?.length, 1);
  assert.equal(second.match(/## Sections kept from earlier runs/g)?.length, 1);
  assert.equal(second.match(/## Notes kept as written/g)?.length, 1);
  assert.equal(notesOf(second), '## A regression check\n\nwritten by hand');
});

test('soak growth: last quarter against first, slope per minute, max', () => {
  const flat = Array.from({ length: 20 }, (_, i) => ({ minutes: i / 6, value: 200 + (i % 2) }));
  const g = growthOf(flat);
  assert.ok(Math.abs(g.growth) < 0.01);
  assert.ok(Math.abs(g.slopePerMinute) < 0.5);
  assert.equal(g.max, 201);
  const rising = Array.from({ length: 20 }, (_, i) => ({ minutes: i, value: 100 + 2 * i }));
  const r = growthOf(rising);
  assert.equal(r.firstQuartile, 104);
  assert.equal(r.lastQuartile, 134);
  assert.equal(slopeOf(rising), 2);
  assert.equal(r.max, 138);
  assert.ok(Number.isNaN(growthOf([]).growth));
});
