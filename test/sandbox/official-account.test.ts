import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import type { SandboxOfficialNumber } from '../../src/sandbox/contract.ts';
import { createKeyWith, request, startTestServer, type TestServer } from '../harness.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { webhookProblems } from '../providers/official-webhooks.schema.ts';
import { hmacHex, insertSandboxChannel, startReceiver, statusesOf, type Received, type Receiver } from './receiver.ts';

let server: TestServer;
let receiver: Receiver;
let number: SandboxOfficialNumber;
/** A channel bound to `number`, as channel creation makes them. */
let channelId: string;

before(async () => {
  receiver = await startReceiver();
  server = await startTestServer({ env: { SANDBOX_OFFICIAL_WEBHOOK_URL: receiver.url, SANDBOX_STATUS_DELAY_MS: '50' }, worker: true });
  number = await server.container.sandbox!.provisionOfficialNumber(server.container.database.db);
  channelId = await insertSandboxChannel(server, { platform: 'chatapp_official', providerRef: number.phoneNumberId });
});
after(async () => {
  await server.close();
  await receiver.close();
});

const path = (suffix: string) => `/sandbox/official/${number.apiVersion}/${suffix}`;
const call = (method: string, suffix: string, body?: unknown, bearer = number.accessToken) =>
  request(server, method, path(suffix), { bearer, body });

function changesOf(received: Received[], field: string): Array<{ delivery: Received; value: Record<string, any> }> {
  return received.flatMap((delivery) =>
    (delivery.json?.entry ?? []).flatMap((e: any) =>
      (e.changes ?? []).filter((c: any) => c.field === field).map((c: any) => ({ delivery, value: c.value })),
    ),
  );
}

function assertSigned(delivery: Received) {
  const secret = server.container.sandbox!.officialAppSecret;
  assert.equal(delivery.headers['x-hub-signature-256'], `sha256=${hmacHex(secret, delivery.raw)}`);
}

test('templates: submit answers PENDING, then APPROVED or REJECTED arrives as a signed webhook, and the list shows the decision', async () => {
  const body = (name: string) => ({
    name,
    language: 'en_US',
    category: 'UTILITY',
    components: [{ type: 'BODY', text: 'Your order {{1}} ships on {{2}}.', example: { body_text: [['42', 'Monday']] } }],
  });
  const approved = await call('POST', `${number.wabaId}/message_templates`, body('order_update'));
  assert.equal(approved.status, 200, approved.text);
  assert.equal(approved.body.status, 'PENDING');
  assert.equal(approved.body.category, 'UTILITY');
  assert.match(approved.body.id, /^\d+$/);
  const rejected = await call('POST', `${number.wabaId}/message_templates`, body('reject_me'));
  assert.equal(rejected.status, 200);

  const duplicate = await call('POST', `${number.wabaId}/message_templates`, body('order_update'));
  assert.equal(duplicate.status, 400);
  assert.equal(duplicate.body.error.code, 100);
  for (const bad of [
    { ...body('Bad Name'), name: 'Bad Name' },
    { ...body('x'), category: 'SPAM' },
    { ...body('x'), components: [] },
    { ...body('x'), components: [{ type: 'FOOTER', text: 'no body' }] },
  ]) {
    const res = await call('POST', `${number.wabaId}/message_templates`, bad);
    assert.equal(res.status, 400, JSON.stringify(bad));
    assert.equal(res.body.error.code, 100);
  }

  const all = await receiver.waitFor((r) => changesOf(r, 'message_template_status_update').length >= 2);
  const updates = changesOf(all, 'message_template_status_update');
  const byName = Object.fromEntries(updates.map((u) => [u.value.message_template_name, u]));
  assert.equal(byName.order_update!.value.event, 'APPROVED');
  assert.equal(byName.order_update!.value.message_template_id, Number(approved.body.id));
  assert.equal(byName.order_update!.value.message_template_language, 'en_US');
  assert.equal(byName.reject_me!.value.event, 'REJECTED');
  assert.equal(byName.reject_me!.value.reason, 'INVALID_FORMAT');
  for (const update of updates) {
    assertSigned(update.delivery);
    assert.equal(update.delivery.json.object, 'whatsapp_business_account');
    assert.equal(update.delivery.json.entry[0].id, number.wabaId);
  }

  const list = await call('GET', `${number.wabaId}/message_templates`);
  assert.equal(list.status, 200);
  const listed = Object.fromEntries(list.body.data.map((t: any) => [t.name, t]));
  assert.equal(listed.order_update.status, 'APPROVED');
  assert.equal(listed.order_update.id, approved.body.id);
  assert.equal(listed.reject_me.status, 'REJECTED');
  assert.equal(listed.reject_me.rejected_reason, undefined, 'like the provider, rejected_reason only when asked for');
  assert.deepEqual(listed.order_update.components, body('x').components);
  const withReason = await call('GET', `${number.wabaId}/message_templates?fields=name,status,rejected_reason`);
  assert.equal(withReason.status, 200, withReason.text);
  const reasons = Object.fromEntries(withReason.body.data.map((t: any) => [t.name, t]));
  assert.deepEqual(reasons.reject_me, {
    id: listed.reject_me.id,
    name: 'reject_me',
    status: 'REJECTED',
    rejected_reason: 'INVALID_FORMAT',
  });
  assert.equal(reasons.order_update.rejected_reason, 'NONE');
  const unknownField = await call('GET', `${number.wabaId}/message_templates?fields=name,secret_sauce`);
  assert.equal(unknownField.status, 400);
  assert.equal(unknownField.body.error.code, 100);

  const firstPage = await call('GET', `${number.wabaId}/message_templates?limit=1`);
  assert.equal(firstPage.body.data.length, 1);
  assert.ok(firstPage.body.paging.next);
  const secondPage = await call('GET', `${number.wabaId}/message_templates?limit=1&after=${firstPage.body.paging.cursors.after}`);
  assert.equal(secondPage.body.data.length, 1);
  assert.notEqual(secondPage.body.data[0].id, firstPage.body.data[0].id);
  assert.equal(secondPage.body.paging.next, undefined);

  const foreign = await server.container.sandbox!.provisionOfficialNumber(server.container.database.db);
  const denied = await call('GET', `${number.wabaId}/message_templates`, undefined, foreign.accessToken);
  assert.equal(denied.status, 400);
  assert.equal(denied.body.error.error_subcode, 33);
});

