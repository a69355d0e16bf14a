/** Suppressions and consent take effect on POST /v1/messages; inbound senders become contacts. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { movableClock, request, startTestServer, type TestServer } from '../harness.ts';
import { approvedTemplate, customerWrites, officialChannel, pairedGatewayChannel, send } from '../messages-helpers.ts';

let server: TestServer;
/** The server's clock, moved forward by hand: suppressions lapse by it. */
const clock = movableClock();
let gateway: { id: string };
before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '50' }, clock });
  gateway = await pairedGatewayChannel(server);
});
after(() => server.close());

async function contactWith(phone: string): Promise<string> {
  const res = await request(server, 'POST', '/v1/contacts', { key: server.apiKey, body: { phone_number: phone, name: 'Policy test' } });
  assert.ok(res.status === 201 || res.status === 200, res.text);
  return res.body.data.id;
}

test('a contact suppressed on the channel (or on all) is refused with the reason; an expired suppression is not', async () => {
  const id = await contactWith('+4915112350001');
  const text = { channel_id: gateway.id, to: '4915112350001', type: 'text', content: { body: 'hi' } };
  assert.equal((await send(server, text)).status, 201);

  const suppress = await request(server, 'POST', `/v1/contacts/${id}/suppressions`, {
    key: server.apiKey,
    body: { channel: gateway.id, reason: 'asked us to stop' },
  });
  assert.ok(suppress.status === 201, suppress.text);
  const refused = await send(server, text);
  assert.equal(refused.status, 422, refused.text);
  assert.equal(refused.body.code, 'send_refused');
  assert.match(refused.body.detail, /suppress/i);
  assert.equal(refused.body.reason, 'suppressed');

  const other = await contactWith('+4915112350002');
  await request(server, 'POST', `/v1/contacts/${other}/suppressions`, {
    key: server.apiKey,
    body: { channel: 'all', reason: 'legal hold' },
  });
  assert.equal((await send(server, { ...text, to: '4915112350002' })).status, 422);

  const lapsing = await contactWith('+4915112350003');
  await request(server, 'POST', `/v1/contacts/${lapsing}/suppressions`, {
    key: server.apiKey,
    body: { channel: 'chatapp', reason: 'cool-off', expires_at: new Date(clock.now().getTime() + 1500).toISOString() },
  });
  assert.equal((await send(server, { ...text, to: '4915112350003' })).status, 422);
  clock.advance(1600);
  assert.equal((await send(server, { ...text, to: '4915112350003' })).status, 201, 'the suppression lapsed');
});

test('revoked consent refuses messages, templates included; granting it again allows them', async () => {
  const channel = await officialChannel(server, 'Consent');
  const template = await approvedTemplate(server, channel.id, 'consent_check');
  const id = await contactWith('+4915112350010');
  const body = {
    channel_id: channel.id,
    to: '4915112350010',
    type: 'template',
    content: { template: { ...template, components: [{ type: 'body', parameters: [{ type: 'text', text: 'x' }] }] } },
  };
  assert.equal((await send(server, body)).status, 201);
  const revoke = await request(server, 'PUT', `/v1/contacts/${id}/consent/chatapp`, {
    key: server.apiKey,
    body: { state: 'revoked', source: 'replied STOP' },
  });
  assert.ok(revoke.status === 201 || revoke.status === 200, revoke.text);
  const refused = await send(server, body);
  assert.equal(refused.status, 422);
  assert.equal(refused.body.reason, 'consent_revoked');
  await request(server, 'PUT', `/v1/contacts/${id}/consent/chatapp`, {
    key: server.apiKey,
    body: { state: 'granted', source: 'opted in again' },
  });
  assert.equal((await send(server, body)).status, 201);
});

test('an inbound sender becomes a contact, found by phone, and its messages carry the contact id', async () => {
  const messageId = await customerWrites(server, gateway.id, '4915112350020', 'text', { body: 'new customer here' });
  const message = (await request(server, 'GET', `/v1/messages/${messageId}`, { key: server.apiKey })).body.data;
  assert.ok(message.contact_id, 'the inbound message is linked to a contact');
  const contact = await request(server, 'GET', `/v1/contacts/phone/${encodeURIComponent('+49 151 12350020')}`, { key: server.apiKey });
  assert.equal(contact.status, 200, contact.text);
  assert.equal(contact.body.data.id, message.contact_id);
  const reply = await send(server, { channel_id: gateway.id, to: '4915112350020', type: 'text', content: { body: 'welcome' } });
  assert.equal(reply.body.data.contact_id, message.contact_id);
});
