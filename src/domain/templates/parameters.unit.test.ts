import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parameterMismatch, parametersOf } from './parameters.ts';

test("a template's parameters: text header variables or one media parameter, distinct body variables, URL and copy-code buttons", () => {
  assert.deepEqual(
    parametersOf([
      { type: 'HEADER', format: 'IMAGE' },
      { type: 'BODY', text: 'Hi {{name}}, order {{ order }} for {{name}}' },
      { type: 'FOOTER', text: 'Thanks' },
      {
        type: 'BUTTONS',
        buttons: [
          { type: 'QUICK_REPLY', text: 'Stop' },
          { type: 'URL', text: 'Track', url: 'https://example.com/t/{{1}}' },
          { type: 'URL', text: 'Home', url: 'https://example.com/' },
          { type: 'COPY_CODE', example: 'SAVE10' },
        ],
      },
    ]),
    {
      header: 1,
      body: 2,
      buttons: new Map([
        [1, 1],
        [2, 0],
        [3, 1],
      ]),
    },
  );
  assert.deepEqual(
    parametersOf([
      { type: 'HEADER', format: 'TEXT', text: 'Hello' },
      { type: 'BODY', text: 'No variables' },
    ]),
    { header: 0, body: 0, buttons: new Map() },
  );
});

test('the first component whose count differs is named, buttons by index; unchecked buttons pass', () => {
  const expected = { header: 0, body: 2, buttons: new Map([[1, 1]]) };
  const p = { type: 'text', text: 'x' };
  const body = { type: 'body', parameters: [p, p] };
  assert.deepEqual(parameterMismatch(expected, undefined), { component: 'body', expected: 2, given: 0 });
  assert.deepEqual(parameterMismatch(expected, [{ type: 'header', parameters: [p] }, body]), {
    component: 'header',
    expected: 0,
    given: 1,
  });
  assert.deepEqual(parameterMismatch(expected, [body]), { component: 'button', index: 1, expected: 1, given: 0 });
  assert.equal(
    parameterMismatch(expected, [
      body,
      { type: 'button', sub_type: 'url', index: '1', parameters: [p] },
      { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [p] },
    ]),
    undefined,
  );
});
