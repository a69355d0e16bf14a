/**
 * The documentation against the code it describes. docs/configuration.md lists every variable of the
 * configuration schema (src/config.ts) and nothing else, with the schema's defaults; the settings
 * tables of the other docs name only known variables and give their defaults right; and every
 * relative link in README.md and docs/ points at a file that exists (and, for `#anchor`, a heading).
 */
import assert from 'node:assert/strict';
import { existsSync, globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { envSchema } from '../../src/config.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CONFIGURATION_DOC = 'docs/configuration.md';

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const shape = envSchema.shape as Record<string, z.ZodType>;
const schemaNames = Object.keys(shape);

type SettingRow = { file: string; line: number; names: string[]; defaultCell: string };

/** A table row's cells: split on `|` outside code spans, unescaped, trimmed. */
function cells(line: string): string[] {
  const out: string[] = [];
  let cell = '';
  let inCode = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\' && line[i + 1] === '|') {
      cell += '|';
      i++;
    } else if (c === '`') {
      inCode = !inCode;
      cell += c;
    } else if (c === '|' && !inCode) {
      out.push(cell.trim());
      cell = '';
    } else {
      cell += c;
    }
  }
  out.push(cell.trim());
  // A row starts and ends with a pipe: drop the empty cells outside them.
  return out.slice(1, line.trimEnd().endsWith('|') ? -1 : undefined);
}

