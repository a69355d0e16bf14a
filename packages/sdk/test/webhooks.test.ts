// verifyWebhook against the service's real deliveries: an endpoint pointed at a local receiver (its
// secret from the API), a test send and a live event verified as received; a changed body, a wrong
// secret, a timestamp outside the tolerance and missing headers refused; both secrets during a rotation.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Parley, verifyWebhook, WebhookVerificationError } from '@parley/sdk';
import { eventually } from '../../../test/eventually.ts';
import { startTestServer, type TestServer } from '../../../test/harness.ts';
import { startReceiver, type Receiver, type ReceivedRequest } from '../../../test/webhook-receiver.ts';

let server: TestServer;
let receiver: Receiver;
let parley: Parley;
let endpointId: string;
let secret: string;
before(async () => {
  server = await startTestServer({ worker: true });
  receiver = await startReceiver();
  parley = new Parley({ baseUrl: server.baseUrl, apiKey: server.apiKey });
  const endpoint = await parley.webhooks.createEndpoint({ body: { url: receiver.url } });
  endpointId = endpoint.data.id;
  secret = (await parley.webhooks.getEndpointSecret({ endpointID: endpointId })).data.secret;
  server.registerSensitive('a webhook secret', secret);
});
after(async () => {
  await receiver?.close();
  await server?.close();
});

/** The next delivery the receiver gets after sending. */
async function nextDelivery(send: () => Promise<unknown>, eventType?: string): Promise<ReceivedRequest> {
  const seen = receiver.requests.length;
  await send();
  return eventually('the delivery', () =>
    receiver.requests.slice(seen).find((r) => eventType === undefined || r.headers['webhook-event-type'] === eventType),
  );
}

const rejects = (fn: () => unknown, reason: RegExp) =>
  assert.throws(fn, (err: unknown) => err instanceof WebhookVerificationError && reason.test(err.message));

test('a test send and a live event verify as received, headers as a record or as Headers, the body as text or bytes', async () => {
  const tested = await nextDelivery(() =>
    parley.webhooks.testEndpoint({ endpointID: endpointId, body: { event_type: 'message.status_update' } }),
  );
  assert.deepEqual(verifyWebhook(tested.body, tested.headers, secret), JSON.parse(tested.body));

  const contact = (await parley.contacts.upsert({ body: { phone_number: '+15550500001', name: 'Hook 0' } })).data;
  const live = await nextDelivery(() => parley.contacts.update({ contactID: contact.id, body: { name: 'Hook 1' } }), 'contact.updated');
  const headers = new Headers();
  for (const [name, value] of Object.entries(live.headers)) if (typeof value === 'string') headers.set(name, value);
  const event = verifyWebhook<{ contact_id: string; name: string }>(new TextEncoder().encode(live.body), headers, secret);
  assert.equal(event.contact_id, contact.id);
  assert.equal(event.name, 'Hook 1');

  // Frameworks that drop unknown standard names keep Parley's copies: they verify as well.
  const copies = Object.fromEntries(Object.entries(live.headers).filter(([name]) => !name.startsWith('webhook-')));
  assert.deepEqual(verifyWebhook(live.body, copies, secret), JSON.parse(live.body));
});

test('a changed body, a wrong secret, a timestamp outside the tolerance and missing headers are refused', async () => {
  const delivery = await nextDelivery(() => parley.webhooks.testEndpoint({ endpointID: endpointId }));
  const sentAt = Number(delivery.headers['webhook-timestamp']);
  rejects(() => verifyWebhook(delivery.body.replace(/}$/, ',"extra":true}'), delivery.headers, secret), /no signature matches/);
  const other = await parley.webhooks.createEndpoint({ body: { url: `${receiver.url}/other` } });
  const otherSecret = (await parley.webhooks.getEndpointSecret({ endpointID: other.data.id })).data.secret;
  server.registerSensitive('a webhook secret', otherSecret);
  rejects(() => verifyWebhook(delivery.body, delivery.headers, otherSecret), /no signature matches/);
  rejects(() => verifyWebhook(delivery.body, delivery.headers, 'not a secret'), /no signature matches|not a webhook secret/);

  // The receiver's clock, 5 minutes and a second after the send (the default tolerance), and before it.
  rejects(() => verifyWebhook(delivery.body, delivery.headers, secret, { now: new Date((sentAt + 301) * 1000) }), /too old/);
  rejects(() => verifyWebhook(delivery.body, delivery.headers, secret, { now: new Date((sentAt - 301) * 1000) }), /future/);
  assert.ok(verifyWebhook(delivery.body, delivery.headers, secret, { now: new Date((sentAt + 299) * 1000) }));
  // A tolerance of the receiver's own.
  rejects(
    () => verifyWebhook(delivery.body, delivery.headers, secret, { now: new Date((sentAt + 11) * 1000), toleranceSeconds: 10 }),
    /too old/,
  );
  assert.ok(verifyWebhook(delivery.body, delivery.headers, secret, { now: new Date((sentAt + 3600) * 1000), toleranceSeconds: 7200 }));

  const { 'webhook-signature': _, 'x-parley-webhook-signature': __, ...unsigned } = delivery.headers;
  rejects(() => verifyWebhook(delivery.body, unsigned, secret), /missing/);
});

test('during a rotation each delivery verifies with the new secret and with the old one', async () => {
  const rotation = await parley.webhooks.rotateEndpointSecret({ endpointID: endpointId });
  const fresh = rotation.data.secret;
  server.registerSensitive('a webhook secret', fresh);
  const delivery = await nextDelivery(() => parley.webhooks.testEndpoint({ endpointID: endpointId }));
  assert.equal(String(delivery.headers['webhook-signature']).split(' ').length, 2);
  assert.ok(verifyWebhook(delivery.body, delivery.headers, fresh));
  assert.ok(verifyWebhook(delivery.body, delivery.headers, secret));
});
