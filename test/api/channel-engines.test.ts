/**
 * Which engine serves a channel, as the API shows it: `engine` on the record and in the list (the
 * channel's settings decide: the official API, the embedded linked-device engine, an HTTP gateway of
 * the user's own, or the built-in sandbox), in the OpenAPI document; and the capabilities of that
 * engine: each message type native, simplified (sent as text) or answered from Parley's own records.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ worker: true });
});
after(() => server.close());

const key = () => server.apiKey;

async function create(body: Record<string, unknown>) {
  const res = await request(server, 'POST', '/v1/channels', { key: key(), body });
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

/** One channel of each engine. */
async function channelsOfEachEngine() {
  const number = await server.container.sandbox!.provisionOfficialNumber(server.container.database.db);
  return {
    official: await create({
      platform: 'chatapp_official',
      name: 'Own number',
      settings: { phone_number_id: number.phoneNumberId, api_base: number.apiBase, waba_id: number.wabaId },
      credentials: { access_token: number.accessToken },
    }),
    officialSandbox: await create({ platform: 'chatapp_official', name: 'Try-out official' }),
    embedded: await create({ platform: 'chatapp_unofficial', name: 'Shop phone' }),
    // A gateway of the user's own (nothing is called until connect): a closed loopback port.
    httpGateway: await create({
      platform: 'chatapp_unofficial',
      name: 'Field team',
      settings: { gateway_base: 'http://127.0.0.1:9' },
      credentials: { api_key: 'gw-key' },
    }),
    gatewaySandbox: await create({ platform: 'chatapp_unofficial', name: 'Try-out gateway', sandbox: true }),
  };
}

test('a channel names its engine: in the record, the list and the OpenAPI document', async () => {
  const made = await channelsOfEachEngine();
  const expected: Record<string, string> = {
    [made.official.id]: 'official',
    [made.officialSandbox.id]: 'sandbox',
    [made.embedded.id]: 'embedded',
    [made.httpGateway.id]: 'http_gateway',
    [made.gatewaySandbox.id]: 'sandbox',
  };
  for (const channel of Object.values(made)) assert.equal(channel.engine, expected[channel.id], `${channel.name} as created`);
  for (const id of Object.keys(expected)) {
    const one = await request(server, 'GET', `/v1/channels/${id}`, { key: key() });
    assert.equal(one.body.data.engine, expected[id], one.text);
  }
  const list = await request(server, 'GET', '/v1/channels?limit=100', { key: key() });
  const listed = Object.fromEntries(list.body.data.map((c: { id: string; engine: string }) => [c.id, c.engine]));
  for (const id of Object.keys(expected)) assert.equal(listed[id], expected[id]);

  const doc = (await request(server, 'GET', '/v1/openapi.json')).body;
  const schema = doc.components.schemas.Channel;
  assert.ok(schema.required.includes('engine'));
  assert.deepEqual([...schema.properties.engine.enum].sort(), ['embedded', 'http_gateway', 'official', 'sandbox']);
  assert.match(schema.properties.engine.description, /embedded/);
  assert.ok(doc.components.schemas.ChannelCapabilities.properties.engine);
});

test("capabilities are the channel's engine's: the embedded engine lists what it sends as text as simplified, and what Parley answers itself", async () => {
  const made = await channelsOfEachEngine();
  const caps = async (id: string) => {
    const res = await request(server, 'GET', `/v1/channels/${id}/capabilities`, { key: key() });
    assert.equal(res.status, 200, res.text);
    return res.body.data as Record<string, unknown> & {
      engine: string;
      message_types: string[];
      native_types: string[];
      simplified_types: string[];
      parley_types: string[];
    };
  };

  const embedded = await caps(made.embedded.id);
  assert.equal(embedded.engine, 'embedded');
  for (const type of ['single_product', 'multi_product', 'catalog', 'address', 'location_request', 'buttons', 'template']) {
    assert.ok(embedded.simplified_types.includes(type), `${type} is sent as text`);
    assert.ok(!embedded.native_types.includes(type), `${type} is not native`);
  }
  assert.deepEqual([...embedded.parley_types].sort(), ['message_media_download', 'message_status_query']);
  for (const type of ['text', 'image', 'poll', 'reaction', 'edit_message']) assert.ok(embedded.native_types.includes(type), type);

  const http = await caps(made.httpGateway.id);
  assert.equal(http.engine, 'http_gateway');
  assert.deepEqual(http.parley_types, [], 'the gateway answers its own queries');
  assert.ok(http.native_types.includes('message_status_query'));
  assert.ok(!http.simplified_types.includes('single_product'));

  const official = await caps(made.official.id);
  assert.equal(official.engine, 'official');
  assert.deepEqual(official.simplified_types, []);
  assert.deepEqual(official.parley_types, []);
  assert.deepEqual(official.native_types, official.message_types);
  assert.equal((await caps(made.officialSandbox.id)).engine, 'sandbox');
  assert.equal((await caps(made.gatewaySandbox.id)).engine, 'sandbox');

  // Every type the channel takes is exactly one of native, simplified or Parley's.
  for (const c of [embedded, http, official]) {
    const parts = [...c.native_types, ...c.simplified_types, ...c.parley_types].sort();
    assert.deepEqual(parts, [...c.message_types].sort(), `${c.engine}: the three lists partition message_types`);
  }
});