/** The rows of every `| Variable | Default | … |` (or `| Setting | Default | … |`) table of a markdown file. */
function settingRows(file: string): SettingRow[] {
  const lines = read(file).split('\n');
  const rows: SettingRow[] = [];
  for (let i = 0; i < lines.length; i++) {
    const head = lines[i]!.startsWith('|') ? cells(lines[i]!) : [];
    if (!['Variable', 'Setting'].includes(head[0] ?? '') || head[1] !== 'Default') continue;
    // Skip the header and its separator; the table ends at the first line that is not a row.
    for (i += 2; i < lines.length && lines[i]!.startsWith('|'); i++) {
      const [nameCell = '', defaultCell = ''] = cells(lines[i]!);
      const names = [...nameCell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
      rows.push({ file, line: i + 1, names, defaultCell });
    }
  }
  return rows;
}

/** The default as the schema spells it (`15m` for a duration), when the schema states one. */
function writtenDefault(schema: z.ZodType): unknown {
  const def = (schema as unknown as { _zod: { def: { type: string; defaultValue?: unknown; in?: z.ZodType } } })._zod.def;
  if (def.type === 'default' || def.type === 'prefault') return def.defaultValue;
  if (def.type === 'pipe' && def.in) return writtenDefault(def.in);
  return undefined;
}

/** What the schema makes of an unset variable, or undefined when it leaves it unset (the code decides). */
function schemaDefault(name: string): unknown {
  const parsed = shape[name]!.safeParse(undefined);
  return parsed.success ? parsed.data : undefined;
}

const shownDefault = (name: string) => `\`${String(writtenDefault(shape[name]!) ?? JSON.stringify(schemaDefault(name)))}\``;

/**
 * The plain values of a Default cell, one per variable of the row: the cell is nothing but code spans
 * (`` `256`, `32` `` for two variables, or one span for all of them). Undefined when it is prose,
 * `(unset)`, a value with a condition, or a count of spans that does not fit the row.
 */
function plainDefaults(row: SettingRow): string[] | undefined {
  if (!/^`[^`]+`(\s*,\s*`[^`]+`)*$/.test(row.defaultCell)) return undefined;
  const values = [...row.defaultCell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  if (values.length === row.names.length) return values;
  return values.length === 1 ? row.names.map(() => values[0]!) : undefined;
}

/** Every way a table's defaults disagree with the schema: a variable the schema gives a default must show it plainly, and the same. */
function defaultProblems(rows: SettingRow[]): string[] {
  const problems: string[] = [];
  for (const row of rows) {
    const values = plainDefaults(row);
    row.names.forEach((name, index) => {
      if (!(name in shape)) return;
      const expected = schemaDefault(name);
      if (expected === undefined) return;
      const where = `${row.file}:${row.line} ${name}`;
      const value = values?.[index];
      if (value === undefined) {
        problems.push(`${where}: the doc gives no plain default (${row.defaultCell}); the schema's is ${shownDefault(name)}`);
        return;
      }
      const parsed = shape[name]!.safeParse(value);
      if (!parsed.success)
        problems.push(`${where}: the doc's default \`${value}\` is not a value the schema takes; the schema's is ${shownDefault(name)}`);
      else if (!isDeepStrictEqual(parsed.data, expected))
        problems.push(`${where}: the doc's default is \`${value}\`, the schema's ${shownDefault(name)}`);
    });
  }
  return problems;
}

test('docs/configuration.md documents every variable of the configuration schema, and only those', () => {
  const rows = settingRows(CONFIGURATION_DOC);
  assert.ok(rows.length > 0, `${CONFIGURATION_DOC} has no | Variable | Default | Meaning | table`);
  const documented = rows.flatMap((row) => row.names.map((name) => ({ name, at: `${row.file}:${row.line}` })));
  const seen = new Map<string, string>();
  const problems: string[] = [];
  for (const { name, at } of documented) {
    if (seen.has(name)) problems.push(`${name}: documented twice (${seen.get(name)} and ${at})`);
    seen.set(name, at);
    if (!(name in shape)) problems.push(`${name}: documented at ${at} but not in the configuration schema (src/config.ts)`);
  }
  for (const name of schemaNames) {
    if (!seen.has(name)) problems.push(`${name}: in the configuration schema (src/config.ts) but missing from ${CONFIGURATION_DOC}`);
  }
  assert.equal(problems.length, 0, `\n${problems.join('\n')}`);
});

test("docs/configuration.md's defaults are the schema's", () => {
  const problems = defaultProblems(settingRows(CONFIGURATION_DOC));
  assert.equal(problems.length, 0, `\n${problems.join('\n')}`);
});

test("the settings tables of the other docs name known variables with the schema's defaults", () => {
  const files = globSync('docs/**/*.md', { cwd: ROOT }).filter((file) => file !== CONFIGURATION_DOC);
  const rows = files.flatMap(settingRows);
  const unknown = rows.flatMap((row) =>
    row.names
      .filter((name) => !(name in shape))
      .map((name) => `${row.file}:${row.line} ${name}: not in the configuration schema (src/config.ts)`),
  );
  const problems = [...unknown, ...defaultProblems(rows)];
  assert.equal(problems.length, 0, `\n${problems.join('\n')}`);
});

/** The text outside fenced code blocks and code spans, lines kept (so line numbers hold). */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, '');
  });
}

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const counts = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = counts.get(base) ?? 0;
    counts.set(base, n + 1);
    found.add(n === 0 ? base : `${base}-${n}`);
  }
  return found;
}

test('every relative link in README.md and docs/ points at a file that exists, and at a heading that does', () => {
  const files = ['README.md', ...globSync('docs/**/*.md', { cwd: ROOT })];
  const problems: string[] = [];
  let links = 0;
  for (const file of files) {
    prose(read(file)).forEach((line, index) => {
      for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        const target = match[1]!;
        // Addresses elsewhere (https:, mailto:) are not this repository's to check.
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        links++;
        const [pathPart = '', fragment] = target.split('#', 2);
        const resolved =
          pathPart === '' ? path.join(ROOT, file) : path.resolve(path.dirname(path.join(ROOT, file)), decodeURIComponent(pathPart));
        const where = `${file}:${index + 1} ${target}`;
        if (!existsSync(resolved)) {
          problems.push(`${where}: no such file`);
          continue;
        }
        if (fragment !== undefined && resolved.endsWith('.md') && !anchors(readFileSync(resolved, 'utf8')).has(fragment.toLowerCase())) {
          problems.push(`${where}: no heading with that anchor in ${path.relative(ROOT, resolved)}`);
        }
      }
    });
  }
  assert.ok(links > 0, 'no relative link found: the link pattern is broken');
  assert.equal(problems.length, 0, `\n${problems.join('\n')}`);
});
