import assert from 'node:assert/strict';
import { test } from 'node:test';
import { statementNames } from './auto-prepare.ts';

test('a text is named from its minUses-th call on, the same name every time; another text gets another name', () => {
  const names = statementNames({ minUses: 3, maxStatements: 10, maxCounted: 100 });
  assert.equal(names.nameFor('select $1'), undefined);
  assert.equal(names.nameFor('select $1'), undefined);
  const name = names.nameFor('select $1');
  assert.match(name ?? '', /^parley_auto_[0-9a-f]{20}$/);
  assert.equal(names.nameFor('select $1'), name);
  for (let i = 0; i < 2; i++) assert.equal(names.nameFor('select $1, $2'), undefined);
  const other = names.nameFor('select $1, $2');
  assert.ok(other && other !== name);
  assert.equal(names.size, 2);
});

test('past maxStatements texts stay unnamed; the ones named keep their names', () => {
  const names = statementNames({ minUses: 1, maxStatements: 2, maxCounted: 100 });
  const a = names.nameFor('a $1');
  const b = names.nameFor('b $1');
  assert.ok(a && b);
  for (let i = 0; i < 5; i++) assert.equal(names.nameFor('c $1'), undefined);
  assert.equal(names.nameFor('a $1'), a);
  assert.equal(names.size, 2);
});

test('texts that keep changing do not pile up: past maxCounted the counts start again', () => {
  const names = statementNames({ minUses: 2, maxStatements: 10, maxCounted: 3 });
  names.nameFor('x $1');
  for (const t of ['p $1', 'q $1', 'r $1']) names.nameFor(t);
  // The count of 'x' was dropped when the counted texts filled up: its next call is its first again.
  assert.equal(names.nameFor('x $1'), undefined);
  assert.ok(names.nameFor('x $1'));
});