test('template sends: an approved template with the right parameters is accepted (even where the window is closed); others are refused', async () => {
  const send = (template: unknown, to = '15551234567') =>
    call('POST', `${number.phoneNumberId}/messages`, { messaging_product: 'whatsapp', to, type: 'template', template });
  const params = (n: number) => [{ type: 'body', parameters: Array.from({ length: n }, (_, i) => ({ type: 'text', text: `p${i}` })) }];
  const ok = await send({ name: 'order_update', language: { code: 'en_US' }, components: params(2) }, '15557770002');
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.body.messages[0].message_status, 'accepted');
  const missing = await send({ name: 'no_such_template', language: { code: 'en_US' } });
  assert.equal(missing.body.error.code, 132001);
  const rejected = await send({ name: 'reject_me', language: { code: 'en_US' }, components: params(2) });
  assert.equal(rejected.body.error.code, 132001);
  const wrongLanguage = await send({ name: 'order_update', language: { code: 'de' }, components: params(2) });
  assert.equal(wrongLanguage.body.error.code, 132001);
  const wrongCount = await send({ name: 'order_update', language: { code: 'en_US' }, components: params(1) });
  assert.equal(wrongCount.status, 400);
  assert.equal(wrongCount.body.error.code, 132000);
  const id = ok.body.messages[0].id as string;
  const statuses = statusesOf(await receiver.waitFor((r) => statusesOf(r, id).length >= 1), id);
  assert.equal(statuses[0]!.pricing.category, 'utility');
});

