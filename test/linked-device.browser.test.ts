/**
 * A linked-device channel (the sandbox gateway) in a real browser, against a real server with its
 * worker: the settings form saved (and the gateway told), the groups of the number listed, one made from
 * the form (an objection naming the member it refuses), a group's members and its invite link; a label
 * made on the channel's page, a status posted (a number the API refuses named beside the field), the
 * label put on a conversation's chat in the inbox and taken off; the thread of a customer's conversation
 * archiving, pinning, muting and marking the chat unread on the phone, a message starred, pinned and
 * forwarded, earlier messages asked of the phone. Each page with no accessibility violation at desktop
 * and phone width. One server and one browser for them all (a browser file's start costs more CPU than
 * most of its tests). Needs the built dashboard (`npm run build:dashboard`).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Browser } from 'playwright-core';
import { queryRows } from '../src/db/client.ts';
import { checkPage, closeBrowserSuite, logIn, openBrowserSuite, openContext, problemsOf } from './browser.ts';
import { eventually } from './eventually.ts';
import { OWNER_EMAIL, OWNER_PASSWORD, request, type TestServer } from './harness.ts';
import { customerWrites, pairedGatewayChannel } from './messages-helpers.ts';

let server: TestServer;
let browser: Browser;
before(async () => ({ server, browser } = await openBrowserSuite({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '0' } })));
after(() => closeBrowserSuite({ server, browser }));

const api = (method: string, p: string, body?: unknown) => request(server, method, p, { key: server.apiKey, body });

/** No page error, and no console error but the one refusal a test provoked on purpose (matching refused). */
function assertOnlyRefusal(recorded: Parameters<typeof problemsOf>[0], refused: RegExp): void {
  const { consoleErrors, pageErrors } = problemsOf(recorded);
  assert.deepEqual(pageErrors, []);
  assert.deepEqual(
    consoleErrors.filter((l) => !refused.test(l)),
    [],
  );
}

test('channel settings saved; groups listed, one made, its members and invite link shown', async () => {
  const channel = await pairedGatewayChannel(server, 'Shop phone');
  const made = await api('POST', `/v1/channels/${channel.id}/groups`, { subject: 'Order 10023', participants: ['+4915112340101'] });
  assert.equal(made.status, 201, made.text);
  const theirs = await api('POST', '/sandbox/groups', { channel_id: channel.id, subject: 'Neighbours', participants: ['+4915112340102'] });
  assert.equal(theirs.status, 201, theirs.text);

  const recorded = await openContext(browser);
  const { page, context } = recorded;
  try {
    await page.goto(`${server.baseUrl}/app/login`);
    await logIn(page, OWNER_EMAIL, OWNER_PASSWORD);
    await page.waitForURL(`${server.baseUrl}/app/inbox`);
    await page.goto(`${server.baseUrl}/app/channels/${channel.id}`);
    await page.getByRole('heading', { name: 'Shop phone', level: 1 }).waitFor();

    // The settings form: the gateway is told what is saved.
    const settings = page.getByRole('form', { name: 'Channel settings' });
    await settings.getByLabel('Keep group messages').check();
    await settings.getByLabel('Refuse calls').check();
    await settings.getByLabel('Message to a refused caller').fill('Please write to us instead');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await settings.getByText('Saved: the channel uses them now.').waitFor();
    const saved = (await api('GET', `/v1/channels/${channel.id}`)).body.data.settings;
    assert.deepEqual([saved.group_messages, saved.reject_calls, saved.reject_calls_message], [true, true, 'Please write to us instead']);
    assert.equal(await settings.getByLabel('Import history when pairing').count(), 0, 'a gateway imports no history');
    await checkPage(page, 'channel-settings');

    await page.getByRole('link', { name: 'Groups of this number' }).click();
    await page.getByRole('heading', { name: 'Groups of Shop phone', level: 1 }).waitFor();
    const list = page.getByRole('region', { name: 'Groups' });
    await list.getByRole('link', { name: 'Order 10023' }).waitFor();
    await list.getByRole('link', { name: 'Neighbours' }).waitFor();
    assert.equal(await list.getByRole('row').filter({ hasText: 'Order 10023' }).getByText('Creator (admin)').count(), 1);
    assert.equal(await list.getByRole('row').filter({ hasText: 'Neighbours' }).getByText('Member', { exact: true }).count(), 1);
    await checkPage(page, 'channel-groups');

    // A member not on the chat network is named next to the field; then the group is made.
    const form = page.getByRole('form', { name: 'New group' });
    await form.getByLabel('Subject').fill('Delivery team');
    await form.getByLabel('Members').fill('+49 151 1234 0103\n+4915112340002');
    await form.getByRole('button', { name: 'Create group' }).click();
    await form.locator('.field-error', { hasText: 'not on the chat network' }).waitFor();
    assert.equal(await form.getByLabel('Members').getAttribute('aria-invalid'), 'true');
    await form.getByLabel('Members').fill('+49 151 1234 0103');
    await form.getByRole('button', { name: 'Create group' }).click();
    await form.getByText('Group Delivery team created.').waitFor();
    await list.getByRole('link', { name: 'Delivery team' }).waitFor();

    // A group: its members, and the invite link its admin reads.
    await list.getByRole('link', { name: 'Order 10023' }).click();
    await page.getByRole('heading', { name: 'Order 10023', level: 1 }).waitFor();
    const members = page.getByRole('region', { name: 'Members' });
    await members.getByRole('cell', { name: '+4915112340101' }).waitFor();
    await page.getByRole('button', { name: 'Show invite link' }).click();
    const invite = (await api('GET', `/v1/channels/${channel.id}/groups/${encodeURIComponent(made.body.data.id)}/invite`)).body.data;
    await page.getByText(invite.url).waitFor();
    await checkPage(page, 'channel-group');

    // A group the number is only a member of: no invite link to read.
    // Opened by its address (the group's id without @g.us).
    await page.goto(`${server.baseUrl}/app/channels/${channel.id}/groups/${String(theirs.body.group_id).replace('@g.us', '')}`);
    await page.getByRole('heading', { name: 'Neighbours', level: 1 }).waitFor();
    await page.getByText("Only the group's admins read its invite link.").waitFor();
    // The refused member above is the browser's one logged 400.
    assertOnlyRefusal(recorded, /status of 400 \(Bad Request\).*\/v1\/channels\/[0-9a-f-]+\/groups\]$/);
  } finally {
    await context.close();
  }
});

