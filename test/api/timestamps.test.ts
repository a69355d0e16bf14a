/**
 * Times in bodies and queries that the ISO format allows but the database cannot hold (year 0, or
 * year 10000 once the offset is applied) are refused as invalid on every route that takes one,
 * instead of reaching the database and answering 500. Found by the contract fuzzer.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

test('out-of-range times are a 400 naming the field on every route that takes a time; the edges of the range are accepted', async () => {
  const key = server.apiKey;
  const contact = await request(server, 'POST', '/v1/contacts', { key, body: { phone_number: '+4915112345678', name: 'Timely' } });
  assert.equal(contact.status, 201, contact.text);
  const id = contact.body.data.id as string;
  const routes = (t: string) => {
    const q = encodeURIComponent(t);
    return [
      ['PUT', `/v1/contacts/${id}/consent/all`, { state: 'granted', at: t }],
      ['POST', `/v1/contacts/${id}/suppressions`, { channel: 'all', reason: 'r', expires_at: t }],
      ['POST', '/v1/api-keys', { name: 'timely', permissions: ['messages:read'], expires_at: t }],
      ['GET', `/v1/events?since=${q}`],
      ['GET', `/v1/messages?created_after=${q}`],
      ['GET', `/v1/messages?created_before=${q}`],
      ['GET', `/v1/contacts?updated_after=${q}`],
      ['GET', `/v1/settings/developer/webhooks/deliveries?since=${q}`],
      ['GET', `/v1/settings/developer/webhooks/deliveries?until=${q}`],
    ] as const;
  };
  for (const t of ['0000-02-29T21:57:17Z', '0001-01-01T00:00:00+23:59', '9999-12-31T23:59:59-23:59']) {
    for (const [method, path, body] of routes(t)) {
      const res = await request(server, method, path, { key, body });
      assert.equal(res.status, 400, `${method} ${path} with ${t}: ${res.text}`);
      assert.match(JSON.stringify(res.body), /years 0001 and 9999/, `${method} ${path} says why`);
    }
  }
  // The earliest instant is storable: accepted where the past is allowed.
  assert.equal((await request(server, 'GET', `/v1/events?since=${encodeURIComponent('0001-01-01T00:00:00Z')}`, { key })).status, 200);
  assert.equal(
    (await request(server, 'PUT', `/v1/contacts/${id}/consent/all`, { key, body: { state: 'granted', at: '0001-01-01T00:00:00Z' } }))
      .status,
    201,
  );
  assert.equal(
    (await request(server, 'GET', `/v1/contacts?updated_after=${encodeURIComponent('9999-12-31T23:59:59Z')}`, { key })).status,
    200,
  );
});
