import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentDisposition, resolveRange } from './range.ts';

test('a single byte range is served partial, clamped to the body; past the end it is unsatisfiable', () => {
  assert.deepEqual(resolveRange(undefined, 100), { kind: 'whole' });
  assert.deepEqual(resolveRange('bytes=0-9', 100), { kind: 'partial', start: 0, end: 9 });
  assert.deepEqual(resolveRange('bytes=90-', 100), { kind: 'partial', start: 90, end: 99 });
  assert.deepEqual(resolveRange('bytes=90-500', 100), { kind: 'partial', start: 90, end: 99 });
  assert.deepEqual(resolveRange('bytes=-10', 100), { kind: 'partial', start: 90, end: 99 });
  assert.deepEqual(resolveRange('bytes=-1000', 100), { kind: 'partial', start: 0, end: 99 });
  assert.deepEqual(resolveRange('Bytes=5-5', 100), { kind: 'partial', start: 5, end: 5 }, 'the unit is case-insensitive');
  assert.deepEqual(resolveRange('bytes=0-4, 3-9', 100), { kind: 'partial', start: 0, end: 9 }, 'overlapping ranges are one');
  assert.deepEqual(resolveRange('bytes=0-9,200-300', 100), { kind: 'partial', start: 0, end: 9 }, 'the satisfiable one of several');
  assert.deepEqual(resolveRange('bytes=100-', 100), { kind: 'unsatisfiable' });
  assert.deepEqual(resolveRange('bytes=150-200', 100), { kind: 'unsatisfiable' });
  assert.deepEqual(resolveRange('bytes=-0', 100), { kind: 'unsatisfiable' });
  assert.deepEqual(resolveRange('bytes=0-', 0), { kind: 'unsatisfiable' });
  // RFC 9110 §14.1.1: a non-zero suffix is satisfiable whatever the length; an empty body is served whole.
  assert.deepEqual(resolveRange('bytes=-5', 0), { kind: 'whole' });
});

test('several ranges, other units and malformed ranges are answered whole', () => {
  // RFC 9110 §14.1.1's grammar has no whitespace around "=" and "-": such a header is invalid, and ignored.
  for (const header of [
    'bytes=0-1,5-6',
    'items=0-1',
    'bytes=5-1',
    'bytes=-',
    'bytes=a-b',
    'bytes=0-1x',
    '',
    'bytes = 5-5',
    'bytes=5 - 5',
    'bytes=0-1,x-',
  ]) {
    assert.deepEqual(resolveRange(header, 100), { kind: 'whole' }, header);
  }
});

test('a plain ASCII file name is given as is; any other as an ASCII fallback without quotes or separators, and exactly as filename*', () => {
  assert.equal(contentDisposition('inline', null), 'inline');
  assert.equal(contentDisposition('attachment', 'report.pdf'), 'attachment; filename=report.pdf');
  assert.equal(contentDisposition('inline', 'photo (1).jpg'), 'inline; filename="photo (1).jpg"');
  assert.equal(
    contentDisposition('attachment', 'Fatura "março"; 100%.pdf'),
    `attachment; filename="Fatura _mar_o__ 100_.pdf"; filename*=UTF-8''Fatura%20%22mar%C3%A7o%22%3B%20100%25.pdf`,
  );
  assert.doesNotMatch(contentDisposition('attachment', 'a\r\nSet-Cookie: x=1'), /[\r\n]/);
});
