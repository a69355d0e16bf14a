import assert from 'node:assert/strict';
import { test } from 'node:test';
import { minorDigits, moneyInput, parseMoney } from './money.ts';

test('amounts typed in major units become the API’s minor units, by the currency’s digits', () => {
  assert.deepEqual([minorDigits('EUR'), minorDigits('JPY'), minorDigits('KWD'), minorDigits('NOPE')], [2, 0, 3, 2]);
  assert.equal(parseMoney('12500', 'EUR'), 1250000);
  assert.equal(parseMoney('12,500.50', 'EUR'), 1250050, 'a comma before three digits groups thousands');
  assert.equal(parseMoney('12,5', 'EUR'), 1250, 'a decimal comma');
  assert.equal(parseMoney(' 1 500 ', 'JPY'), 1500);
  assert.equal(parseMoney('1.234', 'KWD'), 1234);
  assert.equal(parseMoney('', 'EUR'), null, 'empty clears');
  assert.equal(parseMoney('1.234', 'EUR'), undefined, 'more digits than the currency has');
  assert.equal(parseMoney('12.345,67', 'EUR'), undefined);
  assert.equal(parseMoney('-5', 'EUR'), undefined);
  assert.equal(parseMoney('ten', 'EUR'), undefined);
  assert.equal(moneyInput(1250050, 'EUR'), '12500.50');
  assert.equal(moneyInput(1500, 'JPY'), '1500');
  assert.equal(moneyInput(null, null), '');
});
