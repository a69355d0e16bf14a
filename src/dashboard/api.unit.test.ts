/** The fetch client's reading of a failed answer: each body shape the dashboard meets gives its message. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiErrorOf } from './api.ts';

test("a refusal's message: the problem's detail, the {error, code} shape's error, the sandbox's {error: {code, message}}", () => {
  const problem = apiErrorOf(404, 'Not Found', { title: 'Not Found', status: 404, detail: 'message not found' });
  assert.equal(problem.message, 'message not found');
  const contacts = apiErrorOf(409, 'Conflict', { error: 'a contact with this phone number exists', code: 'conflict' });
  assert.deepEqual([contacts.message, contacts.code], ['a contact with this phone number exists', 'conflict']);
  const sandbox = apiErrorOf(400, 'Bad Request', {
    error: { code: 'invalid_request', message: 'from must be international digits without +', retryable: false },
  });
  assert.deepEqual([sandbox.message, sandbox.code], ['from must be international digits without +', 'invalid_request']);
  assert.equal(apiErrorOf(502, 'Bad Gateway', undefined).message, '502 Bad Gateway');
});
