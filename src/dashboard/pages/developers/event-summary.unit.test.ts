import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventSummary } from './event-summary.ts';

const event = (type: Parameters<typeof eventSummary>[0]['type'], data: Record<string, unknown>) => ({
  id: '0196b1f2-1c9e-7a01-b2c3-d4e5f6a7b8c9',
  type,
  created_at: '2026-11-25T12:00:00.000Z',
  data,
});

test("an event's one-line summary says what happened from its body", () => {
  assert.equal(
    eventSummary(event('message.new', { direction: 'inbound', msg_type: 'text', from_phone: '4915112345678' })),
    'Inbound text message from +4915112345678',
  );
  assert.equal(eventSummary(event('message.status_update', { message_id: 'm', status: 'delivered' })), 'A message was delivered');
  assert.equal(
    eventSummary(event('conversation.updated', { conversation_id: 'c', status: 'open', unread_count: 2, assignee_user_id: null })),
    'Conversation open, 2 unread, unassigned',
  );
  assert.equal(eventSummary(event('contact.updated', { contact_id: 'c', name: 'Ada Lovelace' })), 'Contact Ada Lovelace updated');
  assert.equal(
    eventSummary(
      event('channel.status_update', { status: 'connected', previous_status: 'pairing', reason: 'the phone scanned the QR code' }),
    ),
    'Channel pairing → connected: the phone scanned the QR code',
  );
  assert.equal(
    eventSummary(event('crm.record.updated', { object_kind: 'contact', display_name: 'Live Lena B.' })),
    'contact Live Lena B. updated',
  );
  assert.equal(
    eventSummary(event('crm.import.committed', { created: 120, updated: 14, unchanged: 3, failed: 2 })),
    'Import: 120 created, 14 updated, 3 unchanged, 2 failed',
  );
  assert.equal(
    eventSummary(event('crm.import.committed', { object_kind: 'deal', created: 5, updated: 0, unchanged: 0, failed: 1 })),
    'Deal import: 5 created, 0 updated, 0 unchanged, 1 failed',
  );
  assert.equal(
    eventSummary(event('template.quality_update', { template_id: 't', flagged: true, reason: 'negative feedback' })),
    'Template flagged: negative feedback',
  );
  assert.equal(eventSummary(event('template.quality_update', { template_id: 't', quality_score: 'YELLOW' })), 'Template quality YELLOW');
  assert.equal(eventSummary(event('group.updated', { group_id: 'g', change: 'group_add_participants' })), 'Group group_add_participants');
  assert.equal(
    eventSummary(event('commerce.order.updated', { order_no: 'A-10023', status: 'shipped', payment_status: 'paid' })),
    'Order A-10023 shipped, payment paid',
  );
  assert.equal(eventSummary(event('crm.task.completed', { task_id: 't', title: 'Call back' })), 'Task Call back completed');
  assert.equal(eventSummary(event('crm.task.due', { task_id: 't', title: 'Call back' })), 'Task Call back due');
  assert.equal(eventSummary(event('crm.relationship.linked', { label: 'works at' })), 'Linked: works at');
  assert.equal(eventSummary(event('crm.comment.updated', { object_kind: 'deal' })), 'Comment edited on a deal');
});

test('a body without the expected fields (an older one) still gives a sentence, never "undefined"', () => {
  for (const type of [
    'message.new',
    'contact.updated',
    'channel.status_update',
    'crm.record.created',
    'crm.list.entry_added',
    'crm.task.completed',
    'crm.relationship.unlinked',
  ] as const) {
    const text = eventSummary(event(type, {}));
    assert.ok(text.length > 3, type);
    assert.doesNotMatch(text, /undefined|null/, type);
  }
});