test("the provider's later word on a template: /sandbox/template-event moves the sandbox's template and sends the documented webhook", async () => {
  const made = await call('POST', `${number.wabaId}/message_templates`, {
    name: 'later_word',
    language: 'en_US',
    category: 'UTILITY',
    components: [{ type: 'BODY', text: 'Hello {{1}}', example: { body_text: [['Ana']] } }],
  });
  assert.equal(made.status, 200, made.text);
  await receiver.waitFor((r) => changesOf(r, 'message_template_status_update').some((c) => c.value.message_template_name === 'later_word'));
  const statusOf = async () => (await call('GET', `${number.wabaId}/message_templates?name=later_word`)).body.data[0].status as string;
  const report = async (event: string, extra: Record<string, unknown> = {}) => {
    const seen = changesOf(receiver.received, 'message_template_status_update').length;
    const res = await request(server, 'POST', '/sandbox/template-event', {
      key: server.apiKey,
      body: { channel_id: channelId, name: 'later_word', language: 'en_US', event, ...extra },
    });
    assert.equal(res.status, 202, res.text);
    const all = await receiver.waitFor((r) => changesOf(r, 'message_template_status_update').length > seen);
    const update = changesOf(all, 'message_template_status_update').at(-1)!;
    assertSigned(update.delivery);
    assert.deepEqual(webhookProblems(update.delivery.json), [], update.delivery.raw);
    assert.equal(update.value.event, event);
    assert.equal(update.value.message_template_id, Number(made.body.id));
    assert.equal(res.body.status, await statusOf(), 'the answer is what the template list now shows');
    return update.value;
  };
  const paused = await report('PAUSED', { other_info: { title: 'FIRST_PAUSE', description: 'Paused for 3 hours.' } });
  assert.deepEqual(paused.other_info, { title: 'FIRST_PAUSE', description: 'Paused for 3 hours.' });
  assert.equal(await statusOf(), 'PAUSED');
  await report('FLAGGED');
  assert.equal(await statusOf(), 'PAUSED', 'a flag leaves the status');
  await report('REINSTATED');
  assert.equal(await statusOf(), 'APPROVED');
  await report('ARCHIVED');
  assert.equal(await statusOf(), 'ARCHIVED');
  await report('UNARCHIVED');
  assert.equal(await statusOf(), 'APPROVED', 'unarchived, it is what it was');
  const disabled = await report('DISABLED', { disable_date: 1751234563 });
  assert.deepEqual(disabled.disable_info, { disable_date: 1751234563 });
  const rejected = await report('REJECTED', {
    reason: 'INVALID_FORMAT',
    rejection_info: { reason: 'Adjacent parameters.', recommendation: 'Add text.' },
  });
  assert.equal(rejected.reason, 'INVALID_FORMAT');
  assert.deepEqual(rejected.rejection_info, { reason: 'Adjacent parameters.', recommendation: 'Add text.' });

  const refused = (body: Record<string, unknown>) =>
    request(server, 'POST', '/sandbox/template-event', {
      key: server.apiKey,
      body: { channel_id: channelId, name: 'later_word', language: 'en_US', ...body },
    });
  const unknown = await refused({ event: 'SUNSET' });
  assert.equal(unknown.status, 400);
  assert.match(unknown.body.error.message, /event must be one the provider documents/);
  assert.equal((await refused({ event: 'DISABLED', disable_date: 'soon' })).status, 400);
  assert.equal((await refused({ event: 'PAUSED', name: 'no_such_template' })).status, 404);
  assert.equal((await refused({ event: 'PAUSED', channel_id: uuidv7() })).status, 404);
  const readOnly = await createKeyWith(server, ['templates:read']);
  assert.equal(
    (await request(server, 'POST', '/sandbox/template-event', { key: readOnly, body: { channel_id: channelId, event: 'PAUSED' } })).status,
    403,
  );
});

