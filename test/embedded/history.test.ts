/**
 * History sync: the socket is told to process every sync type but FULL (disabling them all loses the
 * privacy-id mappings the library needs); the mappings the library stores land in the session's auth
 * state and read back after a restart; a chunk's contacts give the CRM's contacts their privacy id and
 * name; its old messages are imported only when the channel's import_history says so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addTransactionCapability, DEFAULT_CONNECTION_CONFIG, PROCESSABLE_HISTORY_TYPES, processHistoryMessage, proto } from 'baileys';
import pino from 'pino';
import { usePostgresAuthState } from '../../src/providers/gateway/embedded/auth-state.ts';
import { assertHeld } from '../../src/providers/gateway/embedded/sessions.ts';
import { eventually } from '../eventually.ts';
import { request } from '../harness.ts';
import { keyRows, pairedChannel, startEmbeddedServer } from './helpers.ts';

const Sync = proto.HistorySync.HistorySyncType;
const CUSTOMER = '4915144440001';
const CUSTOMER_LID = '177766655544433';
const silent = pino({ level: 'silent' });

/** A history chunk as the library emits it (messaging-history.set): a HistorySync proto through its own processing. */
function chunkOf(syncType: proto.HistorySync.HistorySyncType, text: string, id: string) {
  const sync = proto.HistorySync.fromObject({
    syncType,
    conversations: [
      {
        id: `${CUSTOMER_LID}@lid`,
        pnJid: `${CUSTOMER}@s.whatsapp.net`,
        displayName: 'Ana Lima',
        messages: [
          {
            message: {
              key: { remoteJid: `${CUSTOMER_LID}@lid`, fromMe: false, id },
              message: { conversation: text },
              messageTimestamp: Math.floor(Date.now() / 1000) - 86_400,
            },
          },
        ],
      },
    ],
  });
  return processHistoryMessage(sync, silent);
}

describe('embedded engine: history sync', () => {
  let ctx: Awaited<ReturnType<typeof startEmbeddedServer>>;
  before(async () => {
    ctx = await startEmbeddedServer();
  });
  after(() => ctx.server.close());

  test('every sync type but FULL is processed: the library does not find all sync disabled', async () => {
    const channel = await pairedChannel(ctx, '4915100000501');
    const decide = channel.socket.input.shouldSyncHistoryMessage;
    const processed = PROCESSABLE_HISTORY_TYPES.filter((syncType) => decide({ syncType }));
    assert.deepEqual(processed.sort(), PROCESSABLE_HISTORY_TYPES.filter((t) => t !== Sync.FULL).sort());
    // The library's own check (Socket/socket.js): it warns when every type is refused.
    assert.notEqual(processed.length, 0);
  });

  test('the privacy-id mappings the library stores from a chunk are kept in the auth state and read back after a restart', async () => {
    const { server } = ctx;
    const channel = await pairedChannel(ctx, '4915100000502');
    const db = server.container.database.db;
    const fence = (tx: Parameters<typeof assertHeld>[0]) =>
      assertHeld(tx, { channelId: channel.id, owner: server.container.processId, now: new Date() });
    const open = async () => {
      const auth = await usePostgresAuthState({ db, sealer: server.container.sealer, fence }, channel.id);
      const keys = addTransactionCapability(auth.state.keys, silent, DEFAULT_CONNECTION_CONFIG.transactionOpts);
      return DEFAULT_CONNECTION_CONFIG.makeSignalRepository({ creds: auth.state.creds, keys }, silent);
    };
    // What the library does with a chunk's mappings (Utils/process-message.js), on the engine's auth state.
    const chunk = chunkOf(Sync.INITIAL_BOOTSTRAP, 'old', '3A00000000000000000D1');
    assert.deepEqual(chunk.lidPnMappings, [{ lid: `${CUSTOMER_LID}@lid`, pn: `${CUSTOMER}@s.whatsapp.net` }]);
    await (await open()).lidMapping.storeLIDPNMappings(chunk.lidPnMappings);
    const stored = (await keyRows(server, channel.id)).filter((k) => k.type === 'lid-mapping').map((k) => k.keyId);
    assert.deepEqual(stored.sort(), [CUSTOMER, `${CUSTOMER_LID}_reverse`].sort());
    // A new repository (a restart: nothing in memory) finds the phone of the privacy id.
    assert.equal(await (await open()).lidMapping.getPNForLID(`${CUSTOMER_LID}@lid`), `${CUSTOMER}:0@s.whatsapp.net`);
  });

  test("a chunk's contacts link their privacy id and name to the CRM's contact; old messages only with import_history", async () => {
    const { server } = ctx;
    const channel = await pairedChannel(ctx, '4915100000503');
    // The customer is a contact already (wrote before, by phone).
    channel.socket.receiveText(CUSTOMER, 'hi', '3A00000000000000000E0');
    const contactId = await eventually('the contact', async () => {
      const list = (await request(server, 'GET', `/v1/messages?channel_id=${channel.id}&direction=inbound`, { key: server.apiKey })).body
        .data;
      return list[0]?.contact_id as string | undefined;
    });
    channel.socket.emit('messaging-history.set', chunkOf(Sync.INITIAL_BOOTSTRAP, 'from last week', '3A00000000000000000E1'));
    await eventually('the privacy id linked', async () => {
      const identities = (await request(server, 'GET', `/v1/contacts/${contactId}/identities`, { key: server.apiKey })).body.data as Array<{
        type: string;
        value: string;
      }>;
      return identities.some((i) => i.type === 'linked_id' && i.value === CUSTOMER_LID);
    });
    const inbound = async () =>
      (await request(server, 'GET', `/v1/messages?channel_id=${channel.id}&direction=inbound`, { key: server.apiKey })).body.data as Array<{
        provider_message_id: string;
        content: { body?: string };
      }>;
    assert.deepEqual(
      (await inbound()).map((m) => m.provider_message_id),
      ['3A00000000000000000E0'],
      'no old message imported by default',
    );

    const patched = await request(server, 'PATCH', `/v1/channels/${channel.id}`, {
      key: server.apiKey,
      body: { settings: { import_history: true } },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.data.settings.import_history, true);
    channel.socket.emit('messaging-history.set', chunkOf(Sync.RECENT, 'from the day before', '3A00000000000000000E2'));
    const imported = await eventually('the old message imported', async () =>
      (await inbound()).find((m) => m.provider_message_id === '3A00000000000000000E2'),
    );
    assert.equal(imported.content.body, 'from the day before');

    const bad = await request(server, 'PATCH', `/v1/channels/${channel.id}`, {
      key: server.apiKey,
      body: { settings: { import_history: 'yes' } },
    });
    assert.equal(bad.status, 400, bad.text);
    assert.ok(
      bad.body.errors.some((e: { pointer: string }) => e.pointer === '/settings/import_history'),
      JSON.stringify(bad.body.errors),
    );
  });
});
