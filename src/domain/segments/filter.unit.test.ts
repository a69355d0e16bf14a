/**
 * The filter language without a database: what parseFilter accepts and how it names what it refuses,
 * and that compileFilter puts every value the caller wrote in a parameter, never in the SQL text.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PgDialect } from 'drizzle-orm/pg-core';
import { compileFilter } from './compile.ts';
import { durationMs, parseFilter } from './filter.ts';

const ORG = '0196b1f2-0a00-7000-8000-0000000000a1';

test('a filter is checked field by field, every refusal at its path', () => {
  const result = parseFilter({
    or: [
      { field: 'tags', op: 'has', value: 'vip' },
      {
        and: [
          { field: 'custom_fields.plan', op: 'gt', value: [1] },
          { field: 'consents.nope', op: 'eq', value: 'granted' },
        ],
      },
      { field: 'company.address.country', op: 'exists' },
    ],
  });
  assert.equal(result.ok, false);
  assert.deepEqual(!result.ok && result.errors.map((e) => e.pointer), [
    '/filter/or/1/and/0/value',
    '/filter/or/1/and/1/field',
    '/filter/or/2/value',
  ]);
  assert.match(!result.ok ? result.errors[1]!.message : '', /^filter\.or\[1\]\.and\[1\]\.field: unknown field "consents\.nope"/);
});

test('ids are kept lower case; a single list id stays a single id', () => {
  const result = parseFilter({
    and: [
      { field: 'lists', op: 'in', value: 'ABCDEF01-0000-7000-8000-000000000001' },
      { field: `suppressions.${ORG.toUpperCase()}`, op: 'exists', value: true },
    ],
  });
  assert.deepEqual(result.ok && result.filter, {
    and: [
      { field: 'lists', op: 'in', value: 'abcdef01-0000-7000-8000-000000000001' },
      { field: `suppressions.${ORG}`, op: 'exists', value: true },
    ],
  });
});

test('durations are days, hours and minutes', () => {
  assert.equal(durationMs('P1DT2H3M'), ((24 + 2) * 60 + 3) * 60_000);
  for (const bad of ['P', 'PT', 'P1DT', 'P1W', '7d'])
    assert.equal(parseFilter({ and: [{ field: 'created_at', op: 'within', value: bad }] }).ok, false, bad);
});

test('every value is a parameter: nothing the caller wrote reaches the SQL text', () => {
  const nasty = "x'); drop table contacts; --";
  const parsed = parseFilter({
    and: [
      { field: 'name', op: 'contains', value: nasty },
      { field: 'tags', op: 'has', value: nasty },
      { field: `custom_fields.${nasty.replace(/\./g, '')}`, op: 'eq', value: nasty },
      { field: 'company.custom_fields.tier', op: 'in', value: [nasty, 5, true] },
      { field: 'custom_fields.seats', op: 'gt', value: 10 },
    ],
  });
  assert.ok(parsed.ok);
  const query = new PgDialect().sqlToQuery(compileFilter(parsed.filter, { organizationId: ORG, now: new Date() }));
  assert.equal(query.sql.includes('drop table'), false, query.sql);
  assert.equal(query.sql.includes(ORG), false);
  assert.ok(query.params.some((p) => typeof p === 'string' && p.includes('drop table')));
});
