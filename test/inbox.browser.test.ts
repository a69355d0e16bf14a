/**
 * The inbox in a real browser against a real server with a sandbox channel: customers writing in appear
 * live with their unread count, a reply ticks through its delivery statuses without a reload, a closed
 * 24-hour window leaves only templates, the API's field errors show next to their field, assign, close
 * and reopen, and the filters and search (kept in the URL) narrow the list.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { queryRows } from '../src/db/client.ts';
import { uuidv7 } from '../src/lib/ids.ts';
import {
  assertAccessible,
  checkPage,
  closeBrowserSuite,
  openBrowserSuite,
  logIn,
  openContext,
  PHONE,
  problemsOf,
  saveScreenshot,
} from './browser.ts';
import { eventually } from './eventually.ts';
import { freePort, OWNER_EMAIL, OWNER_PASSWORD, request, type TestServer } from './harness.ts';
import { approvedTemplate, customerWrites, officialChannel, send } from './messages-helpers.ts';

let server: TestServer;
let browser: Browser;
let channel: { id: string; phone: string };
/** Serves a picture on loopback, for a media message sent by URL (the worker checks it before sending). */
let media: Server;
let mediaBase: string;
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

const ANA = '4915112340011';
const BRUNO = '4915112340022';
const CARLA = '4915112340033';
/** The sandbox reports messages to numbers ending in 0001 as failed (undeliverable). */
const DORA = '4915112340001';
const EVAN = '4915112340055';

before(async () => {
  // Each delivery step 1.5 s apart, so the thread can be seen passing through each status.
  ({ server, browser } = await openBrowserSuite({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '1500' } }));
  channel = await officialChannel(server, 'Support line');
  await approvedTemplate(server, channel.id, 'welcome_back', 'en_US', [
    { type: 'BODY', text: 'Hi {{1}}, welcome back! Your order {{2}} is ready.' },
  ]);
  media = createServer((req, res) => {
    if (req.url !== '/receipt.png') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PIXEL.length) }).end(PIXEL);
  });
  const port = await freePort();
  mediaBase = `http://127.0.0.1:${port}`;
  await new Promise<void>((resolve) => media.listen(port, '127.0.0.1', resolve));
});

after(async () => {
  await closeBrowserSuite({ server, browser });
  await new Promise<void>((resolve) => (media ? media.close(() => resolve()) : resolve()));
});

async function signIn(page: Page, path = '/app/inbox') {
  // A loaded machine (the whole suite on two cores) can take a while per step.
  page.setDefaultTimeout(20_000);
  await page.goto(`${server.baseUrl}${path}`);
  await logIn(page, OWNER_EMAIL, OWNER_PASSWORD);
  await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
}

const conversationList = (page: Page) => page.getByRole('navigation', { name: 'Conversations' });
const row = (page: Page, text: string) => conversationList(page).getByRole('listitem').filter({ hasText: text });

async function conversationOf(phone: string) {
  const res = await request(server, 'GET', '/v1/conversations?limit=100', { key: server.apiKey });
  assert.equal(res.status, 200, res.text);
  const found = (res.body.data as Array<{ id: string; peer_phone: string }>).find((c) => c.peer_phone === phone);
  assert.ok(found, `a conversation with ${phone}`);
  const one = await request(server, 'GET', `/v1/conversations/${found.id}`, { key: server.apiKey });
  return one.body.data as { id: string; status: string; priority: string; unread_count: number; assignee_user_id: string | null };
}