test('a label made on the channel page and put on a chat in the inbox; a status posted to chosen contacts', async () => {
  const channel = await pairedGatewayChannel(server, 'Label phone');
  const messageId = await customerWrites(server, channel.id, '4915112340801', 'text', { body: 'Did my payment arrive?' });
  const conversationId = (await api('GET', `/v1/messages/${messageId}`)).body.data.conversation_id as string;

  const recorded = await openContext(browser);
  const { page, context } = recorded;
  try {
    await page.goto(`${server.baseUrl}/app/login`);
    await logIn(page, OWNER_EMAIL, OWNER_PASSWORD);
    await page.waitForURL(`${server.baseUrl}/app/inbox`);
    await page.goto(`${server.baseUrl}/app/channels/${channel.id}`);
    await page.getByRole('heading', { name: 'Label phone', level: 1 }).waitFor();

    // A label, made from the channel's page.
    const labels = page.getByRole('region', { name: 'Labels' });
    await labels.getByText('No labels yet.').waitFor();
    const form = page.getByRole('form', { name: 'New label' });
    await form.getByLabel('New label').fill('Paid');
    await form.getByLabel('Color').selectOption({ label: 'Color 6' });
    await form.getByRole('button', { name: 'Add label' }).click();
    await labels.getByRole('list', { name: 'Labels' }).getByText('Paid').waitFor();
    const [made] = (await api('GET', `/v1/channels/${channel.id}/labels`)).body.data;
    assert.deepEqual([made.name, made.color], ['Paid', 5]);

    // A status: a number the API refuses is named beside the field; then it is posted.
    const status = page.getByRole('form', { name: 'Post a status' });
    await status.getByLabel('Text', { exact: true }).fill('Open on Sunday');
    await status.getByLabel('Shown to').fill('+49 151 1234 0801, not a phone');
    await status.getByRole('button', { name: 'Post status' }).click();
    await status.locator('.field-error', { hasText: 'not a valid phone number' }).waitFor();
    assert.equal(await status.getByLabel('Shown to').getAttribute('aria-invalid'), 'true');
    await status.getByLabel('Shown to').fill('+49 151 1234 0801');
    await status.getByRole('button', { name: 'Post status' }).click();
    await status.getByText('Posted to 1 contact.').waitFor();
    const posts = await queryRows<{ body: Record<string, unknown> }>(
      server.container.database.db,
      sql`select body from sandbox_messages where recipient = 'status@broadcast' and body->>'text' = 'Open on Sunday'`,
    );
    assert.equal(posts.length, 1);
    assert.deepEqual(posts[0]!.body.recipients, ['4915112340801']);
    await checkPage(page, 'channel-labels');

    // The label on the conversation's chat, from the inbox; then taken off.
    await page.goto(`${server.baseUrl}/app/inbox/${conversationId}`);
    const add = page.getByRole('combobox', { name: 'Add a label' });
    await add.selectOption({ label: 'Paid' });
    const onChat = page.getByRole('list', { name: 'Labels on this chat' });
    await onChat.getByText('Paid').waitFor();
    await eventually('the label on the chat', async () => {
      const [label] = (await api('GET', `/v1/channels/${channel.id}/labels`)).body.data;
      return label.chats[0] === '+4915112340801' ? true : undefined;
    });
    await checkPage(page, 'inbox-chat-labels');
    await onChat.getByRole('button', { name: 'Remove label Paid' }).click();
    await onChat.getByText('Paid').waitFor({ state: 'detached' });
    const [after] = (await api('GET', `/v1/channels/${channel.id}/labels`)).body.data;
    assert.deepEqual(after.chats, []);

    // The refused number above is the browser's one logged 400.
    assertOnlyRefusal(recorded, /status of 400 \(Bad Request\).*\/v1\/channels\/[0-9a-f-]+\/status\]$/);
  } finally {
    await context.close();
  }
});

