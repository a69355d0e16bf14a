import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chatSocketEvents } from './chats.ts';

const now = new Date('2026-11-26T10:00:00.000Z');
const JID = '4915112340101@s.whatsapp.net';

test("the library's chats.update as chat.update: archived, pinned, the mute's end, a read (0) or a mark (-1); a new message's count is no change", () => {
  const events = chatSocketEvents(
    'ref',
    {
      event: 'chats.update',
      data: [
        { id: JID, archived: true },
        { id: JID, pinned: 1_764_150_000, muteEndTime: 1_764_180_000_000 },
        { id: JID, pinned: null, muteEndTime: null },
        { id: JID, muteEndTime: -1 },
        { id: JID, unreadCount: 0 },
        { id: JID, unreadCount: -1 },
        { id: JID, unreadCount: 4, conversationTimestamp: 1_764_150_000 },
        { id: '120363025246125888@g.us', archived: false },
        { id: '80221344440001@lid', archived: true },
      ],
    },
    now,
  );
  const chat = '4915112340101';
  assert.deepEqual(events, [
    { kind: 'chat.update', ref: 'ref', chat, timestamp: now, archived: true },
    { kind: 'chat.update', ref: 'ref', chat, timestamp: now, pinned: true, mutedUntil: new Date(1_764_180_000_000) },
    { kind: 'chat.update', ref: 'ref', chat, timestamp: now, pinned: false, mutedUntil: null },
    { kind: 'chat.update', ref: 'ref', chat, timestamp: now, mutedUntil: new Date('9999-12-31T00:00:00.000Z') },
    { kind: 'chat.update', ref: 'ref', chat, timestamp: now, unread: false },
    { kind: 'chat.update', ref: 'ref', chat, timestamp: now, unread: true },
    { kind: 'chat.update', ref: 'ref', chat: '120363025246125888@g.us', timestamp: now, archived: false },
  ]);
});

test("the library's chats.delete as a deleted chat; a chat named by privacy id only is left out", () => {
  assert.deepEqual(chatSocketEvents('ref', { event: 'chats.delete', data: [JID, '80221344440001@lid'] }, now), [
    { kind: 'chat.update', ref: 'ref', chat: '4915112340101', deleted: true, timestamp: now },
  ]);
});