/** The error text tied to a field (aria-describedby), as a screen reader would announce it. */
async function describedError(page: Page, label: string): Promise<string> {
  const field = page.getByLabel(label, { exact: true });
  assert.equal(await field.getAttribute('aria-invalid'), 'true', `${label} is marked invalid`);
  const ids = ((await field.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean);
  const texts = await Promise.all(ids.map((id) => page.locator(`#${CSS.escape(id)}`).textContent()));
  return texts.join(' ');
}

/**
 * Console errors and page errors, less the refused sends the test provokes on purpose (Chromium logs
 * each 4xx response as a console error): exactly `refused` of those are expected.
 */
function problems(recorded: Parameters<typeof problemsOf>[0], refused: number) {
  const { consoleErrors, pageErrors } = problemsOf(recorded);
  const provoked = (l: string) => /status of 400 \(Bad Request\) \[http:\/\/127\.0\.0\.1:\d+\/v1\/messages\]$/.test(l);
  assert.equal(consoleErrors.filter(provoked).length, refused, 'the refused sends');
  return { consoleErrors: consoleErrors.filter((l) => !provoked(l)), pageErrors };
}

const CSS = { escape: (id: string) => id.replace(/[^a-zA-Z0-9_-]/g, (c) => `\\${c}`) };

test('a customer writes in live, the reply ticks to read, a bad media URL is refused inline, assign, close and reopen', async () => {
  const recorded = await openContext(browser);
  const { context, page } = recorded;
  try {
    await signIn(page);
    await page.getByRole('heading', { name: 'No conversations yet' }).waitFor();
    // A marker that a reload would wipe: everything below must happen on this same page.
    await page.evaluate(() => ((globalThis as unknown as { inboxMarker: number }).inboxMarker = 42));

    await customerWrites(server, channel.id, ANA, 'text', { body: 'Hello, is my order on its way?' }, { name: 'Ana Example' });
    const ana = row(page, `+${ANA}`);
    await ana.waitFor();
    await ana.getByText('1 unread').waitFor();
    assert.match((await ana.textContent()) ?? '', /Hello, is my order on its way\?/);
    assert.match((await ana.textContent()) ?? '', /Support line/);

    // Opening it shows the message and clears the unread count (here and on the server).
    await ana.getByRole('link').click();
    const conversation = await conversationOf(ANA);
    await page.waitForURL(`${server.baseUrl}/app/inbox/${conversation.id}`);
    const thread = page.getByRole('region', { name: /^Messages with / });
    await thread.getByText('Hello, is my order on its way?').waitFor();
    await ana.getByText('1 unread').waitFor({ state: 'detached' });
    await eventually('the conversation read on the server', async () =>
      (await conversationOf(ANA)).unread_count === 0 ? true : undefined,
    );

    // The reply: every status change lands in the thread by itself, up to read.
    await page.evaluate(() => {
      const seen: string[] = [];
      (globalThis as unknown as { seenStatuses: string[] }).seenStatuses = seen;
      const note = () => {
        for (const li of document.querySelectorAll('li.message-out')) {
          const status = li.getAttribute('data-status') ?? '';
          if (seen.at(-1) !== status) seen.push(status);
        }
      };
      new MutationObserver(note).observe(document.body, {
        subtree: true,
        childList: true,
        attributes: true,
        attributeFilter: ['data-status'],
      });
    });
    await page.getByLabel('Message', { exact: true }).fill('Yes! It ships today.');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const reply = thread.locator('li.message-out', { hasText: 'Yes! It ships today.' });
    await reply.waitFor();
    assert.equal(await page.getByLabel('Message', { exact: true }).inputValue(), '', 'the box is emptied after sending');
    await thread.locator('li.message-out[data-status="read"]', { hasText: 'Yes! It ships today.' }).waitFor({ timeout: 30_000 });
    await reply.getByText('read', { exact: true }).waitFor();
    const seen = await page.evaluate(() => (globalThis as unknown as { seenStatuses: string[] }).seenStatuses);
    assert.ok(seen.includes('delivered') && seen.at(-1) === 'read', `the thread showed the statuses as they moved: ${seen.join(' → ')}`);

    // A canned response: `/` and a shortcut's beginning list it; choosing it fills the box for Ana.
    const greet = await request(server, 'POST', '/v1/canned-responses', {
      key: server.apiKey,
      body: { name: 'Greeting', shortcut: 'greet', body: 'Hi {{contact.first_name|there}}, thanks for waiting!' },
    });
    assert.equal(greet.status, 201, greet.text);
    await page.getByLabel('Message', { exact: true }).fill('/gre');
    const offered = page.getByRole('list', { name: 'Canned responses' }).getByRole('button', { name: /\/greet Greeting/ });
    await offered.waitFor();
    await checkPage(page, 'inbox-canned');
    await offered.click();
    await eventually('the box filled for Ana', async () =>
      (await page.getByLabel('Message', { exact: true }).inputValue()) === 'Hi Ana, thanks for waiting!' ? true : undefined,
    );
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await thread.locator('li.message-out', { hasText: 'Hi Ana, thanks for waiting!' }).waitFor();

    // A media URL that is not a URL: the API's message shows next to that field.
    await page.getByRole('radio', { name: 'Media' }).check();
    await page.getByLabel('Media URL', { exact: true }).fill('not a url');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.locator('.field-error', { hasText: 'must be a URL' }).waitFor();
    assert.match(await describedError(page, 'Media URL'), /must be a URL/);
    await checkPage(page, 'inbox-thread');

    // A picture by URL: sent once the URL is right, shown in the thread (the picture itself, loaded), with its file and caption.
    await page.getByLabel('Media URL', { exact: true }).fill(`${mediaBase}/receipt.png`);
    await page.getByLabel('Caption', { exact: true }).fill('Your receipt');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const picture = thread.locator('li.message-out', { hasText: 'Your receipt' });
    await picture.waitFor();
    assert.equal(await picture.getByRole('link', { name: /receipt\.png/ }).getAttribute('href'), `${mediaBase}/receipt.png`);
    assert.match((await picture.textContent()) ?? '', /^image/i);
    const preview = picture.getByRole('img', { name: 'Your receipt' });
    await preview.waitFor();
    assert.equal(await eventuallyLoaded(preview), 1, 'the preview is the picture itself, one pixel wide');
    await thread.locator('li.message-out[data-status="read"]', { hasText: 'Your receipt' }).waitFor({ timeout: 30_000 });

    // Assign to me, close, reopen: the header, the list row and the server agree.
    const ownerName = await page.locator('aside.sidebar .account-name').textContent();
    await page.getByRole('button', { name: 'Assign to me' }).click();
    await page.getByRole('button', { name: 'Assign to me' }).waitFor({ state: 'detached' });
    await ana.getByText(`· ${ownerName}`).waitFor();
    const assigned = await conversationOf(ANA);
    assert.ok(assigned.assignee_user_id, 'assigned on the server');
    assert.equal(await page.getByLabel('Assignee').inputValue(), assigned.assignee_user_id);

    await page.getByRole('button', { name: 'Resolve', exact: true }).click();
    await page.getByRole('button', { name: 'Reopen' }).waitFor();
    await ana.getByText('resolved', { exact: true }).waitFor();
    assert.equal((await conversationOf(ANA)).status, 'resolved');
    await page.getByRole('button', { name: 'Reopen' }).click();
    await page.getByRole('button', { name: 'Resolve', exact: true }).waitFor();
    await ana.getByText('open', { exact: true }).waitFor();
    assert.equal((await conversationOf(ANA)).status, 'open');

    // Priority from the thread's header: shown on the row, kept on the server.
    await page.locator('.thread-priority select').selectOption('urgent');
    await ana.getByText('urgent', { exact: true }).waitFor();
    assert.equal((await conversationOf(ANA)).priority, 'urgent');

    assert.equal(await page.evaluate(() => (globalThis as unknown as { inboxMarker?: number }).inboxMarker), 42, 'no reload happened');
    assert.deepEqual(problems(recorded, 1), { consoleErrors: [], pageErrors: [] });
  } finally {
    await context.close();
  }
});

test('filters and search narrow the list from the URL; a closed window leaves only templates; phones show the thread alone', async () => {
  await customerWrites(server, channel.id, BRUNO, 'text', { body: 'I need an invoice please' }, { name: 'Bruno Sample' });
  await customerWrites(
    server,
    channel.id,
    CARLA,
    'location',
    { latitude: 52.52, longitude: 13.405, name: 'Shop', address: 'Main St 1' },
    { name: 'Carla Demo' },
  );
  // Bruno last wrote 25 hours ago: the 24-hour window is closed.
  const bruno = await conversationOf(BRUNO);
  await queryRows(
    server.container.database.db,
    sql`update conversations set last_inbound_at = ${new Date(Date.now() - 25 * 3_600_000).toISOString()}::timestamptz where id = ${bruno.id}`,
  );

  // A conversation label on Bruno's conversation: shown on its row, and the list's label filter.
  const billing = await request(server, 'POST', '/v1/conversation-labels', {
    key: server.apiKey,
    body: { name: 'Billing', color: '#1f6feb' },
  });
  assert.equal(billing.status, 201, billing.text);
  const labelled = await request(server, 'POST', `/v1/conversations/${bruno.id}/labels`, {
    key: server.apiKey,
    body: { label_ids: [billing.body.data.id] },
  });
  assert.equal(labelled.status, 200, labelled.text);

  const recorded = await openContext(browser);
  const { context, page } = recorded;
  try {
    await signIn(page);
    await row(page, `+${CARLA}`).waitFor();
    await row(page, `+${BRUNO}`).waitFor();
    await row(page, `+${ANA}`).waitFor();
    await checkPage(page, 'inbox-list');
    await row(page, `+${BRUNO}`).getByText('Billing', { exact: true }).waitFor();

    // Label and priority filters: Bruno's label; Ana's priority (urgent, set in the first test).
    await page.getByLabel('Label', { exact: true }).selectOption(billing.body.data.id);
    await page.waitForURL(/label=/);
    await row(page, `+${ANA}`).waitFor({ state: 'detached' });
    await row(page, `+${BRUNO}`).waitFor();
    assert.equal(await row(page, `+${CARLA}`).count(), 0);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('Priority', { exact: true }).selectOption('urgent');
    await page.waitForURL(/priority=urgent/);
    await row(page, `+${BRUNO}`).waitFor({ state: 'detached' });
    await row(page, `+${ANA}`).waitFor();
    assert.equal(await row(page, `+${CARLA}`).count(), 0);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await row(page, `+${CARLA}`).waitFor();

    // Unread only: Ana's conversation was read in the first test.
    await page.getByLabel('Unread only').check();
    await page.waitForURL(/unread=true/);
    await row(page, `+${ANA}`).waitFor({ state: 'detached' });
    // (Ana's row went with the old list: the rows seen from here on are the filtered list's.)
    await row(page, `+${BRUNO}`).waitFor();
    await row(page, `+${CARLA}`).waitFor();
    assert.equal(await row(page, `+${ANA}`).count(), 0);
    await page.getByLabel('Unread only').uncheck();

    // Assigned to me: Ana's, assigned in the first test.
    await page.getByLabel('Assigned', { exact: true }).selectOption('me');
    await page.waitForURL(/assignee=me/);
    await row(page, `+${BRUNO}`).waitFor({ state: 'detached' });
    await row(page, `+${ANA}`).waitFor();
    assert.equal(await row(page, `+${CARLA}`).count(), 0);
    assert.equal(await row(page, `+${BRUNO}`).count(), 0);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await row(page, `+${CARLA}`).waitFor();

    // Search, kept in the URL: a reload (a deep link) shows the same narrowed list.
    await page.getByLabel('Search', { exact: true }).fill('Bruno');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/q=Bruno/);
    await row(page, `+${CARLA}`).waitFor({ state: 'detached' });
    await page.reload();
    await row(page, `+${BRUNO}`).waitFor();
    assert.equal(await row(page, `+${ANA}`).count(), 0);
    assert.equal(await row(page, `+${CARLA}`).count(), 0);
    assert.equal(await page.getByLabel('Search', { exact: true }).inputValue(), 'Bruno');

    // The closed window: the composer offers templates only and says why; the template goes out.
    await row(page, `+${BRUNO}`).getByRole('link').click();
    await page.waitForURL(new RegExp(`/app/inbox/${bruno.id}\\?q=Bruno$`));
    await page
      .getByText('The customer last wrote more than 24 hours ago: only an approved template can start the conversation again.')
      .waitFor();
    assert.equal(await page.getByRole('radio', { name: 'Text' }).count(), 0, 'no text mode while the window is closed');
    assert.equal(await page.getByLabel('Message', { exact: true }).count(), 0);
    await page.getByLabel('Template', { exact: true }).selectOption({ label: 'welcome_back (en_US)' });
    await page.getByText('Hi {{1}}, welcome back! Your order {{2}} is ready.').waitFor();
    await page.getByLabel('Body variable {{1}}').fill('Bruno');
    // One variable left empty: the API names it, and the message shows beside that field.
    await page.getByRole('button', { name: 'Send template' }).click();
    await page.locator('.field-error').first().waitFor();
    assert.ok((await describedError(page, 'Body variable {{2}}')).length > 0, 'the empty variable carries the API error');
    await page.getByLabel('Body variable {{2}}').fill('A-1042');
    await page.getByRole('button', { name: 'Send template' }).click();
    const thread = page.getByRole('region', { name: /^Messages with / });
    const sent = thread.locator('li.message-out', { hasText: 'welcome_back' });
    await sent.waitFor();
    assert.match((await sent.textContent()) ?? '', /“Bruno”, “A-1042”/);
    await thread.locator('li.message-out[data-status="read"]', { hasText: 'welcome_back' }).waitFor({ timeout: 30_000 });

    // Carla's location renders as a place with a map link.
    await page.goto(`${server.baseUrl}/app/inbox`);
    await row(page, `+${CARLA}`).getByRole('link').click();
    const carla = page.getByRole('region', { name: /^Messages with / });
    await carla.getByText('Main St 1').waitFor();
    assert.equal(await carla.getByRole('link', { name: /on the map/ }).count(), 1);
    // Buttons sent through the API, the customer's button reply and a picture arrive in the open thread, each shown for what it is.
    const asked = await send(server, {
      channel_id: channel.id,
      to: CARLA,
      type: 'buttons',
      content: {
        body: 'Shall we deliver there?',
        buttons: [
          { id: 'yes', title: 'Yes please' },
          { id: 'no', title: 'No thanks' },
        ],
      },
    });
    assert.equal(asked.status, 201, asked.text);
    const buttons = carla.locator('li.message-out', { hasText: 'Shall we deliver there?' });
    await buttons.waitFor();
    assert.deepEqual(await buttons.getByRole('list', { name: 'Choices offered' }).getByRole('listitem').allTextContents(), [
      'Yes please',
      'No thanks',
    ]);
    const askedId = await eventually('the buttons handed to the provider', async () => {
      const r = await request(server, 'GET', `/v1/messages/${asked.body.data.id}`, { key: server.apiKey });
      return (r.body.data.provider_message_id as string | null) ?? undefined;
    });
    await customerWrites(
      server,
      channel.id,
      CARLA,
      'interactive',
      { type: 'button_reply', id: 'yes', title: 'Yes please' },
      { reply_to: askedId },
    );
    await customerWrites(server, channel.id, CARLA, 'image', { caption: 'My receipt' });
    const buttonReply = carla.locator('li.message-in', { hasText: 'Yes please' });
    await buttonReply.waitFor();
    assert.match((await buttonReply.textContent()) ?? '', /button reply\s*Chose Yes please/i);
    const picture = carla.locator('li.message-in', { hasText: 'My receipt' });
    await picture.waitFor();
    assert.match((await picture.textContent()) ?? '', /^image/i);
    // The picture is shown from the copy Parley stored when it arrived (the live media event brings it in).
    const stored = picture.getByRole('img', { name: 'My receipt' });
    await stored.waitFor();
    assert.match((await stored.getAttribute('src')) ?? '', /^\/v1\/messages\/[0-9a-f-]{36}\/media\?organization_id=[0-9a-f-]{36}$/);
    assert.equal(await eventuallyLoaded(stored), 8);
    await saveScreenshot(page, 'inbox-thread-types-desktop');

    // A reply the provider cannot deliver: failed, with the provider's error under it.
    await customerWrites(server, channel.id, DORA, 'text', { body: 'Can you hear me?' }, { name: 'Dora Unreachable' });
    await page.goto(`${server.baseUrl}/app/inbox`);
    await row(page, `+${DORA}`).getByRole('link').click();
    await page
      .getByRole('region', { name: /^Messages with / })
      .getByText('Can you hear me?')
      .waitFor();
    await page.getByLabel('Message', { exact: true }).fill('We hear you.');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const failed = page.locator('li.message-out[data-status="failed"]', { hasText: 'We hear you.' });
    await failed.waitFor({ timeout: 30_000 });
    const status = await request(server, 'GET', `/v1/messages/${await failed.getAttribute('data-message-id')}`, { key: server.apiKey });
    assert.equal(status.body.data.status, 'failed');
    const error = status.body.data.error as { code: string; title: string };
    const shown = (await failed.locator('.message-error').textContent()) ?? '';
    assert.ok(shown.includes(error.title) && shown.includes(`(${error.code})`), `the error under the message: ${shown}`);
    await failed.getByText('failed', { exact: true }).waitFor();

    // A long thread: the newest 50 first, older ones on demand above them.
    for (let batch = 0; batch < 55; batch += 11) {
      await Promise.all(
        Array.from({ length: 11 }, (_, i) =>
          customerWrites(server, channel.id, EVAN, 'text', { body: `Note ${String(batch + i + 1).padStart(2, '0')}` }),
        ),
      );
    }
    await page.goto(`${server.baseUrl}/app/inbox?q=${EVAN}`);
    await row(page, `+${EVAN}`).getByRole('link').click();
    const evan = page.getByRole('region', { name: /^Messages with / });
    await evan.locator('li.message').nth(49).waitFor();
    assert.equal(await evan.locator('li.message').count(), 50);
    await evan.getByRole('button', { name: 'Load older messages' }).click();
    await evan.locator('li.message').nth(54).waitFor();
    assert.equal(await evan.getByRole('button', { name: 'Load older messages' }).count(), 0, 'nothing older is left');
    // Oldest at the top, newest at the bottom (each batch of notes was written after the one before).
    const noteOf = async (n: number) => Number(/Note (\d+)/.exec((await evan.locator('li.message').nth(n).textContent()) ?? '')?.[1]);
    assert.ok((await noteOf(0)) <= 11 && (await noteOf(54)) >= 45, `first ${await noteOf(0)}, last ${await noteOf(54)}`);

    // Phones: the thread alone, with a way back to the list.
    await page.goto(`${server.baseUrl}/app/inbox`);
    await row(page, `+${CARLA}`).getByRole('link').click();
    await page
      .getByRole('region', { name: /^Messages with / })
      .getByText('Main St 1')
      .waitFor();
    await page.setViewportSize(PHONE);
    assert.equal(await conversationList(page).isVisible(), false, 'the list is hidden behind the thread on a phone');
    await page.getByRole('link', { name: '← All conversations' }).click();
    await row(page, `+${CARLA}`).waitFor();
    assert.equal(await carla.count(), 0);

    assert.deepEqual(problems(recorded, 1), { consoleErrors: [], pageErrors: [] });

    // A deep link to a conversation that is not there says so (after the console check: the 404 is logged).
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.goto(`${server.baseUrl}/app/inbox/${uuidv7()}`);
    await page.getByText('This conversation does not exist, or it belongs to another organization.').waitFor();
  } finally {
    await context.close();
  }
});

