/**
 * Two BENCHMARKS.md files compared, as `npm run bench -- --compare` compares a run with the file it
 * replaces (issue 14 item 8: a second run on the same machine agrees within 15%), for runs kept apart:
 *
 *   node bench/compare.ts PREVIOUS.md [CURRENT.md] [--write]
 *
 * Prints every value found in a section of both (relative difference, kind, > 15% flagged; a section
 * whose text is the same in both was kept, not rerun, and is left out) and the
 * agreement paragraph; --write puts the paragraph into CURRENT (default BENCHMARKS.md) as its
 * "Agreement with the previous run" block, replacing the one there.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { hasFlag } from './lib/common.ts';
import { agreementParagraph, compareRuns, differenceTable, runDateOf, sectionsOf, withAgreement } from './lib/report-file.ts';

const files = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (files.length < 1 || files.length > 2) {
  console.error('usage: node bench/compare.ts PREVIOUS.md [CURRENT.md] [--write]');
  process.exit(2);
}
const previousFile = path.resolve(files[0]!);
const currentFile = path.resolve(files[1] ?? 'BENCHMARKS.md');
const previousText = readFileSync(previousFile, 'utf8');
const currentText = readFileSync(currentFile, 'utf8');

const previous = sectionsOf(previousText);
// A section with the same text in both was not rerun (kept from an earlier run): comparing it with itself would count as agreement.
const same = new Set(previous.map((s) => s.block));
const current = sectionsOf(currentText);
const rerun = current.filter((s) => !same.has(s.block));
const diffs = compareRuns(previous, rerun);
const previousDate = runDateOf(previousText);
const label = previousDate ? `the run of ${previousDate} UTC (${path.basename(previousFile)})` : path.basename(previousFile);
const body = `## Agreement with the previous run\n\n${agreementParagraph(diffs, label)}`;
console.log(`${differenceTable(diffs)}\n\n${current.length - rerun.length} sections the same in both (not rerun) left out.\n\n${body}`);
if (hasFlag('write')) {
  writeFileSync(currentFile, withAgreement(currentText, body));
  console.log(`\nwritten into ${currentFile}`);
}
