/**
 * A linked-device channel's labels and status posts in a real browser, against a real server with its
 * worker and the sandbox gateway: a label made on the channel's page, a status posted (a number the API
 * refuses named beside the field), the label put on a conversation's chat in the inbox and taken off,
 * each page with no accessibility violation at desktop and phone width.
 * Needs the built dashboard (`npm run build:dashboard`).
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

test('a label made on the channel page and put on a chat in the inbox; a status posted to chosen contacts', async () => {
  const channel = await pairedGatewayChannel(server, 'Label phone');
  const api = (method: string, path: string, body?: unknown) => request(server, method, path, { key: server.apiKey, body });
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

    const { consoleErrors, pageErrors } = problemsOf(recorded);
    assert.deepEqual(pageErrors, []);
    // The refused number above is the browser's one logged 400.
    assert.deepEqual(
      consoleErrors.filter((l) => !/status of 400 \(Bad Request\).*\/v1\/channels\/[0-9a-f-]+\/status\]$/.test(l)),
      [],
    );
  } finally {
    await context.close();
  }
});