test('New message: from a contact with no window yet (a template, with its variables) and from the inbox to a number that wrote today (free text); each opens its conversation', async () => {
  const FIONA = '4915112340066';
  const GINA = '4915112340077';
  const HUGO = '4915112340088';
  const fiona = await request(server, 'POST', '/v1/contacts', {
    key: server.apiKey,
    body: { name: 'Fiona Fresh', phone_number: `+${FIONA}` },
  });
  assert.equal(fiona.status, 201, fiona.text);
  await customerWrites(server, channel.id, GINA, 'text', { body: 'Do you deliver on Sundays?' }, { name: 'Gina Early' });

  const recorded = await openContext(browser);
  const { context, page } = recorded;
  try {
    await signIn(page);

    // A contact nobody has written to: no window, so an approved template starts the conversation.
    await page.goto(`${server.baseUrl}/app/contacts/${fiona.body.data.id}`);
    await page.getByRole('heading', { name: 'Fiona Fresh', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'New message' }).click();
    const dialog = page.getByRole('dialog', { name: 'New message to Fiona Fresh' });
    await dialog.waitFor();
    assert.equal(await dialog.getByLabel('From channel').inputValue(), channel.id);
    await dialog.getByText(/has not written in the last 24 hours, so the conversation can only start with an approved template/).waitFor();
    assert.equal(await dialog.getByLabel('Message', { exact: true }).count(), 0, 'no free text outside the window');
    await dialog.getByLabel('Template', { exact: true }).selectOption({ label: 'welcome_back (en_US)' });
    await dialog.getByLabel('Body variable {{1}}').fill('Fiona');
    await dialog.getByLabel('Body variable {{2}}').fill('A-2001');
    await checkPage(page, 'inbox-new-message-template');
    await dialog.getByRole('button', { name: 'Send template' }).click();
    await page.waitForURL(/\/app\/inbox\/[0-9a-f-]{36}$/);
    const toFiona = await conversationOf(FIONA);
    assert.equal(new URL(page.url()).pathname, `/app/inbox/${toFiona.id}`, 'the new conversation opens');
    const thread = page.getByRole('region', { name: /^Messages with / });
    const sent = thread.locator('li.message-out', { hasText: 'welcome_back' });
    await sent.waitFor();
    assert.match((await sent.textContent()) ?? '', /“Fiona”, “A-2001”/);

    // From the inbox, to a number that wrote today: the window is open, so free text.
    await page.goto(`${server.baseUrl}/app/inbox`);
    await page.getByRole('button', { name: 'New message' }).click();
    const blank = page.getByRole('dialog', { name: 'New message' });
    await blank.getByLabel('To (phone number)').fill('+49 151 1234 0077');
    await blank.getByText(/The customer wrote in the last 24 hours: free text can be sent until/).waitFor();
    assert.equal(await blank.getByLabel('Template', { exact: true }).count(), 0);
    await checkPage(page, 'inbox-new-message-text');
    await blank.getByLabel('Message', { exact: true }).fill('Yes, on Sundays too.');
    await blank.getByRole('button', { name: 'Send', exact: true }).click();
    const gina = await conversationOf(GINA);
    await page.waitForURL(`${server.baseUrl}/app/inbox/${gina.id}`);
    await page
      .getByRole('region', { name: /^Messages with / })
      .locator('li.message-out', { hasText: 'Yes, on Sundays too.' })
      .waitFor();

    // A number with no conversation: templates only, and nothing is sent on a closed dialog.
    await page.getByRole('button', { name: 'New message' }).click();
    await blank.getByLabel('To (phone number)').fill(`+${HUGO}`);
    await blank.getByText(/can only start with an approved template/).waitFor();
    await blank.getByRole('button', { name: 'Close' }).click();
    await blank.waitFor({ state: 'hidden' });
    const listed = await request(server, 'GET', `/v1/conversations?q=${HUGO}`, { key: server.apiKey });
    assert.deepEqual(listed.body.data, []);

    assert.deepEqual(problemsOf(recorded), { consoleErrors: [], pageErrors: [] });
  } finally {
    await context.close();
  }
});

