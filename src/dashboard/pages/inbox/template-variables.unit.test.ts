import assert from 'node:assert/strict';
import { test } from 'node:test';
import { templateComponents, templateSlots } from './template-variables.ts';

const COMPONENTS = [
  { type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' },
  { type: 'BODY', text: 'Hi {{1}}, your order {{2}} ships {{ 3 }}.' },
  { type: 'FOOTER', text: 'Thanks' },
  {
    type: 'BUTTONS',
    buttons: [
      { type: 'QUICK_REPLY', text: 'Stop' },
      { type: 'URL', text: 'Track', url: 'https://example.com/t/{{1}}' },
    ],
  },
];

test("a template's variables: header, body (spaces inside the braces too) and URL buttons, in the message's order", () => {
  const slots = templateSlots(COMPONENTS);
  assert.deepEqual(
    slots.map((s) => [s.component, s.index, s.number]),
    [
      ['header', undefined, 1],
      ['body', undefined, 1],
      ['body', undefined, 2],
      ['body', undefined, 3],
      ['button', 1, 1],
    ],
  );
  assert.deepEqual(
    templateSlots([
      { type: 'HEADER', format: 'IMAGE' },
      { type: 'BODY', text: 'No variables' },
    ]),
    [],
  );
});

test('filled values become the components a template message carries, with each value pointer for the API errors', () => {
  const slots = templateSlots(COMPONENTS);
  const { components, pointers } = templateComponents(slots, ['A-1', 'Ana', 'A-1', 'today', 'abc']);
  assert.deepEqual(components, [
    { type: 'header', parameters: [{ type: 'text', text: 'A-1' }] },
    {
      type: 'body',
      parameters: [
        { type: 'text', text: 'Ana' },
        { type: 'text', text: 'A-1' },
        { type: 'text', text: 'today' },
      ],
    },
    { type: 'button', sub_type: 'url', index: '1', parameters: [{ type: 'text', text: 'abc' }] },
  ]);
  assert.deepEqual(pointers, [
    '/content/template/components/0/parameters/0',
    '/content/template/components/1/parameters/0',
    '/content/template/components/1/parameters/1',
    '/content/template/components/1/parameters/2',
    '/content/template/components/2/parameters/0',
  ]);
});
