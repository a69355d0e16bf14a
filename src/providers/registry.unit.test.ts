import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OPERATIONS, type Operation } from './capabilities.ts';
import type { AdapterCalls } from './provider.ts';
import { createProviderRegistry, PLATFORMS, providerModule } from './registry.ts';

/** The adapter call each operation needs: a module that lists the operation has the call, and one that has the call lists it. */
const CALL_OF: Partial<Record<Operation, keyof AdapterCalls>> = {
  'contacts.lookup': 'lookupProfile',
  'channel.connect': 'startPairing',
  'channel.qr': 'getQr',
  'channel.pairing_code': 'requestPairingCode',
  'channel.logout': 'logout',
  'bizapi.register_phone': 'registerPhone',
  'bizapi.exchange_code': 'exchangeCode',
  'templates.submit': 'submitTemplate',
  'templates.sync': 'listTemplates',
  'media.upload': 'uploadMedia',
  'groups.manage': 'groups',
  'presence.subscribe': 'subscribePresence',
  'labels.manage': 'labels',
  'status.post': 'postStatus',
  'chats.manage': 'chats',
};

const registry = createProviderRegistry({ targets: { allowPrivate: false, ownPrefixes: [] } });

for (const platform of PLATFORMS) {
  const module = providerModule(platform);

  test(`${platform}: the registry key is the module's platform, and its adapter carries the module's idempotency rule`, () => {
    assert.equal(module.platform, platform);
    const adapter = registry.get(platform);
    assert.equal(adapter.platform, platform);
    assert.deepEqual(adapter.sends, module.sends);
  });

  test(`${platform}: the support matrix row and the adapter's optional calls agree`, () => {
    const adapter = registry.get(platform);
    for (const operation of OPERATIONS) {
      const call = CALL_OF[operation];
      if (!call) continue;
      assert.equal(adapter[call] !== undefined, module.capabilities.operations.includes(operation), `${operation} <-> ${call}`);
    }
  });

  test(`${platform}: each engine it picks has a row, and sends each type of the platform one way only`, () => {
    const picked = new Set(
      [true, false].flatMap((sandbox) =>
        [{}, { [module.settings.ownProvider]: 'x' }].map((settings) => module.engines.of({ sandbox, settings })),
      ),
    );
    for (const engine of picked) assert.ok(module.engines.rows[engine], `${engine} has a row`);
    for (const [engine, row] of Object.entries(module.engines.rows)) {
      for (const type of [...row.simplified_types, ...row.parley_types])
        assert.ok(module.capabilities.message_types.includes(type), `${engine}: ${type} is a type the platform takes`);
      assert.deepEqual(
        row.simplified_types.filter((t) => row.parley_types.includes(t)),
        [],
        `${engine}: simplified or Parley's, not both`,
      );
    }
  });

  test(`${platform}: settings name keys of its schemas, and its status machine starts somewhere it can leave`, () => {
    const settings = Object.keys(module.settings.schema.shape);
    const credentials = Object.keys(module.settings.credentials.shape);
    for (const key of [module.settings.address, module.settings.ref, module.settings.ownProvider]) assert.ok(settings.includes(key), key);
    for (const pointer of module.settings.required) {
      const [, part, key] = pointer.split('/');
      assert.ok((part === 'settings' ? settings : credentials).includes(key!), pointer);
    }
    for (const key of module.settings.generated ?? [])
      assert.ok(!credentials.includes(key), `${key} is made by the channel, never set by a user`);
    assert.ok((module.status.transitions[module.status.initial]?.length ?? 0) > 0);
    assert.equal(module.connection === 'pairing', module.capabilities.operations.includes('channel.connect'));
    assert.ok(module.pacing.throughputPerSecond > 0);
  });
}

test('an unknown platform is a bug, not a silent default', () => {
  assert.throws(() => providerModule('chatapp_embedded'), /no provider module/);
  assert.throws(() => registry.get('chatapp_embedded'), /no provider adapter/);
});
