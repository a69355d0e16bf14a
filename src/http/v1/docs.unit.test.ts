import assert from 'node:assert/strict';
import { test } from 'node:test';
import { docsCsp } from './docs.ts';

const SWAGGER_UI =
  "default-src 'self'; base-uri 'self'; img-src 'self' data: validator.swagger.io; script-src 'self' 'sha256-x'; upgrade-insecure-requests;";

test('the reference page CSP drops the validator image always, and the upgrade directive on http only', () => {
  assert.equal(docsCsp(SWAGGER_UI, false), "default-src 'self'; base-uri 'self'; img-src 'self' data:; script-src 'self' 'sha256-x';");
  assert.equal(
    docsCsp(SWAGGER_UI, true),
    "default-src 'self'; base-uri 'self'; img-src 'self' data:; script-src 'self' 'sha256-x'; upgrade-insecure-requests;",
  );
});
