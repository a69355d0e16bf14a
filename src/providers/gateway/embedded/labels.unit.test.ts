import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BaileysEventMap } from 'baileys';
import { labelLidsOf, labelSocketEvents, type LabelSocketEvent } from './labels.ts';

const now = new Date('2026-11-28T10:00:00.000Z');
const association = (a: Record<string, string>, type: 'add' | 'remove' = 'add'): LabelSocketEvent => ({
  event: 'labels.association',
  data: { type, association: a as unknown as BaileysEventMap['labels.association']['association'] },
});

test("the library's labels.edit as a label event: its id, name, color and deletion", () => {
  const edit = (data: Partial<BaileysEventMap['labels.edit']>) =>
    labelSocketEvents('s1', { event: 'labels.edit', data: data as BaileysEventMap['labels.edit'] }, { now });
  assert.deepEqual(edit({ id: '4', name: 'New order', color: 7, deleted: false }), [
    { kind: 'label.edit', ref: 's1', labelId: '4', name: 'New order', color: 7, deleted: false, timestamp: now },
  ]);
  assert.deepEqual(edit({ id: '4', deleted: true }), [
    { kind: 'label.edit', ref: 's1', labelId: '4', name: '', color: 0, deleted: true, timestamp: now },
  ]);
  assert.deepEqual(edit({ name: 'no id' }), []);
});

test("the library's labels.association: a chat by phone, group or privacy id (its phone from the store), a message's label; others left out", () => {
  const phones = new Map([['80221345678901@lid', '4915112345678@s.whatsapp.net']]);
  const events = (input: LabelSocketEvent) => labelSocketEvents('s1', input, { now, phones });
  assert.deepEqual(events(association({ type: 'label_jid', chatId: '4915112345678@s.whatsapp.net', labelId: '4' })), [
    { kind: 'label.association', ref: 's1', labelId: '4', chat: '4915112345678', action: 'add', timestamp: now },
  ]);
  assert.deepEqual(events(association({ type: 'label_jid', chatId: '120363025246125888@g.us', labelId: '4' }, 'remove')), [
    { kind: 'label.association', ref: 's1', labelId: '4', chat: '120363025246125888@g.us', action: 'remove', timestamp: now },
  ]);
  const byLid = association({ type: 'label_jid', chatId: '80221345678901@lid', labelId: '4' });
  assert.deepEqual(labelLidsOf(byLid), ['80221345678901@lid']);
  assert.equal((events(byLid)[0] as { chat: string }).chat, '4915112345678');
  assert.deepEqual(
    events(association({ type: 'label_message', chatId: '4915112345678@s.whatsapp.net', messageId: '3A01', labelId: '4' })),
    [{ kind: 'label.association', ref: 's1', labelId: '4', chat: '4915112345678', messageId: '3A01', action: 'add', timestamp: now }],
  );
  assert.deepEqual(
    events(association({ type: 'label_jid', chatId: '99999999999999@lid', labelId: '4' })),
    [],
    'a privacy id the store does not know',
  );
  assert.deepEqual(events(association({ type: 'label_jid', chatId: 'status@broadcast', labelId: '4' })), []);
});