test('the keyboard: j and k move through the list, r and Esc, a assigns to me, e resolves, ? shows the sheet; alerts: the title counts my unread conversations and a customer message in one notifies', async () => {
  const recorded = await openContext(browser);
  const { context, page } = recorded;
  try {
    // The browser's notifications, recorded instead of shown (headless Chromium has no notification centre).
    await page.addInitScript(() => {
      const shown: Array<{ title: string; body: string }> = [];
      class Recorded {
        // The browser keeps a granted permission across page loads; so does this stand-in.
        static permission = localStorage.getItem('test.notification-permission') ?? 'default';
        static requestPermission = async () => {
          localStorage.setItem('test.notification-permission', 'granted');
          Recorded.permission = 'granted';
          return 'granted';
        };
        onclick: (() => void) | null = null;
        constructor(title: string, options?: { body?: string }) {
          shown.push({ title, body: options?.body ?? '' });
        }
        close() {}
      }
      Object.assign(globalThis, { shownNotifications: shown, Notification: Recorded });
    });
    await signIn(page);
    // The list arrives after the page: read it once its rows are there.
    await conversationList(page).getByRole('link').nth(2).waitFor();
    const hrefs = await conversationList(page)
      .getByRole('link')
      .evaluateAll((links) => links.map((l) => l.getAttribute('href') ?? ''));
    assert.ok(hrefs.length >= 3, `conversations to move through: ${hrefs.join(' ')}`);
    const first = hrefs[0]!.split('/').pop()!;
    // Open and nobody's: the keys below change that.
    const reset = await request(server, 'PATCH', `/v1/conversations/${first}`, {
      key: server.apiKey,
      body: { status: 'open', assignee_user_id: null },
    });
    assert.equal(reset.status, 200, reset.text);

    const at = async (href: string) => {
      await page.waitForURL((url) => `${url.pathname}${url.search}`.endsWith(href));
      await conversationList(page).locator(`a[aria-current="page"][href="${href}"]`).waitFor();
    };
    await page.keyboard.press('j');
    await at(hrefs[0]!);
    await page.keyboard.press('j');
    await at(hrefs[1]!);
    await page.keyboard.press('ArrowDown');
    await at(hrefs[2]!);
    await page.keyboard.press('k');
    await at(hrefs[1]!);
    await page.keyboard.press('k');
    await at(hrefs[0]!);

    const thread = page.getByRole('region', { name: /^Messages with / });
    await thread.waitFor();
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('data-shortcut') ?? document.activeElement?.tagName);
    await page.keyboard.press('r');
    assert.equal(await focused(), 'reply');
    // Keys typed in the composer are text, not shortcuts; Esc leaves it.
    await page.keyboard.type('je');
    assert.equal(await page.getByLabel('Message', { exact: true }).inputValue(), 'je');
    await page.keyboard.press('Escape');
    assert.equal(await focused(), 'BODY');
    await page.getByLabel('Message', { exact: true }).fill('');
    await page.keyboard.press('Escape');
    await page.keyboard.press('\\');
    assert.equal(await page.getByLabel('Message', { exact: true }).inputValue(), '/');
    await page.getByLabel('Message', { exact: true }).fill('');
    await page.keyboard.press('Escape');

    await page.keyboard.press('a');
    await eventually('assigned to me', async () => ((await conversationOf(await phoneOf(first))).assignee_user_id ? true : undefined));
    await page.getByRole('button', { name: 'Assign to me' }).waitFor({ state: 'detached' });
    await page.keyboard.press('e');
    await eventually('resolved', async () => ((await conversationOf(await phoneOf(first))).status === 'resolved' ? true : undefined));

    await page.keyboard.press('?');
    const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await sheet.getByRole('cell', { name: 'Resolve the conversation' }).waitFor();
    await assertAccessible(page, 'inbox shortcut sheet');
    await page.keyboard.press('Escape');
    await sheet.waitFor({ state: 'hidden' });

    // Alerts: turned on here; a customer message in my conversation, while I look at the list, notifies and counts in the title.
    await page.getByRole('button', { name: 'Turn on notifications' }).click();
    await page.getByRole('button', { name: 'Notifications on' }).waitFor();
    await page.goto(`${server.baseUrl}/app/inbox`);
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Notifications on' }).waitFor();
    const phone = await phoneOf(first);
    await customerWrites(server, channel.id, phone, 'text', { body: 'One more thing about my order' });
    const shown = await eventually('a notification', async () => {
      const list = await page.evaluate(
        () => (globalThis as unknown as { shownNotifications: Array<{ title: string; body: string }> }).shownNotifications,
      );
      return list.length > 0 ? list : undefined;
    });
    assert.equal(shown.length, 1);
    assert.match(shown[0]!.title, /^New message from /);
    assert.equal(shown[0]!.body, 'One more thing about my order');
    await page.waitForFunction(() => /^\(\d+\+?\) /.test(document.title));
    // Another's conversation notifies nobody.
    const other = hrefs[1]!.split('/').pop()!;
    await request(server, 'PATCH', `/v1/conversations/${other}`, { key: server.apiKey, body: { assignee_user_id: null } });
    await customerWrites(server, channel.id, await phoneOf(other), 'text', { body: 'not yours' });
    await page.getByText('not yours').first().waitFor();
    assert.equal(await page.evaluate(() => (globalThis as unknown as { shownNotifications: unknown[] }).shownNotifications.length), 1);
    // Left as found: nobody's and resolved (the teams test counts the owner's open conversations).
    const tidy = await request(server, 'PATCH', `/v1/conversations/${first}`, {
      key: server.apiKey,
      body: { status: 'resolved', assignee_user_id: null },
    });
    assert.equal(tidy.status, 200, tidy.text);

    assert.deepEqual(problemsOf(recorded), { consoleErrors: [], pageErrors: [] });
  } finally {
    await context.close();
  }
});

