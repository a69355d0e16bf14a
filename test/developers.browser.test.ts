/**
 * The Developers pages in a real browser against a real server with its worker: a webhook endpoint
 * made with an event filter from the catalogue (a bad URL refused at its field first), a test send
 * that fails, a retry that succeeds, the secret revealed and rotated with its overlap, the endpoint
 * turned off and on, a live delivery, the event log, and an OAuth app registered and deleted.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { checkPage, closeBrowserSuite, openBrowserSuite, logIn, openContext, problemsOf } from './browser.ts';
import { OWNER_EMAIL, OWNER_PASSWORD, request, type TestServer } from './harness.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

let server: TestServer;
let browser: Browser;
let receiver: Receiver;

before(async () => {
  ({ server, browser } = await openBrowserSuite({ worker: true }));
  receiver = await startReceiver();
});

after(async () => {
  await receiver?.close();
  await closeBrowserSuite({ server, browser });
});

async function signedIn(): Promise<{ page: Page; recorded: { consoleLines: string[]; pageErrors: string[] }; close(): Promise<void> }> {
  const { context, page, consoleLines, pageErrors } = await openContext(browser);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
  await page.goto(`${server.baseUrl}/app/login`);
  await logIn(page, OWNER_EMAIL, OWNER_PASSWORD);
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  return { page, recorded: { consoleLines, pageErrors }, close: () => context.close() };
}

/** Console errors other than the API's answers to the refusals this test asks for on purpose. */
function unexpected(recorded: { consoleLines: string[]; pageErrors: string[] }, allowed: RegExp[]) {
  const { consoleErrors, pageErrors } = problemsOf(recorded);
  return { consoleErrors: consoleErrors.filter((l) => !allowed.some((a) => a.test(l))), pageErrors };
}

test('a webhook endpoint: made with a filter, a failed test send retried to success, its secret revealed and rotated, turned off and on, a live delivery', async () => {
  const { page, recorded, close } = await signedIn();
  try {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'No endpoints yet' }).waitFor();

    // A URL that is not one is refused next to its field, and nothing is made.
    const form = page
      .getByRole('region', { name: 'Add an endpoint' })
      .or(page.locator('section', { has: page.getByRole('heading', { name: 'Add an endpoint' }) }));
    await form.getByLabel('URL').fill('not a url');
    await form.getByRole('checkbox', { name: /contact\.updated/ }).check();
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    const urlField = form.getByLabel('URL');
    await page.waitForFunction(() => document.querySelector('input[type="url"][aria-invalid="true"]') !== null);
    const describedBy = (await urlField.getAttribute('aria-describedby')) ?? '';
    const fieldError = await page.locator(`[id="${describedBy.split(' ').at(-1)}"]`).textContent();
    assert.match(fieldError ?? '', /url/i, 'the API message is shown at the URL field');
    assert.equal((await request(server, 'GET', '/v1/settings/developer/webhooks', { key: server.apiKey })).body.data.endpoints.length, 0);

    await urlField.fill(receiver.url);
    await form.getByLabel('Description').fill('CRM sync');
    await form.getByRole('button', { name: 'Add endpoint' }).click();
    const secretBox = page.getByRole('region', { name: /Endpoint added/ });
    await secretBox.waitFor();
    const secret = await secretBox.getByLabel('Signing secret').inputValue();
    assert.match(secret, /^whsec_/);
    await secretBox.getByRole('button', { name: 'Copy' }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
    const [endpoint] = (await request(server, 'GET', '/v1/settings/developer/webhooks', { key: server.apiKey })).body.data.endpoints;
    assert.deepEqual(endpoint.event_types, ['contact.updated']);
    await checkPage(page, 'developers-webhooks');

    // The endpoint's page: a test send the receiver refuses shows its status code and duration.
    await page.getByRole('link', { name: receiver.url }).click();
    await page.waitForURL(`${server.baseUrl}/app/developers/webhooks/${endpoint.id}`);
    receiver.answer(() => ({ status: 500, body: 'receiver is down' }));
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText(/Not delivered: HTTP 500 in \d+ ms/).waitFor();
    const failed = page.locator('li.delivery', { hasText: 'failed' }).first();
    await failed.waitFor();
    await failed.locator('summary').click();
    const attemptRow = failed.locator('tbody tr').first();
    assert.match((await attemptRow.textContent()) ?? '', /test.*500.*\d+ ms.*HTTP 500/);

    // The receiver is back: Retry sends it again, and the delivery turns succeeded by itself.
    receiver.answer(() => ({ status: 200, body: 'thanks' }));
    await failed.getByRole('button', { name: 'Retry' }).click();
    const succeeded = page.locator('li.delivery', { hasText: 'succeeded' }).first();
    await succeeded.waitFor({ timeout: 15_000 });
    await succeeded.locator('summary').click();
    const attempts = await succeeded.locator('tbody tr').allTextContents();
    assert.equal(attempts.length, 2);
    assert.match(attempts[0]!, /manual.*200.*thanks/);
    assert.equal(receiver.requests.at(-1)?.headers['x-parley-webhook-test'], 'true');

    // The secret: revealed as it was made, then rotated, with the overlap the old one keeps signing.
    await page.getByRole('button', { name: 'Reveal secret' }).click();
    assert.equal(await page.getByRole('textbox', { name: 'Signing secret' }).inputValue(), secret);
    await page.getByRole('button', { name: 'Hide secret' }).click();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('button', { name: 'Rotate now' }).click();
    const rotated = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    assert.match(rotated, /^whsec_/);
    assert.notEqual(rotated, secret);
    await page.getByText(/The old secret keeps signing until/).waitFor();
    await page.getByRole('button', { name: 'Hide secret' }).click();
    await page.getByText(/The previous secret still signs beside the new one until/).waitFor();
    await checkPage(page, 'developers-webhook-endpoint');

    // Off and on again.
    await page.getByRole('button', { name: 'Disable endpoint' }).click();
    await page.getByRole('button', { name: 'Enable endpoint' }).waitFor();
    assert.equal(
      (await request(server, 'GET', '/v1/settings/developer/webhooks', { key: server.apiKey })).body.data.endpoints[0].enabled,
      false,
    );
    await page.getByRole('button', { name: 'Enable endpoint' }).click();
    await page.getByRole('button', { name: 'Disable endpoint' }).waitFor();

    // The delivery log, filtered to contact.updated (the test send was one): an event made now shows up without a reload and succeeds.
    await page.goto(`${server.baseUrl}/app/developers/deliveries?event_type=contact.updated`);
    const deliveries = page.locator('li.delivery');
    await deliveries.first().waitFor();
    assert.equal(await deliveries.count(), 1, 'only the test send so far');
    const contact = await request(server, 'POST', '/v1/contacts', {
      key: server.apiKey,
      body: { name: 'Live Lena', phone_number: '+4915112340001' },
    });
    assert.equal(contact.status, 201, contact.text);
    await request(server, 'PATCH', `/v1/contacts/${contact.body.data.id}`, { key: server.apiKey, body: { name: 'Live Lena B.' } });
    const live = deliveries.filter({ hasText: 'succeeded' }).filter({ hasNot: page.locator('.badge', { hasText: /^test$/ }) });
    await live.waitFor({ timeout: 15_000 });
    assert.equal(await deliveries.count(), 2);
    assert.ok(receiver.requests.some((r) => r.headers['webhook-event-type'] === 'contact.updated' || r.body.includes('Live Lena B.')));
    await checkPage(page, 'developers-deliveries');

    // The event log lists what happened, newest first, each row with its type, a summary and its time, and its body.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Events' }).click();
    const event = page.locator('li.event-item', { hasText: 'contact.updated' }).first();
    await event.waitFor();
    const oldestFirst = (await request(server, 'GET', '/v1/events?limit=200', { key: server.apiKey })).body.data as Array<{
      id: string;
      type: string;
      created_at: string;
    }>;
    assert.ok(oldestFirst.length >= 3, 'the contact made and changed');
    assert.deepEqual(
      await page.locator('li.event-item').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-event-id'))),
      oldestFirst.map((e) => e.id).reverse(),
      'newest first',
    );
    assert.match((await event.locator('.event-summary').textContent()) ?? '', /Contact Live Lena B\. updated/, 'the summary, closed');
    const updated = oldestFirst.find((e) => e.type === 'contact.updated')!;
    assert.equal(await event.locator('time').getAttribute('datetime'), updated.created_at);
    await event.locator('summary').click();
    assert.match((await event.getByLabel('Body of contact.updated').textContent()) ?? '', /Live Lena B\./);
    await checkPage(page, 'developers-events');

    assert.deepEqual(unexpected(recorded, [/status of 400/]), { consoleErrors: [], pageErrors: [] });
  } finally {
    await close();
  }
});

