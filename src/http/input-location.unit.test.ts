import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DomainError, invalid, notFound } from '../domain/errors.ts';
import { inputFrom } from './input-location.ts';

test('a domain refusal naming an input pointer gets the request location the route took that input from', async () => {
  const refused = Promise.reject(
    invalid('phone is not a possible phone number', [{ pointer: '/phone', message: 'not a possible phone number' }]),
  );
  const err = (await inputFrom('params', refused).catch((e: unknown) => e)) as DomainError;
  assert.ok(err instanceof DomainError);
  assert.equal(err.code, 'invalid');
  assert.equal(err.message, 'phone is not a possible phone number');
  // The body's key order is the one every route answers with.
  assert.equal(JSON.stringify(err.fieldErrors), '[{"pointer":"/phone","location":"params","message":"not a possible phone number"}]');
  const last = (await inputFrom('body', Promise.reject(invalid('x', [{ pointer: '/p', message: 'm' }])), 'location-last').catch(
    (e: unknown) => e,
  )) as DomainError;
  assert.equal(
    JSON.stringify(last.fieldErrors),
    '[{"pointer":"/p","message":"m","location":"body"}]',
    'the API key routes write the location last',
  );
});

test('a location the domain set stays, errors without field errors and results pass through untouched', async () => {
  const placed = invalid('bad', [{ pointer: '/x', location: 'headers', message: 'm' }]);
  assert.deepEqual(
    ((await inputFrom('body', Promise.reject(placed)).catch((e: unknown) => e)) as DomainError).fieldErrors,
    placed.fieldErrors,
  );
  const missing = notFound('contact');
  assert.equal(await inputFrom('body', Promise.reject(missing)).catch((e: unknown) => e), missing);
  assert.equal(await inputFrom('body', Promise.resolve(7)), 7);
});
