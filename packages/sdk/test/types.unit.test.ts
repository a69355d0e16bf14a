// The SDK's types, checked by the type check (npm run typecheck): each method's argument and answer come
// from the generated OpenAPI types by operationId. The functions below are compiled, never called.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PagePromise, Parley, type ArgsOf, type ParleyEvent, type ResultOf } from '@parley/sdk';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const holds = <T extends true>(_: T) => undefined;

export async function typed(parley: Parley) {
  const _message = await parley.messages.get({ messageID: 'x' });
  holds<Equal<typeof _message.data.id, string>>(true);
  const _page = await parley.messages.list({ channel_id: 'c', limit: 5 });
  holds<Equal<typeof _page.meta.next_cursor, string | null>>(true);
  for await (const _item of parley.messages.list()) holds<Equal<typeof _item, (typeof _page.data)[number]>>(true);
  await parley.messages.send({ body: { channel_id: 'c', to: '1', type: 'text', content: { body: 'hi' } } });
  // @ts-expect-error messageID is required
  await parley.messages.get({});
  // @ts-expect-error the body is required
  await parley.messages.send({});
  // @ts-expect-error an unknown query parameter
  await parley.messages.list({ channel: 'c' });
  holds<Equal<Awaited<ReturnType<Parley['channels']['delete']>>, undefined>>(true);
  holds<Equal<ResultOf<'downloadMessageMedia'>, Blob>>(true);
  holds<Equal<ArgsOf<'getMessage'>['messageID'], string>>(true);
  // A body the document marks optional may be left out.
  await parley.webhooks.testEndpoint({ endpointID: 'x' });
  // A CSV import takes its text.
  await parley.contacts.importContacts({ body: 'phone_number,name\n+4930123,Ana' });
  // The OAuth token endpoint takes its form's fields.
  await parley.oauth.getToken({ body: { grant_type: 'refresh_token', refresh_token: 'r', client_id: 'c' } });
  // Operations left out of the groups are reachable by operationId.
  await parley.request('logIn', { body: { email: 'a@example.com', password: 'b' } });
  for await (const _event of parley.events.stream({ types: ['message.new'] })) holds<Equal<typeof _event, ParleyEvent>>(true);
}

test('the client is built from the table: each group a set of methods, lists answering a PagePromise', () => {
  const parley = new Parley({ baseUrl: 'http://127.0.0.1:9', apiKey: 'prl_x' });
  assert.equal(typeof parley.messages.send, 'function');
  assert.equal(typeof parley.events.stream, 'function');
  assert.ok(parley.channels.list() instanceof PagePromise, 'nothing is sent until it is awaited or iterated');
  assert.throws(() => new Parley({ baseUrl: '' }), /baseUrl is required/);
});
