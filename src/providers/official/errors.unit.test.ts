import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classifyGraphError, retryAfterSeconds } from './errors.ts';

const body = (code: number, extra: Record<string, unknown> = {}) => ({
  error: { message: `(#${code}) x`, type: 'OAuthException', code, fbtrace_id: 'A', ...extra },
});

test('each error is classified by whom it concerns, and whether the provider only holds sends back', () => {
  const codes = [
    131056, 130429, 131048, 80007, 4, 131057, 131031, 133010, 368, 131042, 200, 299, 190, 132015, 132016, 132001, 131047, 131026,
  ];
  assert.deepEqual(
    codes.map((code) => {
      const e = classifyGraphError(code === 190 ? 401 : code === 131057 ? 500 : 400, body(code));
      return [code, e.scope, e.retryable, e.channelFault ?? false, e.hold ?? false, e.templateStatus];
    }),
    [
      [131056, 'recipient', true, false, true, undefined],
      [130429, 'channel', true, false, true, undefined],
      [131048, 'channel', true, false, true, undefined],
      [80007, 'channel', true, false, true, undefined],
      [4, 'channel', true, false, true, undefined],
      [131057, 'channel', true, false, true, undefined],
      [131031, 'channel', false, true, false, undefined],
      [133010, 'channel', false, true, false, undefined],
      [368, 'channel', false, true, false, undefined],
      [131042, 'channel', false, true, false, undefined],
      [200, 'channel', false, true, false, undefined],
      [299, 'channel', false, true, false, undefined],
      [190, 'channel', false, true, false, undefined],
      [132015, 'template', false, false, false, 'paused'],
      [132016, 'template', false, false, false, 'disabled'],
      [132001, 'template', false, false, false, 'disabled'],
      [131047, 'message', false, false, false, undefined],
      [131026, 'message', false, false, false, undefined],
    ],
  );
  const tooMany = classifyGraphError(429, body(131000));
  assert.deepEqual([tooMany.scope, tooMany.hold, tooMany.retryAfterSeconds], ['channel', true, 5], 'any other 429 holds the channel');
  assert.equal(classifyGraphError(400, body(131057)).retryAfterSeconds, 60, 'maintenance holds a minute unless told');
});

test('Retry-After and is_transient decide whether and when a message error is retried', () => {
  assert.equal(classifyGraphError(500, body(131000)).retryable, true, 'a 5xx the provider says nothing about may pass');
  assert.equal(classifyGraphError(500, body(131000, { is_transient: false })).retryable, false, 'not transient: not retried');
  assert.deepEqual(
    [
      classifyGraphError(400, body(131000, { is_transient: true })).retryable,
      classifyGraphError(400, body(131000, { is_transient: true })).retryAfterSeconds,
    ],
    [true, undefined],
  );
  assert.equal(classifyGraphError(400, body(131000), '7').retryAfterSeconds, 7, 'a Retry-After is advice to retry, then');
  assert.equal(classifyGraphError(429, body(130429), '4').retryAfterSeconds, 4, "the provider's time over the default");
  assert.equal(classifyGraphError(429, body(130429)).retryAfterSeconds, 2);
  assert.equal(classifyGraphError(400, body(131056)).retryAfterSeconds, 6);
  assert.equal(retryAfterSeconds('Wed, 21 Oct 2015 07:28:30 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')), 30);
  assert.equal(retryAfterSeconds('soon'), undefined);
  assert.equal(retryAfterSeconds('999999'), 3600, 'capped');
});

test("the provider's wording for the end user is kept", () => {
  const e = classifyGraphError(400, body(131026, { error_data: { details: 'd' }, error_user_title: 'T', error_user_msg: 'M' }));
  assert.deepEqual([e.message, e.userTitle, e.userMessage], ['d', 'T', 'M']);
});