test('a customer message through /sandbox/inbound arrives as a signed native webhook, and can be marked read', async () => {
  const res = await request(server, 'POST', '/sandbox/inbound', {
    key: server.apiKey,
    body: { channel_id: channelId, from: '15551239876', type: 'text', content: { body: 'Hi, is my order ready?' }, name: 'Ada' },
  });
  assert.equal(res.status, 202, res.text);
  const id = res.body.provider_message_id as string;
  assert.match(id, /^wamid\./);
  const [found] = changesOf(
    await receiver.waitFor((r) => changesOf(r, 'messages').some((c) => c.value.messages?.[0]?.id === id)),
    'messages',
  ).filter((c) => c.value.messages?.[0]?.id === id);
  assertSigned(found!.delivery);
  assert.equal(found!.delivery.json.entry[0].id, number.wabaId);
  const value = found!.value;
  assert.deepEqual(value.metadata, { display_phone_number: number.displayPhoneNumber.slice(1), phone_number_id: number.phoneNumberId });
  assert.deepEqual(value.contacts, [{ profile: { name: 'Ada' }, wa_id: '15551239876' }]);
  const message = value.messages[0];
  assert.equal(message.from, '15551239876');
  assert.equal(message.type, 'text');
  assert.deepEqual(message.text, { body: 'Hi, is my order ready?' });
  assert.match(message.timestamp, /^\d{10}$/);

  const read = await call('POST', `${number.phoneNumberId}/messages`, { messaging_product: 'whatsapp', status: 'read', message_id: id });
  assert.equal(read.status, 200);
  assert.deepEqual(read.body, { success: true });
  const rows = await queryRows<{ status: string }>(server.container.database.db, sql`select status from sandbox_messages where id = ${id}`);
  assert.equal(rows[0]!.status, 'read');
});

test('inbound interactive replies, locations and images have the native shapes; the image is fetchable', async () => {
  const post = (type: string, content: unknown, extra: Record<string, unknown> = {}) =>
    request(server, 'POST', '/sandbox/inbound', {
      key: server.apiKey,
      body: { channel_id: channelId, from: '15551230055', type, content, ...extra },
    });
  const button = await post('interactive', { type: 'button_reply', id: 'yes', title: 'Yes' }, { reply_to: 'wamid.buttons' });
  const list = await post(
    'interactive',
    { type: 'list_reply', id: 'row-2', title: 'Second', description: 'Tomorrow morning' },
    { reply_to: 'wamid.list' },
  );
  const location = await post('location', { latitude: 52.52, longitude: 13.405, name: 'Office', address: 'Main St 1' });
  const image = await post('image', { caption: 'the receipt' });
  for (const res of [button, list, location, image]) assert.equal(res.status, 202, res.text);
  const ids = [button, list, location, image].map((r) => r.body.provider_message_id as string);
  const all = await receiver.waitFor((r) => ids.every((id) => changesOf(r, 'messages').some((c) => c.value.messages?.[0]?.id === id)));
  const messageOf = (id: string) => changesOf(all, 'messages').find((c) => c.value.messages?.[0]?.id === id)!.value.messages[0];

  const b = messageOf(ids[0]!);
  assert.equal(b.type, 'interactive');
  assert.deepEqual(b.interactive, { type: 'button_reply', button_reply: { id: 'yes', title: 'Yes' } });
  assert.deepEqual(b.context, { from: number.displayPhoneNumber.slice(1), id: 'wamid.buttons' });
  assert.deepEqual(messageOf(ids[1]!).interactive, {
    type: 'list_reply',
    list_reply: { id: 'row-2', title: 'Second', description: 'Tomorrow morning' },
  });
  assert.deepEqual(messageOf(ids[1]!).context, { from: number.displayPhoneNumber.slice(1), id: 'wamid.list' });
  assert.deepEqual(messageOf(ids[2]!).location, { latitude: 52.52, longitude: 13.405, name: 'Office', address: 'Main St 1' });
  const img = messageOf(ids[3]!);
  assert.equal(img.type, 'image');
  assert.equal(img.image.caption, 'the receipt');
  assert.equal(img.image.mime_type, 'image/png');
  assert.match(img.image.sha256, /^[0-9a-f]{64}$/);
  assert.match(img.image.id, /^\d+$/);

  const media = await call('GET', img.image.id);
  assert.equal(media.status, 200, media.text);
  assert.equal(media.body.mime_type, 'image/png');
  assert.equal(media.body.sha256, img.image.sha256);
  assert.equal(media.body.id, img.image.id);
  const download = await fetch(media.body.url);
  assert.equal(download.status, 200);
  assert.equal(download.headers.get('content-type'), 'image/png');
  const bytes = Buffer.from(await download.arrayBuffer());
  assert.equal(bytes.length, media.body.file_size);
  assert.deepEqual([...bytes.subarray(1, 4)].map((c) => String.fromCharCode(c)).join(''), 'PNG');
  const tampered = await fetch(media.body.url.replace(/signature=[0-9a-f]{4}/, 'signature=0000'));
  assert.equal(tampered.status, 404);

  const foreign = await server.container.sandbox!.provisionOfficialNumber(server.container.database.db);
  const denied = await call('GET', img.image.id, undefined, foreign.accessToken);
  assert.equal(denied.status, 400);
  assert.equal(denied.body.error.code, 100);
});

