/** The webhook form's event type picker: a type nothing emits yet is marked reserved, from the catalogue's flag. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setUpDom } from '../../../../test/dashboard/dom.ts';

const { render, screen } = await setUpDom();
const { createElement: h } = await import('react');
const { EventTypePicker } = await import('./WebhooksPage.tsx');

const CATALOGUE = [
  { type: 'message.new' as const, description: 'A new message in a conversation.', example: {}, reserved: false },
  { type: 'commerce.order.updated' as const, description: "An order's state changed.", example: {}, reserved: true },
];

test('a reserved type says nothing emits it yet; the others do not', () => {
  render(h(EventTypePicker, { catalogue: CATALOGUE, value: [], onChange: () => undefined }));
  const reserved = screen.getByRole('checkbox', { name: /commerce\.order\.updated/ });
  assert.match(reserved.closest('label')?.textContent ?? '', /reserved: nothing emits it yet/);
  const emitted = screen.getByRole('checkbox', { name: /message\.new/ });
  assert.doesNotMatch(emitted.closest('label')?.textContent ?? '', /reserved/);
});
