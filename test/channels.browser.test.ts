/**
 * Channels and templates in a real browser (Debian's chromium through playwright-core) against a
 * real server with its worker and the sandbox provider: channels made from the UI, a gateway
 * channel paired by QR (the QR renewed when it lapses, the page turning connected by itself when
 * the sandbox's phone scans) and by pairing code, capabilities, disconnect and delete; a template created (after an
 * inline validation error), submitted and approved live, and a sync.
 * Needs the built dashboard (`npm run build:dashboard`).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { eventually } from './eventually.ts';
import { checkPage, closeBrowserSuite, openBrowserSuite, logIn, openContext, problemsOf } from './browser.ts';
import { movableClock, OWNER_EMAIL, OWNER_PASSWORD, request, type TestServer } from './harness.ts';

/** A QR lives this long in the sandbox gateway (src/sandbox/sandbox.ts DEFAULT_QR_LIFETIME_MS). */
const QR_LIFETIME_MS = 60_000;

let server: TestServer;
let browser: Browser;
const clock = movableClock();

// The sandbox decides templates and reports sessions after this delay: long enough for the page to show `pending` first.
before(async () => ({ server, browser } = await openBrowserSuite({ worker: true, clock, env: { SANDBOX_STATUS_DELAY_MS: '2000' } })));
after(() => closeBrowserSuite({ server, browser }));

/** A signed-in page whose clock the test can move (the QR renewal waits for the QR's expiry). */
async function signedIn(path: string) {
  const recorded = await openContext(browser);
  await recorded.page.clock.install();
  await recorded.page.goto(`${server.baseUrl}/app/login`);
  await logIn(recorded.page, OWNER_EMAIL, OWNER_PASSWORD);
  await recorded.page.waitForURL(`${server.baseUrl}/app/inbox`);
  await recorded.page.goto(`${server.baseUrl}/app${path}`);
  // Live updates must be on, so what changes below is seen through the event stream.
  await recorded.page.locator('.live-state', { hasText: 'Live updates on' }).waitFor();
  return recorded;
}

/** A marker that a reload would wipe: the page changes by itself, without one. */
async function markPage(page: Page) {
  await page.evaluate(() => Object.assign(window, { __notReloaded: true }));
}

async function stillSamePage(page: Page) {
  assert.equal(
    await page.evaluate(() => (window as unknown as { __notReloaded?: boolean }).__notReloaded),
    true,
    'the page was not reloaded',
  );
}

async function createChannelInUi(page: Page, name: string, platformLabel: RegExp) {
  await page.getByRole('link', { name: 'New channel' }).first().click();
  await page.getByRole('heading', { name: 'New channel' }).waitFor();
  await page.getByLabel('Name', { exact: true }).fill(name);
  const platform = page.getByLabel('Platform');
  const value = await platform.locator('option', { hasText: platformLabel }).getAttribute('value');
  await platform.selectOption(value!);
  const connect = page.getByLabel('Connect through');
  if (/linked device/.test(String(platformLabel))) {
    // A gateway channel pairs the user's own phone unless another way is picked.
    assert.equal(await connect.inputValue(), 'embedded', 'a gateway channel runs on the embedded engine by default');
  }
  await connect.selectOption('sandbox');
  await page.getByRole('button', { name: 'Create channel' }).click();
  await page.getByRole('heading', { name, level: 1 }).waitFor();
  const id = new URL(page.url()).pathname.split('/').at(-1)!;
  return id;
}

const statusCard = (page: Page) => page.getByRole('region', { name: 'Status', exact: true });