test('an interactive reply without reply_to answers the last interactive message sent to that customer; with none sent it is refused', async () => {
  const customer = '15551230066';
  const write = (type: string, content: unknown) =>
    request(server, 'POST', '/sandbox/inbound', { key: server.apiKey, body: { channel_id: channelId, from: customer, type, content } });
  const refused = await write('interactive', { type: 'button_reply', id: 'yes', title: 'Yes' });
  assert.equal(refused.status, 400, refused.text);
  assert.match(refused.body.error.message, /reply_to is required/);
  assert.equal((await write('text', { body: 'hi' })).status, 202);
  const asked = await call('POST', `${number.phoneNumberId}/messages`, {
    messaging_product: 'whatsapp',
    to: customer,
    type: 'interactive',
    interactive: {
      type: 'button',
      body: { text: 'Ship today?' },
      action: { buttons: [{ type: 'reply', reply: { id: 'yes', title: 'Yes' } }] },
    },
  });
  assert.equal(asked.status, 200, asked.text);
  const answer = await write('interactive', { type: 'button_reply', id: 'yes', title: 'Yes' });
  assert.equal(answer.status, 202, answer.text);
  const id = answer.body.provider_message_id as string;
  const [found] = changesOf(
    await receiver.waitFor((r) => changesOf(r, 'messages').some((c) => c.value.messages?.[0]?.id === id)),
    'messages',
  ).filter((c) => c.value.messages?.[0]?.id === id);
  assert.deepEqual(found!.value.messages[0].context, { from: number.displayPhoneNumber.slice(1), id: asked.body.messages[0].id });
  const description = await write('interactive', { type: 'button_reply', id: 'yes', title: 'Yes', description: 'only rows have one' });
  assert.equal(description.status, 400);
});

test('/sandbox/inbound refuses channels not bound to the sandbox exactly like unknown ids, and bad content', async () => {
  const unbound = await insertSandboxChannel(server, { platform: 'chatapp_official', providerRef: '999999999999999', sandbox: false });
  const refused = await request(server, 'POST', '/sandbox/inbound', {
    key: server.apiKey,
    body: { channel_id: unbound, from: '15551230000', type: 'text', content: { body: 'x' } },
  });
  assert.equal(refused.status, 404);
  assert.equal(refused.body.error.code, 'not_found');
  const unknown = await request(server, 'POST', '/sandbox/inbound', {
    key: server.apiKey,
    body: { channel_id: '0195b3c0-0000-7000-8000-000000000000', from: '15551230000', type: 'text', content: { body: 'x' } },
  });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.text, refused.text, 'a public door does not tell a real channel from an unknown one');
  for (const body of [
    { channel_id: channelId, from: 'someone', type: 'text', content: { body: 'x' } },
    { channel_id: channelId, from: '15551230000', type: 'text', content: { body: '' } },
    { channel_id: channelId, from: '15551230000', type: 'video', content: {} },
    { channel_id: channelId, from: '15551230000', type: 'interactive', content: { type: 'button_reply', id: 'x' } },
    { channel_id: channelId, from: '15551230000', type: 'location', content: { latitude: 100, longitude: 0 } },
  ]) {
    const res = await request(server, 'POST', '/sandbox/inbound', { key: server.apiKey, body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.error.code, 'invalid_request');
  }
});

test('registration answers like the provider; there is no contacts lookup, as in the published API', async () => {
  const lookup = await call('POST', `${number.phoneNumberId}/contacts`, {
    blocking: 'wait',
    contacts: ['+15551230000'],
    force_check: true,
  });
  assert.equal(lookup.status, 400, lookup.text);
  assert.equal(lookup.body.error.code, 2500, 'an unknown path, as the provider answers one');
  const badPin = await call('POST', `${number.phoneNumberId}/register`, { messaging_product: 'whatsapp', pin: '12' });
  assert.equal(badPin.body.error.code, 100);
  const register = await call('POST', `${number.phoneNumberId}/register`, { messaging_product: 'whatsapp', pin: '123456' });
  assert.deepEqual(register.body, { success: true });
});

