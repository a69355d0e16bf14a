/**
 * Failures the provider reports later, by status webhook, about more than one message: the channel's
 * own fault (a locked account) and a template it holds back have the consequences a refused send has.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { eventually } from '../eventually.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { customerWrites, officialChannel, postOfficialStatuses, send, waitForStatus } from '../messages-helpers.ts';

let server: TestServer;
before(async () => {
  // The sandbox's own status reports come ten minutes later: each message stays `sent` for the reports posted here.
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '600000' } });
});
after(() => server.close());

async function sentOn(channel: { id: string; phone: string }, body: Record<string, unknown>) {
  const res = await send(server, { channel_id: channel.id, ...body });
  assert.equal(res.status, 201, res.text);
  const sent = await waitForStatus(server, res.body.data.id, 'sent');
  const phoneNumberId = (await request(server, 'GET', `/v1/channels/${channel.id}`, { key: server.apiKey })).body.data.settings
    .phone_number_id as string;
  return { id: res.body.data.id as string, providerId: sent.provider_message_id as string, phoneNumberId };
}

test('a failed status naming an account-level error marks the channel error and keeps its health', async () => {
  const channel = await officialChannel(server, 'Locked later');
  const to = '4915112350001';
  await customerWrites(server, channel.id, to);
  const message = await sentOn(channel, { to, type: 'text', content: { body: 'hello' } });
  const posted = await postOfficialStatuses(server, { phone: channel.phone, phoneNumberId: message.phoneNumberId }, [
    {
      id: message.providerId,
      status: 'failed',
      recipient_id: to,
      errors: [
        {
          code: 131031,
          title: 'Business Account locked',
          message: 'Business Account locked',
          error_data: { details: 'the account is locked' },
        },
      ],
    },
  ]);
  assert.equal(posted.status, 200, posted.text);
  const failed = await waitForStatus(server, message.id, 'failed');
  assert.equal(failed.error.code, '131031');
  const view = await eventually('the channel to be marked', async () => {
    const res = await request(server, 'GET', `/v1/channels/${channel.id}`, { key: server.apiKey });
    return res.body.data.status === 'error' ? res.body.data : undefined;
  });
  assert.equal(view.health.last_error_code, '131031');
});

test('a failed status naming a paused template pauses the stored template; a failure of the message alone changes neither', async () => {
  const channel = await officialChannel(server, 'Template held later');
  // The sandbox's decision would come ten minutes later too: the provider's approval is written here.
  const made = await request(server, 'POST', '/v1/templates', {
    key: server.apiKey,
    body: {
      channel_id: channel.id,
      name: 'held_later',
      language: 'en_US',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Hi {{1}}' }],
    },
  });
  assert.equal(made.status, 201, made.text);
  const submitted = await request(server, 'POST', `/v1/templates/${made.body.data.id}/submit`, { key: server.apiKey });
  assert.equal(submitted.status, 200, submitted.text);
  await server.container.database.db.execute(sql`update templates set status = 'approved' where id = ${made.body.data.id}`);
  await server.container.database.db.execute(sql`update sandbox_templates set status = 'APPROVED' where name = 'held_later'`);
  const template = { name: 'held_later', language: { code: 'en_US' } };
  const to = '4915112350002';
  const message = await sentOn(channel, {
    to,
    type: 'template',
    content: { template: { ...template, components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ada' }] }] } },
  });
  const plain = await sentOn(channel, {
    to,
    type: 'template',
    content: { template: { ...template, components: [{ type: 'body', parameters: [{ type: 'text', text: 'Bo' }] }] } },
  });
  const posted = await postOfficialStatuses(server, { phone: channel.phone, phoneNumberId: message.phoneNumberId }, [
    {
      id: plain.providerId,
      status: 'failed',
      recipient_id: to,
      errors: [{ code: 131026, title: 'Message undeliverable', message: 'Message undeliverable' }],
    },
  ]);
  assert.equal(posted.status, 200, posted.text);
  await waitForStatus(server, plain.id, 'failed');
  const templateStatus = async () =>
    (await request(server, 'GET', `/v1/templates?channel_id=${channel.id}`, { key: server.apiKey })).body.data.find(
      (t: { name: string }) => t.name === 'held_later',
    ).status as string;
  assert.equal(await templateStatus(), 'approved');
  assert.equal((await request(server, 'GET', `/v1/channels/${channel.id}`, { key: server.apiKey })).body.data.status, 'connected');

  const held = await postOfficialStatuses(server, { phone: channel.phone, phoneNumberId: message.phoneNumberId }, [
    {
      id: message.providerId,
      status: 'failed',
      recipient_id: to,
      errors: [
        { code: 132015, title: 'Template is Paused', message: 'Template is Paused', error_data: { details: 'paused for low quality' } },
      ],
    },
  ]);
  assert.equal(held.status, 200, held.text);
  await waitForStatus(server, message.id, 'failed');
  await eventually('the template to be paused', async () => ((await templateStatus()) === 'paused' ? true : undefined));
});
