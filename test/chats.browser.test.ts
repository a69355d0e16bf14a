/**
 * A linked phone's chat from the inbox in a real browser, against a real server with its worker and the
 * sandbox gateway: the thread of a customer's conversation archives, pins, mutes and marks the chat
 * unread on the phone (the chat routes), each shown as the conversation now is, with no accessibility
 * violation at desktop and phone width. Needs the built dashboard (`npm run build:dashboard`).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { checkPage, closeBrowserSuite, logIn, openBrowserSuite, openContext, problemsOf } from './browser.ts';
import { OWNER_EMAIL, OWNER_PASSWORD, request, type TestServer } from './harness.ts';
import { customerWrites, pairedGatewayChannel } from './messages-helpers.ts';

let server: TestServer;
let browser: Browser;
before(async () => ({ server, browser } = await openBrowserSuite({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '0' } })));
after(() => closeBrowserSuite({ server, browser }));

test("the thread archives, pins, mutes and marks unread the customer's chat on the phone; stars, pins and forwards a message; asks for earlier ones", async () => {
  const channel = await pairedGatewayChannel(server, 'Shop phone');
  await customerWrites(server, channel.id, '4915112360101', 'text', { body: 'Is my order on its way?' }, { name: 'Ana Souza' });
  const api = (method: string, path: string) => request(server, method, path, { key: server.apiKey });
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