test('channels: official and gateway made from the UI; QR pairing renewed at expiry and connected live; capabilities; disconnect and delete', async () => {
  const recorded = await signedIn('/channels');
  const { page, context } = recorded;
  try {
    await page.getByRole('heading', { name: 'No channels yet' }).waitFor();

    // An official channel with credentials: the API's objections show next to their fields.
    await page.getByRole('link', { name: 'New channel' }).first().click();
    await page.getByLabel('Name', { exact: true }).fill('Own number');
    await page.getByLabel('Connect through').selectOption('credentials');
    await page.getByRole('button', { name: 'Create channel' }).click();
    const tokenField = page.getByLabel('Access token');
    await page.locator('.field-error').first().waitFor();
    assert.equal(await tokenField.getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Phone number ID').getAttribute('aria-invalid'), 'true');
    await page.getByRole('link', { name: 'Back to channels' }).click();

    // An official channel on the sandbox: connected at once, with its capabilities.
    await createChannelInUi(page, 'Support line', /official/);
    await statusCard(page).getByText('connected', { exact: true }).waitFor();
    const capabilities = page.getByRole('region', { name: 'Capabilities' });
    await capabilities.getByRole('list', { name: 'Operations' }).getByText('Sync templates').waitFor();
    assert.equal(await capabilities.getByRole('list', { name: 'Operations' }).getByText('Pair a phone').count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Pair a phone' }).count(), 0, 'an official channel does not pair');

    // A gateway channel on the sandbox gateway: not paired yet; it pairs by QR.
    await page.getByRole('link', { name: 'Back to channels' }).click();
    const gatewayId = await createChannelInUi(page, 'Field team', /linked device/);
    await statusCard(page).getByText('disconnected', { exact: true }).waitFor();
    await capabilities.getByRole('list', { name: 'Operations' }).getByText('Pair a phone').waitFor();
    await page.getByRole('button', { name: 'Pair a phone' }).click();
    const qrImage = page.getByRole('img', { name: 'QR code to pair Field team' });
    await qrImage.waitFor();
    assert.match((await qrImage.getAttribute('src')) ?? '', /^data:image\/png;base64,/);
    const firstQr = (await qrImage.getAttribute('data-qr'))!;
    await statusCard(page).getByText('pairing', { exact: true }).waitFor();
    await checkPage(page, 'channel-pairing');

    // The QR lapses: the page asks for the next one at its expiry (both clocks moved past it).
    clock.advance(QR_LIFETIME_MS + 1000);
    await page.clock.fastForward(QR_LIFETIME_MS + 1000);
    await page.waitForFunction((old) => {
      const img = document.querySelector('img[data-qr]');
      return img !== null && img.getAttribute('data-qr') !== old;
    }, firstQr);
    const secondQr = (await qrImage.getAttribute('data-qr'))!;
    const lapsed = await request(server, 'POST', '/sandbox/gateway/scan', { body: { qr: firstQr } });
    assert.equal(lapsed.status, 404, 'the lapsed QR the page replaced no longer pairs');

    // The phone scans the QR on screen: the page turns connected by itself.
    await markPage(page);
    const scanned = await request(server, 'POST', '/sandbox/gateway/scan', { body: { qr: secondQr, phone: '+15550107777' } });
    assert.equal(scanned.status, 200, scanned.text);
    await page.getByRole('status').filter({ hasText: 'Phone paired: the channel is connected' }).waitFor();
    await statusCard(page).getByText('connected', { exact: true }).waitFor();
    assert.equal(await qrImage.count(), 0, 'the QR is gone once paired');
    await stillSamePage(page);
    const api = await request(server, 'GET', `/v1/channels/${gatewayId}`, { key: server.apiKey });
    assert.equal(api.body.data.status, 'connected');

    // Disconnect logs the phone out.
    await page.getByRole('button', { name: 'Disconnect' }).click();
    const dialog = page.getByRole('dialog', { name: 'Disconnect this channel?' });
    await dialog.getByRole('button', { name: 'Disconnect' }).click();
    await statusCard(page).getByText('disconnected', { exact: true }).waitFor();
    assert.equal((await request(server, 'GET', `/v1/channels/${gatewayId}`, { key: server.apiKey })).body.data.status, 'disconnected');

    // The pairing-code option (the platform lists channel.pairing_code): a bad number is named inline,
    // then the code shows and the phone typing it pairs the channel, live again.
    await page.getByRole('button', { name: 'Pair a phone' }).click();
    const codeForm = page.getByRole('form', { name: 'Pair with a code' });
    await codeForm.getByLabel('Phone number').fill('12');
    await codeForm.getByRole('button', { name: 'Get a pairing code' }).click();
    await codeForm.locator('.field-error', { hasText: 'not a valid phone number' }).waitFor();
    assert.equal(await codeForm.getByLabel('Phone number').getAttribute('aria-invalid'), 'true');
    await codeForm.getByLabel('Phone number').fill('+1 555 010 9999');
    await codeForm.getByRole('button', { name: 'Get a pairing code' }).click();
    const codeText = codeForm.locator('.pairing-code-result strong');
    await codeText.waitFor();
    const code = (await codeText.textContent())!;
    assert.match(code, /^[0-9A-F]{4}-[0-9A-F]{4}$/);
    const linked = await request(server, 'POST', '/sandbox/gateway/link', { body: { code, phone: '+15550109999' } });
    assert.equal(linked.status, 200, linked.text);
    await statusCard(page).getByText('connected', { exact: true }).waitFor();
    await page.getByRole('region', { name: 'Details' }).getByText('+15550109999').waitFor();
    await stillSamePage(page);
    await page.getByRole('button', { name: 'Disconnect' }).click();
    await dialog.getByRole('button', { name: 'Disconnect' }).click();
    await statusCard(page).getByText('disconnected', { exact: true }).waitFor();

    // The list shows both, with status and health.
    await page.getByRole('link', { name: 'Back to channels' }).click();
    const rows = page.locator('tbody tr');
    await rows.filter({ hasText: 'Field team' }).waitFor();
    assert.match((await rows.filter({ hasText: 'Support line' }).textContent()) ?? '', /connected.*No errors/);
    assert.match((await rows.filter({ hasText: 'Field team' }).textContent()) ?? '', /disconnected.*logged out by the user/);
    await checkPage(page, 'channels');
    // Filters live in the URL.
    await page.getByLabel('Status').selectOption('connected');
    await rows.filter({ hasText: 'Field team' }).waitFor({ state: 'detached' });
    assert.match(page.url(), /\?status=connected$/);
    assert.equal(await rows.filter({ hasText: 'Support line' }).count(), 1);
    await page.getByLabel('Status').selectOption('');
    await rows.filter({ hasText: 'Field team' }).waitFor();

    // Delete the gateway channel.
    await rows.filter({ hasText: 'Field team' }).getByRole('link', { name: 'Field team' }).click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog', { name: 'Delete this channel?' }).getByRole('button', { name: 'Delete channel' }).click();
    await page.waitForURL(`${server.baseUrl}/app/channels`);
    await rows.filter({ hasText: 'Support line' }).waitFor();
    assert.equal(await rows.filter({ hasText: 'Field team' }).count(), 0);
    assert.equal((await request(server, 'GET', `/v1/channels/${gatewayId}`, { key: server.apiKey })).status, 404);

    // The expected failures: the create form's 400 and the bad phone number's.
    const { consoleErrors, pageErrors } = problemsOf(recorded);
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(
      consoleErrors.filter((l) => !/status of 400 \(Bad Request\).*\/v1\/channels(\/[0-9a-f-]+\/connect)?\]$/.test(l)),
      [],
    );
  } finally {
    await context.close();
  }
});

test('templates: created and submitted (after an inline validation error), approved live, synced, filtered', async () => {
  const made = await request(server, 'POST', '/v1/channels', {
    key: server.apiKey,
    body: { platform: 'chatapp_official', name: 'Templates line' },
  });
  assert.equal(made.status, 201, made.text);
  const channelId = made.body.data.id as string;
  const recorded = await signedIn(`/templates?channel=${channelId}`);
  const { page, context } = recorded;
  try {
    await page.getByRole('heading', { name: 'No templates yet' }).waitFor();
    await page.getByRole('link', { name: 'New template' }).click();
    await page.getByRole('heading', { name: 'New template' }).waitFor();
    assert.equal(await page.getByLabel('Channel').inputValue(), channelId, 'the list filter picks the channel');
    await page.getByLabel('Body').fill('Hi {{1}}, your order is on its way.');

    // A name the API refuses: its message shows next to the field.
    await page.getByLabel('Name', { exact: true }).fill('Order Shipped');
    await page.getByRole('button', { name: 'Create and submit' }).click();
    const name = page.getByLabel('Name', { exact: true });
    await page.locator('.field-error', { hasText: 'lower-case letters, digits and underscores' }).waitFor();
    assert.equal(await name.getAttribute('aria-invalid'), 'true');
    await checkPage(page, 'template-new');

    await name.fill('order_shipped');
    await page.getByRole('button', { name: 'Create and submit' }).click();
    await page.waitForURL(/\/app\/templates\?channel=/);
    const row = page.locator('tbody tr', { hasText: 'order_shipped' });
    await row.getByText('pending', { exact: true }).waitFor();
    assert.match((await row.textContent()) ?? '', /en_US.*utility/);
    // The provider approves it a moment later: the row changes by itself.
    await markPage(page);
    await row.getByText('approved', { exact: true }).waitFor({ timeout: 15_000 });
    await stillSamePage(page);
    await checkPage(page, 'templates');

    // Sync pulls the provider's templates back (the one there is already known) and refreshes the list,
    // which then shows a draft made through the API meanwhile.
    const draft = await request(server, 'POST', '/v1/templates', {
      key: server.apiKey,
      body: {
        channel_id: channelId,
        name: 'reject_promo',
        language: 'en_US',
        category: 'MARKETING',
        components: [{ type: 'BODY', text: 'Big sale!' }],
      },
    });
    assert.equal(draft.status, 201, draft.text);
    await page.getByRole('button', { name: /Sync .*from provider/ }).click();
    await page.getByRole('status').filter({ hasText: 'Synced: 0 new, 0 updated, 1 unchanged.' }).waitFor();
    const draftRow = page.locator('tbody tr', { hasText: 'reject_promo' });
    await draftRow.getByText('draft', { exact: true }).waitFor();

    // A draft is submitted from the list; the sandbox rejects it, and the reason shows live.
    await draftRow.getByRole('button', { name: 'Submit reject_promo for approval' }).click();
    await draftRow.getByText('pending', { exact: true }).waitFor();
    await draftRow.getByText('rejected', { exact: true }).waitFor({ timeout: 15_000 });
    const rejection = (await request(server, 'GET', `/v1/templates/${draft.body.data.id}`, { key: server.apiKey })).body.data
      .rejection_reason as string;
    assert.ok(rejection);
    await draftRow.getByText(rejection).waitFor();
    await stillSamePage(page);

    // Filters live in the URL.
    await page.getByLabel('Category').selectOption('MARKETING');
    await row.waitFor({ state: 'detached' });
    assert.match(page.url(), /category=MARKETING/);
    await page.reload();
    await draftRow.waitFor();
    assert.equal(await row.count(), 0, 'the filter holds after a reload');
    await page.getByLabel('Category').selectOption('AUTHENTICATION');
    await page.getByRole('heading', { name: 'No templates match' }).waitFor();
    await page.getByLabel('Category').selectOption('');
    await page.getByLabel('Language').fill('de');
    await page.getByRole('heading', { name: 'No templates match' }).waitFor();
    await page.getByLabel('Language').fill('en_US');
    await row.waitFor();
    await draftRow.waitFor();

    const { consoleErrors, pageErrors } = problemsOf(recorded);
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(
      consoleErrors.filter((l) => !/status of 400 \(Bad Request\).*\/v1\/templates\]$/.test(l)),
      [],
    );
  } finally {
    await context.close();
  }
});

