import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_CSAT } from './settings.ts';
import { ratingOf, requestContent } from './surveys.ts';

const rate = (type: string, content: Record<string, unknown>) => ratingOf(DEFAULT_CSAT, type, content);

test('a chosen row or button rates by its id; another interactive reply does not', () => {
  assert.deepEqual(rate('interactive', { type: 'list_reply', id: 'csat:4', title: 'Good' }), { rating: 4, comment: null });
  assert.deepEqual(rate('interactive', { type: 'button_reply', id: 'csat:1' }), { rating: 1, comment: null });
  assert.equal(rate('interactive', { type: 'list_reply', id: 'csat:6' }), null);
  assert.equal(rate('interactive', { type: 'list_reply', id: 'order:4' }), null);
});

test('a text rates by a leading number (the rest is the comment), stars or a label', () => {
  assert.deepEqual(rate('text', { body: '5' }), { rating: 5, comment: null });
  assert.deepEqual(rate('text', { body: ' 5 - great service ' }), { rating: 5, comment: 'great service' });
  assert.deepEqual(rate('text', { body: '2. slow' }), { rating: 2, comment: 'slow' });
  assert.deepEqual(rate('text', { body: '3 more questions' }), { rating: 3, comment: 'more questions' });
  assert.deepEqual(rate('text', { body: '⭐⭐⭐' }), { rating: 3, comment: null });
  assert.deepEqual(rate('text', { body: 'excellent' }), { rating: 5, comment: null });
  assert.deepEqual(rate('text', { body: 'Very Poor' }), { rating: 1, comment: null });
  for (const body of ['0', '6', '10', '55', '15 minutes', 'hello', '', 'five'])
    assert.equal(rate('text', { body }), null, `${JSON.stringify(body)} is no answer`);
  assert.equal(rate('image', { caption: '5' }), null);
  assert.equal(rate('text', { body: `4 ${'x'.repeat(2000)}` })!.comment!.length, 1000);
});

test('the request lists the ratings in order, so numbered text matches them', () => {
  const content = requestContent(DEFAULT_CSAT) as { sections: Array<{ rows: Array<{ id: string; title: string }> }> };
  assert.deepEqual(
    content.sections[0]!.rows.map((r) => `${r.id} ${r.title}`),
    ['csat:1 Very poor', 'csat:2 Poor', 'csat:3 Okay', 'csat:4 Good', 'csat:5 Excellent'],
  );
});