test('an OAuth app: registered with its secret shown once, listed, its secret rotated, deleted', async () => {
  const { page, recorded, close } = await signedIn();
  try {
    await page.goto(`${server.baseUrl}/app/developers/oauth-clients`);
    await page.getByRole('heading', { name: 'No OAuth apps yet' }).waitFor();
    await page.getByLabel('App name').fill('Nightly sync');
    await page.getByLabel('Client type').selectOption('confidential');
    await page.getByRole('checkbox', { name: /^channels:read/ }).check();
    await page.getByRole('button', { name: 'Register app' }).click();
    const box = page.getByRole('region', { name: 'Client secret of Nightly sync' });
    await box.waitFor();
    const secret = await box.getByLabel('Client secret').inputValue();
    assert.match(secret, /^pcs_/);
    const item = page.locator('li.client-item', { hasText: 'Nightly sync' });
    await item.waitFor();
    const clientId = await item.getAttribute('data-client-id');
    assert.match(clientId ?? '', /^pcl_/);
    await box.getByRole('button', { name: 'I have copied the secret' }).click();
    await box.waitFor({ state: 'detached' });
    assert.equal((await page.content()).includes(secret), false, 'the secret is gone from the page once dismissed');
    await checkPage(page, 'developers-oauth-clients');

    await item.getByRole('button', { name: 'Rotate secret' }).click();
    await item.getByRole('button', { name: 'Rotate now' }).click();
    const rotated = await page.getByRole('region', { name: 'Client secret of Nightly sync' }).getByLabel('Client secret').inputValue();
    assert.notEqual(rotated, secret);

    await item.getByRole('button', { name: 'Delete', exact: true }).click();
    await item.getByRole('button', { name: 'Delete app' }).click();
    await item.waitFor({ state: 'detached' });
    assert.equal((await request(server, 'GET', `/v1/oauth/clients/${clientId}`, { key: server.apiKey })).status, 404);
    assert.deepEqual(unexpected(recorded, []), { consoleErrors: [], pageErrors: [] });
  } finally {
    await close();
  }
});

test('API keys fit a phone screen and pass the accessibility check', async () => {
  const { page, recorded, close } = await signedIn();
  try {
    await page.goto(`${server.baseUrl}/app/developers/api-keys`);
    await page.locator('tbody tr').first().waitFor();
    await checkPage(page, 'developers-api-keys');
    assert.deepEqual(unexpected(recorded, []), { consoleErrors: [], pageErrors: [] });
  } finally {
    await close();
  }
});
