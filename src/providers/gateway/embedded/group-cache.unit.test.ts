import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { GroupMetadata } from 'baileys';
import { createGroupCache, GROUP_CACHE_TTL_MS } from './group-cache.ts';
import type { EngineSocket, SocketEvents } from './socket.ts';

const GROUP = '120363000000000001@g.us';
const OTHER = '120363000000000002@g.us';
const SELF = '4915100000000';
const metadata = (id: string, subject: string, phones: string[]): GroupMetadata => ({
  id,
  subject,
  owner: undefined,
  participants: phones.map((p, i) => ({ id: `${p}@s.whatsapp.net`, admin: i === 0 ? 'superadmin' : null })),
});

/** A socket whose events the test emits; groupMetadata answers from `service` and is counted. */
function fakeSocket(service: Map<string, GroupMetadata>) {
  const listeners = new Map<string, Array<(arg: never) => void>>();
  let fetches = 0;
  const socket = {
    ev: {
      on: (event: string, listener: (arg: never) => void) => listeners.set(event, [...(listeners.get(event) ?? []), listener]),
      off: () => undefined,
    },
    async groupMetadata(jid: string) {
      fetches++;
      const found = service.get(jid);
      if (!found) throw new Error('item-not-found');
      return structuredClone(found);
    },
  } as unknown as EngineSocket;
  const emit = <K extends keyof SocketEvents>(event: K, data: SocketEvents[K]) => {
    for (const listener of listeners.get(event) ?? []) (listener as (arg: SocketEvents[K]) => void)(data);
  };
  return { socket, emit, fetches: () => fetches };
}

test('a listing is served while fresh and whole; changes the socket reports are merged without a fetch; a group left drops out', async () => {
  let now = 1_000_000;
  const cache = createGroupCache({ now: () => now });
  const service = new Map([[GROUP, metadata(GROUP, 'Team', [SELF, '4915100000001'])]]);
  const { socket, emit, fetches } = fakeSocket(service);
  cache.attach(socket, () => ({ phone: SELF }));
  assert.equal(cache.listing(), undefined, 'nothing listed yet');
  cache.keepListing([metadata(GROUP, 'Team', [SELF, '4915100000001']), metadata(OTHER, 'Other', [SELF])]);
  assert.deepEqual(
    cache.listing()?.map((g) => g.id),
    [GROUP, OTHER],
  );

  // The library's listing emits every group's whole metadata as groups.update: kept as it is, nothing fetched.
  emit('groups.update', [metadata(GROUP, 'Team (renamed elsewhere)', [SELF, '4915100000001'])]);
  assert.equal((await cache.cachedGroupMetadata(GROUP))?.subject, 'Team (renamed elsewhere)');
  // A notice of a change: merged into the cached metadata (the author is not the group's).
  emit('groups.update', [{ id: GROUP, subject: 'Team 2', announce: true, author: '4915100000001@s.whatsapp.net' }]);
  const changed = await cache.cachedGroupMetadata(GROUP);
  assert.deepEqual([changed?.subject, changed?.announce, changed?.author], ['Team 2', true, undefined]);
  emit('group-participants.update', { id: GROUP, author: '', action: 'add', participants: [{ id: '4915100000002@s.whatsapp.net' }] });
  emit('group-participants.update', { id: GROUP, author: '', action: 'promote', participants: [{ id: '4915100000001@s.whatsapp.net' }] });
  emit('group-participants.update', { id: GROUP, author: '', action: 'remove', participants: [{ id: '4915100000002@s.whatsapp.net' }] });
  assert.deepEqual(
    (await cache.cachedGroupMetadata(GROUP))?.participants.map((p) => [p.id, p.admin]),
    [
      [`${SELF}@s.whatsapp.net`, 'superadmin'],
      ['4915100000001@s.whatsapp.net', 'admin'],
    ],
  );
  assert.equal(fetches(), 0, 'no change asked the service for the group');

  // The number removed from a group: it is no longer listed, the rest still is.
  emit('group-participants.update', { id: OTHER, author: '', action: 'remove', participants: [{ id: `${SELF}@s.whatsapp.net` }] });
  assert.deepEqual(
    cache.listing()?.map((g) => g.id),
    [GROUP],
  );
  // A group made with the number in it joins the listing.
  emit('groups.upsert', [metadata('120363000000000003@g.us', 'New', [SELF])]);
  assert.equal(cache.listing()?.length, 2);

  // Past the age, the listing and each group are read again.
  now += GROUP_CACHE_TTL_MS + 1;
  assert.equal(cache.listing(), undefined);
  assert.equal(await cache.cachedGroupMetadata(GROUP), undefined);
  assert.equal((await cache.fetch(GROUP))?.subject, 'Team');
  assert.equal(fetches(), 1);
});

test('a group changed through the API is read again; forgetting one (not left) drops the listing', async () => {
  const cache = createGroupCache({ now: () => 0 });
  cache.keepListing([metadata(GROUP, 'Team', [SELF]), metadata(OTHER, 'Other', [SELF])]);
  cache.forget(GROUP);
  assert.equal(await cache.cachedGroupMetadata(GROUP), undefined);
  assert.equal(cache.listing(), undefined, 'a listing missing a group is not served');
  cache.keepListing([metadata(GROUP, 'Team', [SELF]), metadata(OTHER, 'Other', [SELF])]);
  cache.forget(OTHER, { left: true });
  assert.deepEqual(
    cache.listing()?.map((g) => g.id),
    [GROUP],
  );
});