test('embedded signup: code -> oauth/access_token -> debug_token -> phone_numbers -> subscribed_apps -> register, then sends work', async () => {
  const signup = await request(server, 'POST', '/sandbox/official/signup', { body: { display_phone_number: '+15550104242' } });
  assert.equal(signup.status, 200, signup.text);
  const { code, waba_id: wabaId, phone_number_id: phoneNumberId } = signup.body;
  assert.equal(typeof code, 'string');
  const secret = server.container.sandbox!.officialAppSecret;
  const exchange = (query: Record<string, string>) => request(server, 'GET', `${path('oauth/access_token')}?${new URLSearchParams(query)}`);

  const wrongSecret = await exchange({ client_id: 'app', client_secret: 'wrong', code });
  assert.equal(wrongSecret.status, 400);
  assert.equal(wrongSecret.body.error.type, 'OAuthException');
  const wrongCode = await exchange({ client_id: 'app', client_secret: secret, code: 'AQnot-a-code' });
  assert.equal(wrongCode.status, 400);
  assert.equal(wrongCode.body.error.code, 100);
  const missing = await exchange({ client_id: 'app', code });
  assert.equal(missing.body.error.code, 100);

  const exchanged = await exchange({ client_id: 'app', client_secret: secret, code });
  assert.equal(exchanged.status, 200, exchanged.text);
  assert.equal(exchanged.body.token_type, 'bearer');
  const token = exchanged.body.access_token as string;
  const again = await exchange({ client_id: 'app', client_secret: secret, code });
  assert.equal(again.status, 400, 'a code is good for one exchange only');

  const debug = await request(server, 'GET', `${path('debug_token')}?input_token=${encodeURIComponent(token)}`, { bearer: token });
  assert.equal(debug.status, 200);
  assert.equal(debug.body.data.is_valid, true);
  const management = debug.body.data.granular_scopes.find((g: any) => g.scope === 'whatsapp_business_management');
  assert.deepEqual(management.target_ids, [wabaId]);
  const appDebug = await request(
    server,
    'GET',
    `${path('debug_token')}?input_token=nonsense&access_token=${encodeURIComponent(`app|${secret}`)}`,
  );
  assert.equal(appDebug.body.data.is_valid, false);
  const unauthorized = await request(server, 'GET', `${path('debug_token')}?input_token=${encodeURIComponent(token)}`);
  assert.equal(unauthorized.status, 401);

  const numbers = await request(server, 'GET', path(`${wabaId}/phone_numbers`), { bearer: token });
  assert.equal(numbers.status, 200);
  assert.deepEqual(
    numbers.body.data.map((n: any) => [n.id, n.display_phone_number]),
    [[phoneNumberId, '+15550104242']],
  );
  const before = await request(server, 'POST', path(`${phoneNumberId}/messages`), {
    bearer: token,
    body: { messaging_product: 'whatsapp', to: '15551234567', type: 'text', text: { body: 'too early' } },
  });
  assert.equal(before.status, 400);
  assert.equal(before.body.error.code, 133010, 'a number sends only once registered');

  const subscribed = await request(server, 'POST', path(`${wabaId}/subscribed_apps`), { bearer: token });
  assert.deepEqual(subscribed.body, { success: true });
  const register = await request(server, 'POST', path(`${phoneNumberId}/register`), {
    bearer: token,
    body: { messaging_product: 'whatsapp', pin: '654321' },
  });
  assert.deepEqual(register.body, { success: true });

  const sent = await request(server, 'POST', path(`${phoneNumberId}/messages`), {
    bearer: token,
    body: { messaging_product: 'whatsapp', to: '15551234567', type: 'text', text: { body: 'welcome' } },
  });
  assert.equal(sent.status, 200, sent.text);
  const id = sent.body.messages[0].id as string;
  const statuses = statusesOf(await receiver.waitFor((r) => statusesOf(r, id).length >= 1), id);
  assert.equal(statuses[0]!.status, 'sent');
});