test("the thread archives, pins, mutes and marks unread the customer's chat on the phone; stars, pins and forwards a message; asks for earlier ones", async () => {
  const channel = await pairedGatewayChannel(server, 'Chat phone');
  await customerWrites(server, channel.id, '4915112360101', 'text', { body: 'Is my order on its way?' }, { name: 'Ana Souza' });
  const chat = () => api('GET', `/v1/channels/${channel.id}/chats/%2B4915112360101`).then((r) => r.body.data);
  const { conversation_id: conversationId } = await chat();

  const recorded = await openContext(browser);
  const { page, context } = recorded;
  try {
    await page.goto(`${server.baseUrl}/app/login`);
    await logIn(page, OWNER_EMAIL, OWNER_PASSWORD);
    await page.waitForURL(`${server.baseUrl}/app/inbox`);
    await page.goto(`${server.baseUrl}/app/inbox/${conversationId}`);
    const controls = page.getByRole('group', { name: 'Chat on the phone' });
    await controls.getByText('On the phone: in the chat list').waitFor();

    await controls.getByRole('button', { name: 'Archive' }).click();
    await controls.getByText('On the phone: archived').waitFor();
    await controls.getByRole('button', { name: 'Pin' }).click();
    await controls.getByText('On the phone: archived, pinned').waitFor();
    await controls.getByRole('button', { name: 'Mute 8 hours' }).click();
    await controls.getByText('On the phone: archived, pinned, muted').waitFor();
    await controls.getByRole('button', { name: 'Mark unread' }).click();
    await controls.getByText('On the phone: archived, pinned, muted, marked unread').waitFor();
    const now = await chat();
    assert.deepEqual([now.archived, now.pinned, now.unread], [true, true, true]);
    assert.ok(now.muted_until);
    await checkPage(page, 'inbox-chat');

    await controls.getByRole('button', { name: 'Unarchive' }).click();
    await controls.getByRole('button', { name: 'Archive' }).waitFor();
    assert.equal((await chat()).archived, false);

    // The customer's message: starred, pinned and forwarded from the thread, each through its route.
    const [message] = (await api('GET', `/v1/messages?conversation_id=${conversationId}`)).body.data as Array<{ id: string }>;
    const actions = page.locator(`li[data-message-id="${message!.id}"]`).getByRole('group', { name: 'Actions on this message' });
    await actions.getByRole('button', { name: 'Star' }).click();
    await actions.getByText('★ starred').waitFor();
    await actions.getByRole('button', { name: 'Pin for a week' }).click();
    await actions.getByRole('button', { name: 'Unpin' }).waitFor();
    const kept = (await api('GET', `/v1/messages/${message!.id}`)).body.data;
    assert.equal(kept.starred, true);
    assert.ok(kept.pinned_until, 'pinned on the server');
    await actions.getByRole('button', { name: 'Forward…' }).click();
    await actions.getByLabel('Forward to').fill('+49 151 1236 0102');
    await actions.getByRole('button', { name: 'Forward', exact: true }).click();
    await actions.getByLabel('Forward to').waitFor({ state: 'detached' });
    const forwarded = await api('GET', `/v1/messages?channel_id=${channel.id}&direction=outbound`);
    assert.ok(
      (forwarded.body.data as Array<{ to: string; content: { forwarded?: boolean } }>).some((m) => m.content.forwarded === true),
      'a forwarded send',
    );
    // Earlier messages asked of the phone arrive in the thread.
    await controls.getByRole('button', { name: 'Earlier messages from the phone' }).click();
    await page.getByText('Earlier message 1', { exact: false }).first().waitFor();
    await checkPage(page, 'inbox-message-actions');
    const { consoleErrors, pageErrors } = problemsOf(recorded);
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(consoleErrors, []);
  } finally {
    await context.close();
  }
});
