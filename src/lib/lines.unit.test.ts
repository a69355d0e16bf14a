import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineReader } from './lines.ts';

const CHUNK = 64 * 1024;

/** Feeds one line of `size` characters in CHUNK pieces, then a line break; the reader's work and the line's length. */
function readOneLine(size: number): { work: number; length: number } {
  const reader = new LineReader();
  const piece = 'x'.repeat(CHUNK);
  const lines = [];
  for (let sent = 0; sent < size; sent += CHUNK) lines.push(...reader.push(piece.slice(0, Math.min(CHUNK, size - sent))));
  lines.push(...reader.push('\n'), ...reader.end());
  assert.equal(lines.length, 1);
  return { work: reader.work, length: lines[0]!.cells[0]!.length };
}

test('reading a long line is linear: 8 times the line is 8 times the work, about twice the characters', () => {
  const small = readOneLine(1024 * 1024);
  const large = readOneLine(8 * 1024 * 1024);
  assert.equal(small.length, 1024 * 1024);
  assert.equal(large.length, 8 * 1024 * 1024);
  // Each character is searched once and copied once when the line ends.
  assert.ok(small.work <= 2 * (1024 * 1024 + 1), `work for 1 MiB: ${small.work}`);
  assert.ok(large.work <= 2 * (8 * 1024 * 1024 + 1), `work for 8 MiB: ${large.work}`);
  const ratio = large.work / small.work;
  assert.ok(ratio > 7.5 && ratio < 8.5, `work grew ${ratio.toFixed(1)} times for 8 times the line`);
});

test('lines come out the same however the text is cut; a line over the limit is marked and not kept', () => {
  const text = '{"a":1}\n\n' + 'y'.repeat(50) + '\n{"b":2}\nlast';
  const expected = [
    { cells: ['{"a":1}'], line: 1 },
    { cells: [''], line: 2 },
    { cells: [], line: 3, tooLong: true },
    { cells: ['{"b":2}'], line: 4 },
    { cells: ['last'], line: 5 },
  ];
  for (let cut = 0; cut <= text.length; cut++) {
    for (let cut2 = cut; cut2 <= text.length; cut2 += 7) {
      const reader = new LineReader(20);
      const records = [
        ...reader.push(text.slice(0, cut)),
        ...reader.push(text.slice(cut, cut2)),
        ...reader.push(text.slice(cut2)),
        ...reader.end(),
      ];
      assert.deepEqual(records, expected, `cut at ${cut} and ${cut2}`);
    }
  }
  const tail = new LineReader(5);
  assert.deepEqual([...tail.push('123456789'), ...tail.end()], [{ cells: [], line: 1, tooLong: true }]);
});
