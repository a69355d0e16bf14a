/**
 * docs/channels.md's support matrix, made from the capabilities the API answers (the provider
 * modules' rows, per engine): `node scripts/docs-capabilities.ts` rewrites the table between its
 * markers; test/docs/capabilities.unit.test.ts fails when the file and the rows differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { engineCapabilities, MESSAGE_TYPES, OPERATIONS, type Capabilities } from '../src/domain/channels/capabilities.ts';
import { PLATFORMS, providerModule } from '../src/providers/registry.ts';

export const CHANNELS_DOC = path.resolve(import.meta.dirname, '../docs/channels.md');
export const TABLE_START = '<!-- capabilities table: made by scripts/docs-capabilities.ts from the provider modules; do not edit -->';
export const TABLE_END = '<!-- end of capabilities table -->';

/** How a column's engine sends a type, in the table's words. */
function typeCell(c: Capabilities, type: (typeof MESSAGE_TYPES)[number]): string {
  if (c.simplified_types.includes(type)) return 'as text (simplified)';
  if (c.parley_types.includes(type)) return "answered from Parley's records";
  return c.native_types.includes(type) ? 'yes' : 'no';
}

/** Rows of the same cells side by side, first seen first; each row names its keys. */
function grouped<K extends string>(keys: readonly K[], cellsOf: (key: K) => string[]): Array<{ keys: K[]; cells: string[] }> {
  const rows = new Map<string, { keys: K[]; cells: string[] }>();
  for (const key of keys) {
    const cells = cellsOf(key);
    const id = JSON.stringify(cells);
    const row = rows.get(id) ?? { keys: [], cells };
    row.keys.push(key);
    rows.set(id, row);
  }
  return [...rows.values()];
}

/** The support matrix as a markdown table: one column per platform and engine (engines alike share one). */
export function capabilityTable(): string {
  const engines = PLATFORMS.flatMap((platform) =>
    Object.keys(providerModule(platform).engines.rows).map((engine) => engineCapabilities(platform, engine as Capabilities['engine'])),
  );
  const columnOf = (c: Capabilities) => [
    ...MESSAGE_TYPES.map((t) => typeCell(c, t)),
    ...OPERATIONS.map((o) => (c.operations.includes(o) ? 'yes' : 'no')),
    c.customer_service_window_hours === null ? 'none' : `${c.customer_service_window_hours} hours`,
  ];
  const columns = grouped(
    engines.map((_, i) => String(i)),
    (i) => columnOf(engines[Number(i)]!),
  ).map((g) => g.keys.map((i) => engines[Number(i)]!));
  const head = columns.map((group) => `\`${group[0]!.platform}\`: ${group.map((c) => `\`${c.engine}\``).join(', ')}`);
  const line = (first: string, cells: string[]) => `| ${[first, ...cells].join(' | ')} |`;
  const code = (keys: string[]) => keys.map((k) => `\`${k}\``).join(', ');
  return [
    line('', head),
    line(
      '---',
      head.map(() => '---'),
    ),
    ...grouped(MESSAGE_TYPES, (t) => columns.map((group) => typeCell(group[0]!, t))).map((r) => line(code(r.keys), r.cells)),
    ...grouped(OPERATIONS, (o) => columns.map((group) => (group[0]!.operations.includes(o) ? 'yes' : 'no'))).map((r) =>
      line(code(r.keys), r.cells),
    ),
    line(
      'customer-service window',
      columns.map((group) => {
        const hours = group[0]!.customer_service_window_hours;
        return hours === null ? 'none' : `${hours} hours`;
      }),
    ),
  ].join('\n');
}

/** The table as the file holds it now (between the markers), or undefined without them. */
export function documentedTable(text: string): string | undefined {
  const start = text.indexOf(TABLE_START);
  const end = text.indexOf(TABLE_END);
  if (start < 0 || end < start) return undefined;
  return text.slice(start + TABLE_START.length, end).trim();
}

if (import.meta.main) {
  const text = readFileSync(CHANNELS_DOC, 'utf8');
  if (documentedTable(text) === undefined) throw new Error(`${CHANNELS_DOC} has no capabilities table markers`);
  const start = text.indexOf(TABLE_START) + TABLE_START.length;
  writeFileSync(CHANNELS_DOC, `${text.slice(0, start)}\n${capabilityTable()}\n${text.slice(text.indexOf(TABLE_END))}`);
}