test('callbacks are jobs committed with the send: a worker that starts later delivers them', async () => {
  const late = await startReceiver();
  const idle = await startTestServer({ env: { SANDBOX_OFFICIAL_WEBHOOK_URL: late.url, SANDBOX_STATUS_DELAY_MS: '50' } });
  try {
    const n = await idle.container.sandbox!.provisionOfficialNumber(idle.container.database.db);
    const res = await request(idle, 'POST', `/sandbox/official/${n.apiVersion}/${n.phoneNumberId}/messages`, {
      bearer: n.accessToken,
      body: { messaging_product: 'whatsapp', to: '15551234567', type: 'text', text: { body: 'later' } },
    });
    assert.equal(res.status, 200);
    const id = res.body.messages[0].id as string;
    const jobs = await queryRows<{ state: string; data: Record<string, string> }>(
      idle.container.database.db,
      sql`select state::text as state, data from pgboss.job where name = 'sandbox.callback' and data->>'message_id' = ${id}`,
    );
    // Still waiting in the queue: nothing is sent without a worker.
    assert.deepEqual(
      jobs.map((j) => [j.state, j.data.status]),
      [['created', 'sent']],
    );
    assert.equal(late.received.length, 0, 'nothing is sent without a worker');
    await idle.container.queue.work(idle.container.jobHandlers());
    const statuses = statusesOf(await late.waitFor((r) => statusesOf(r, id).length >= 3), id);
    assert.deepEqual(
      statuses.map((s) => s.status),
      ['sent', 'delivered', 'read'],
    );
  } finally {
    await idle.close();
    await late.close();
  }
});

test('a refused webhook is retried until it is accepted', async () => {
  const to = '15550009999';
  receiver.refuseNext(1, (r) => r.raw.includes(`"recipient_id":"${to}"`));
  const res = await call('POST', `${number.phoneNumberId}/messages`, {
    messaging_product: 'whatsapp',
    to,
    type: 'text',
    text: { body: 'retry me' },
  });
  const id = res.body.messages[0].id as string;
  const statuses = statusesOf(await receiver.waitFor((r) => statusesOf(r, id).length >= 3, 40_000), id);
  assert.deepEqual(
    statuses.map((s) => s.status),
    ['sent', 'delivered', 'read'],
    'the steps stay in order across retries',
  );
  const refused = statusesOf(receiver.refused, id);
  assert.deepEqual(
    refused.map((s) => s.status),
    ['sent'],
    'the refused delivery was the first step',
  );
});

test('with PROVIDER_SANDBOX=false there is no sandbox and no /sandbox route', async () => {
  const off = await startTestServer({ env: { PROVIDER_SANDBOX: 'false' } });
  try {
    assert.equal(off.container.sandbox, undefined);
    for (const [method, url] of [
      ['POST', '/sandbox/inbound'],
      ['POST', '/sandbox/official/signup'],
      ['GET', `/sandbox/official/v21.0/${number.phoneNumberId}`],
      ['POST', '/sandbox/gateway/scan'],
    ] as const) {
      const res = await request(off, method, url, { body: method === 'POST' ? {} : undefined });
      assert.equal(res.status, 404, `${method} ${url}`);
      assert.equal(res.body.code, 'not_found', 'answered by Parley itself (problem body)');
    }
  } finally {
    await off.close();
  }
});

test("every webhook the sandbox sent has the provider's documented shape", () => {
  assert.ok(receiver.received.length > 5, 'earlier tests made the sandbox send statuses, inbound messages and template decisions');
  const fields = new Set(
    receiver.received.flatMap((d) => (d.json?.entry ?? []).flatMap((e: any) => (e.changes ?? []).map((c: any) => c.field))),
  );
  assert.deepEqual([...fields].sort(), ['message_template_status_update', 'messages']);
  for (const delivery of receiver.received) assert.deepEqual(webhookProblems(delivery.json), [], delivery.raw);
  const decisions = changesOf(receiver.received, 'message_template_status_update');
  assert.ok(
    decisions.length > 0 && decisions.every((d) => d.value.message_template_category === 'UTILITY'),
    'template decisions name the category',
  );
});