async function phoneOf(conversationId: string): Promise<string> {
  const res = await request(server, 'GET', `/v1/conversations/${conversationId}`, { key: server.apiKey });
  assert.equal(res.status, 200, res.text);
  return res.body.data.peer_phone as string;
}

/** The natural width of an image once the browser has loaded it (0 while it has not, or could not). */
async function eventuallyLoaded(image: import('playwright-core').Locator): Promise<number> {
  await image.evaluate((img: HTMLImageElement) =>
    img.complete ? undefined : new Promise((resolve) => img.addEventListener('load', resolve, { once: true })),
  );
  return image.evaluate((img: HTMLImageElement) => img.naturalWidth);
}

describe('teams and assignment', () => {
  test('a team is made on its settings page, availability set in the sidebar, a new conversation assigned round robin and the next waiting in the team’s queue in the inbox', async () => {
    const recorded = await openContext(browser);
    const { context, page } = recorded;
    try {
      // A loaded machine (the whole suite on two cores) can take a while per step.
      page.setDefaultTimeout(60_000);
      await page.goto(`${server.baseUrl}/app/settings/teams`);
      await logIn(page, OWNER_EMAIL, OWNER_PASSWORD);
      await page.getByRole('heading', { name: 'Teams', level: 1 }).waitFor();
      await page.getByRole('heading', { name: 'No teams yet' }).waitFor();

      const form = page.getByRole('form', { name: 'New team' });
      await form.getByLabel('Name').fill('Night shift');
      await form.getByLabel('Assignment').selectOption('round_robin');
      await form.getByLabel('Capacity per member').fill('1');
      await form.getByRole('button', { name: 'Create team' }).click();
      const card = page.getByRole('region', { name: 'Night shift', exact: true });
      await card.getByText('0 conversations waiting').waitFor();
      await card.getByLabel('Add a member to Night shift').selectOption({ index: 1 });
      await card.getByRole('button', { name: 'Add member' }).click();
      const members = card.getByRole('region', { name: 'Members of Night shift' });
      await members.getByText(OWNER_EMAIL).waitFor();
      await members.getByText('offline').waitFor();

      // Online from the sidebar: the team's table shows it once the page refreshes its teams.
      await page.getByLabel('Availability').selectOption('online');
      const teams = await request(server, 'GET', '/v1/teams', { key: server.apiKey });
      const team = (teams.body.data as Array<{ id: string; name: string; members: Array<{ user_id: string }> }>).find(
        (t) => t.name === 'Night shift',
      )!;
      const ownerId = team.members[0]!.user_id;
      await eventually('online on the server', async () => {
        const now = await request(server, 'GET', `/v1/teams/${team.id}`, { key: server.apiKey });
        return now.body.data.members[0].availability === 'online' ? true : undefined;
      });
      await checkPage(page, 'settings-teams');

      // The earlier tests left conversations assigned to the owner: nobody's now, so the capacity below counts only this test's.
      const held = await request(server, 'GET', `/v1/conversations?assignee=${ownerId}&limit=100`, { key: server.apiKey });
      for (const c of held.body.data as Array<{ id: string }>) {
        const freed = await request(server, 'PATCH', `/v1/conversations/${c.id}`, { key: server.apiKey, body: { assignee_user_id: null } });
        assert.equal(freed.status, 200, freed.text);
      }
      // A channel routed to the team: the first customer is the owner's (capacity 1), the second waits.
      const night = await officialChannel(server, 'Night line');
      const routed = await request(server, 'PUT', `/v1/channels/${night.id}/assignment`, {
        key: server.apiKey,
        body: { team_id: team.id },
      });
      assert.equal(routed.status, 200, routed.text);
      await customerWrites(server, night.id, '4915112340071', 'text', { body: 'First at night' });
      await eventually('the first assigned to the owner', async () => {
        const first = await request(server, 'GET', `/v1/conversations?channel_id=${night.id}&q=4915112340071`, { key: server.apiKey });
        return first.body.data[0]?.assignee_user_id === ownerId ? true : undefined;
      });
      await customerWrites(server, night.id, '4915112340072', 'text', { body: 'Second at night' });

      await page.goto(`${server.baseUrl}/app/inbox`);
      await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
      await page.getByLabel('Team').selectOption({ label: 'Night shift' });
      await row(page, '+4915112340071').waitFor();
      await page.getByRole('button', { name: 'Team queue' }).click();
      await page.waitForURL(/assignee=none/);
      await row(page, '+4915112340072').waitFor();
      await row(page, '+4915112340071').waitFor({ state: 'detached' });
      assert.equal(await page.getByRole('button', { name: 'Team queue' }).getAttribute('aria-pressed'), 'true');
      await checkPage(page, 'inbox-team-queue');
      assert.deepEqual(problemsOf(recorded), { consoleErrors: [], pageErrors: [] });
    } finally {
      await context.close();
    }
  });
});
