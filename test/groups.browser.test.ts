/**
 * A linked-device channel's settings and groups in a real browser, against a real server with its
 * worker and the sandbox gateway: the settings form saved (and the gateway told), the groups of the
 * number listed, one made from the form (an objection naming the member it refuses), a group's members
 * and its invite link, each page with no accessibility violation at desktop and phone width.
 * Needs the built dashboard (`npm run build:dashboard`).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { checkPage, closeBrowserSuite, logIn, openBrowserSuite, openContext, problemsOf } from './browser.ts';
import { OWNER_EMAIL, OWNER_PASSWORD, request, type TestServer } from './harness.ts';
import { pairedGatewayChannel } from './messages-helpers.ts';

let server: TestServer;
let browser: Browser;
before(async () => ({ server, browser } = await openBrowserSuite({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '0' } })));
after(() => closeBrowserSuite({ server, browser }));

test('channel settings saved; groups listed, one made, its members and invite link shown', async () => {
  const channel = await pairedGatewayChannel(server, 'Shop phone');
  const api = (method: string, path: string, body?: unknown) => request(server, method, path, { key: server.apiKey, body });
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
    const { consoleErrors, pageErrors } = problemsOf(recorded);
    assert.deepEqual(pageErrors, []);
    // The refused member above is the browser's one logged 400.
    assert.deepEqual(
      consoleErrors.filter((l) => !/status of 400 \(Bad Request\).*\/v1\/channels\/[0-9a-f-]+\/groups\]$/.test(l)),
      [],
    );
  } finally {
    await context.close();
  }
});
