/**
 * docs/channels.md's support matrix against the capabilities the API answers: the table between its
 * markers is the one scripts/docs-capabilities.ts makes from the provider modules' rows (per engine).
 * When a row changes, `node scripts/docs-capabilities.ts` writes the table again.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { engineCapabilities } from '../../src/domain/channels/capabilities.ts';
import { capabilityTable, CHANNELS_DOC, documentedTable } from '../../scripts/docs-capabilities.ts';

test("docs/channels.md's capability table is the one the provider modules' rows make", () => {
  const documented = documentedTable(readFileSync(CHANNELS_DOC, 'utf8'));
  assert.ok(documented !== undefined, 'the table is between its markers');
  assert.equal(documented, capabilityTable(), 'docs/channels.md is stale: run `node scripts/docs-capabilities.ts`');
});

test('the table says what each engine does with a type: the embedded engine sends products as text, answers status queries itself', () => {
  const table = capabilityTable();
  const rowOf = (type: string) => table.split('\n').find((line) => line.split('|')[1]!.includes(`\`${type}\``))!;
  const embedded = engineCapabilities('chatapp_unofficial', 'embedded');
  assert.ok(embedded.simplified_types.includes('single_product'));
  const header = table
    .split('\n')[0]!
    .split('|')
    .map((c) => c.trim());
  const column = header.findIndex((c) => c.includes('`embedded`'));
  assert.ok(column > 0, 'the embedded engine has a column of its own');
  assert.equal(rowOf('single_product').split('|')[column]!.trim(), 'as text (simplified)');
  assert.equal(rowOf('message_status_query').split('|')[column]!.trim(), "answered from Parley's records");
  assert.equal(rowOf('text').split('|')[column]!.trim(), 'yes');
});