test('sandbox channels are driven from their page: the sandbox phone scans the QR on screen, and a customer message is played into the inbox', async () => {
  const made = await request(server, 'POST', '/v1/channels', {
    key: server.apiKey,
    body: { platform: 'chatapp_unofficial', name: 'Sandbox field phone', sandbox: true },
  });
  assert.equal(made.status, 201, made.text);
  const gatewayId = made.body.data.id as string;
  const recorded = await signedIn(`/channels/${gatewayId}`);
  const { page, context } = recorded;
  try {
    await page.getByRole('heading', { name: 'Sandbox field phone', level: 1 }).waitFor();
    const sandbox = page.getByRole('region', { name: 'Sandbox' });
    await sandbox.getByText(/not paired yet/).waitFor();
    assert.equal(await sandbox.getByRole('button', { name: 'Scan with the sandbox phone' }).count(), 0, 'no QR on screen yet');

    // The QR on screen, scanned by the sandbox's phone from here: the page turns connected by itself.
    await page.getByRole('button', { name: 'Pair a phone' }).click();
    await page.getByRole('img', { name: 'QR code to pair Sandbox field phone' }).waitFor();
    await markPage(page);
    await sandbox.getByRole('button', { name: 'Scan with the sandbox phone' }).click();
    await page.getByRole('status').filter({ hasText: 'Phone paired: the channel is connected' }).waitFor();
    await statusCard(page).getByText('connected', { exact: true }).waitFor();
    await stillSamePage(page);

    // A customer writes in: a bad number is the sandbox's own refusal, shown at the form; then the message lands in the inbox.
    const play = sandbox.getByRole('form', { name: 'Play a customer message' });
    await play.getByLabel('Customer number').fill('12');
    await play.getByLabel('Message', { exact: true }).fill('Hello from the sandbox');
    await play.getByRole('button', { name: 'Send as the customer' }).click();
    await play.getByRole('alert').filter({ hasText: 'from must be international digits without +' }).waitFor();
    await play.getByLabel('Customer number').fill('+49 151 2345 0099');
    await play.getByLabel('Customer name').fill('Sandra Sample');
    await play.getByRole('button', { name: 'Send as the customer' }).click();
    await play.getByRole('status').filter({ hasText: 'The sandbox delivered it to the channel' }).waitFor();
    await checkPage(page, 'channel-sandbox');
    const conversation = await eventually('the conversation in the inbox', async () => {
      const r = await request(server, 'GET', `/v1/conversations?channel_id=${gatewayId}`, { key: server.apiKey });
      return (r.body.data as Array<{ id: string; peer_phone: string; last_message_preview: string | null }>).find(
        (c) => c.peer_phone === '4915123450099' && c.last_message_preview === 'Hello from the sandbox',
      );
    });
    await play.getByRole('link', { name: 'Open the inbox' }).click();
    await page
      .getByRole('navigation', { name: 'Conversations' })
      .getByRole('link', { name: /Sandra Sample/ })
      .click();
    await page.waitForURL(new RegExp(`/app/inbox/${conversation.id}`));
    await page
      .getByRole('region', { name: /^Messages with / })
      .getByText('Hello from the sandbox')
      .waitFor();
    // An official sandbox channel is connected from the start: a customer can write at once, there is nothing to scan.
    const official = await request(server, 'POST', '/v1/channels', {
      key: server.apiKey,
      body: { platform: 'chatapp_official', name: 'Sandbox official line', sandbox: true },
    });
    assert.equal(official.status, 201, official.text);
    await page.goto(`${server.baseUrl}/app/channels/${official.body.data.id}`);
    await page.getByRole('heading', { name: 'Sandbox official line', level: 1 }).waitFor();
    await sandbox.getByRole('form', { name: 'Play a customer message' }).waitFor();
    assert.equal(await sandbox.getByRole('button', { name: 'Scan with the sandbox phone' }).count(), 0);

    // Only the provoked refusal was logged.
    const { consoleErrors, pageErrors } = problemsOf(recorded);
    assert.deepEqual(
      {
        consoleErrors: consoleErrors.filter((l) => !/400 \(Bad Request\) \[http:\/\/127\.0\.0\.1:\d+\/sandbox\/inbound\]$/.test(l)),
        pageErrors,
      },
      { consoleErrors: [], pageErrors: [] },
    );
  } finally {
    await context.close();
  }
});
