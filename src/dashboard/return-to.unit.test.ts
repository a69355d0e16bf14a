import assert from 'node:assert/strict';
import { test } from 'node:test';
import { safeReturnTo } from './return-to.ts';

const ORIGIN = 'https://parley.example.com';

test('return_to: dashboard paths of this origin are kept with their query', () => {
  assert.equal(
    safeReturnTo('/app/oauth/authorize?request=0196b1f2-0a00-7000-8000-000000000161', ORIGIN),
    '/app/oauth/authorize?request=0196b1f2-0a00-7000-8000-000000000161',
  );
  assert.equal(safeReturnTo('/app/device?user_code=BCDF-GHJK', ORIGIN), '/app/device?user_code=BCDF-GHJK');
  assert.equal(safeReturnTo('/app', ORIGIN), '/app');
  assert.equal(safeReturnTo('/app/api-keys#top', ORIGIN), '/app/api-keys');
});

test('return_to: anything else is ignored (other sites, other paths, the sign-in page, tricks)', () => {
  for (const value of [
    null,
    undefined,
    '',
    'https://evil.example/app/device',
    '//evil.example/app/device',
    '/\\evil.example/app/device',
    '\\\\evil.example',
    'javascript:alert(1)',
    'app/device',
    '/v1/api-keys',
    '/application',
    '/app/../v1/openapi.json',
    '/app/login?return_to=/app/device',
    '/app/login/',
    '/app/de\nvice',
    '/app/\tdevice',
    '/%2F%2Fevil.example',
  ]) {
    assert.equal(safeReturnTo(value, ORIGIN), undefined, JSON.stringify(value));
  }
});
