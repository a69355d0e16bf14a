/**
 * The dashboard in a real browser (Debian's chromium through playwright-core) against a real
 * server: the newcomer's first visit, from login to an API key that works and then does not.
 * Needs the built dashboard (`npm run build:dashboard`; `npm test` builds it first).
 */
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { channels } from '../src/db/schema.ts';
import { addMembership } from '../src/domain/organizations/organizations.ts';
import { findUserByEmail } from '../src/domain/users/users.ts';
import { uuidv7 } from '../src/lib/ids.ts';
import { eventually } from './eventually.ts';
import {
  assertAccessible,
  assertFitsWidth,
  closeBrowserSuite,
  openBrowserSuite,
  logIn,
  openContext as openBrowserContext,
  PHONE,
  problemsOf,
} from './browser.ts';
import { createOtherOrganization, OWNER_EMAIL, OWNER_PASSWORD, request, type TestServer } from './harness.ts';

const SCREENSHOT = path.join(tmpdir(), 'parley-dashboard-api-keys.png');

let server: TestServer;
let browser: Browser;

before(async () => ({ server, browser } = await openBrowserSuite()));
after(() => closeBrowserSuite({ server, browser }));

const DESKTOP = { width: 1280, height: 860 };
const openContext = () => openBrowserContext(browser, DESKTOP);

function nav(page: Page) {
  return page.getByRole('navigation', { name: 'Main' });
}

function sessionCookieOf(cookies: Awaited<ReturnType<BrowserContext['cookies']>>): string {
  const cookie = cookies.find((c) => c.name === 'parley_session');
  assert.ok(cookie, 'the browser holds the session cookie');
  assert.equal(cookie.httpOnly, true);
  return `parley_session=${cookie.value}`;
}

test('a newcomer logs in, makes an API key that works, revokes it, and logs out', async () => {
  const { context, page, consoleLines, pageErrors } = await openContext();
  try {
    await page.goto(`${server.baseUrl}/app/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.equal(await page.getByLabel('Email').isVisible(), true);

    // A wrong password shows the server's problem detail and stays on the form.
    await logIn(page, OWNER_EMAIL, 'not the password');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.equal((await alert.textContent())?.trim(), 'invalid email or password');
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).count(), 0, 'no app before a successful login');

    await logIn(page, OWNER_EMAIL, OWNER_PASSWORD);
    const sidebar = page.locator('aside.sidebar');
    await sidebar.getByText(server.config.bootstrap.organizationName, { exact: true }).waitFor();
    assert.match((await sidebar.textContent()) ?? '', new RegExp(OWNER_EMAIL.replace('.', '\\.')));
    // The root redirects to the default page.
    await page.waitForURL(`${server.baseUrl}/app/inbox`);

    // API keys: the bootstrap key is listed masked.
    await nav(page).getByRole('link', { name: 'API keys' }).click();
    await page.waitForURL(`${server.baseUrl}/app/developers/api-keys`);
    const bootstrapRow = page.locator('tbody tr', { hasText: `${server.apiKey.slice(0, 8)}…${server.apiKey.slice(-4)}` });
    await bootstrapRow.waitFor();
    assert.equal((await page.content()).includes(server.apiKey), false, 'a listed key never shows its secret');

    // Nothing filled in: the API's refusal is shown at the fields it names.
    await page.getByRole('button', { name: 'Create key' }).click();
    const nameField = page.getByLabel('Name', { exact: true });
    await eventually('the name field marked invalid', async () => (await nameField.getAttribute('aria-invalid')) === 'true');
    await page.getByRole('group', { name: 'Permissions' }).locator('.field-error').waitFor();

    await page.getByLabel('Name', { exact: true }).fill('Newcomer key');
    await page.getByRole('checkbox', { name: /^messages:read/ }).check();
    await page.getByRole('checkbox', { name: /^channels:read/ }).check();
    await page.getByRole('button', { name: 'Create key' }).click();

    const secretBox = page.getByRole('region', { name: /Your new API key/ });
    await secretBox.waitFor();
    assert.match((await secretBox.textContent()) ?? '', /will not be shown again/);
    assert.equal(await secretBox.getByRole('button', { name: 'Copy' }).isVisible(), true);
    const secret = await secretBox.getByLabel('API key secret').inputValue();
    assert.match(secret, /^prl_[A-Za-z0-9_-]{40}$/);

    const newRow = page.locator('tbody tr', { hasText: 'Newcomer key' });
    await newRow.waitFor();
    assert.equal((await newRow.textContent())?.includes(`${secret.slice(0, 8)}…${secret.slice(-4)}`), true);
    assert.deepEqual(await newRow.getByRole('listitem').allTextContents(), ['messages:read', 'channels:read']);
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    // The key works from outside the browser.
    const works = await request(server, 'GET', '/v1/channels', { key: secret });
    assert.equal(works.status, 200);
    assert.deepEqual(works.body.data, []);

    // Once dismissed, the secret is gone from the page for good.
    await secretBox.getByRole('button', { name: 'I have copied the key' }).click();
    await secretBox.waitFor({ state: 'detached' });
    assert.equal((await page.content()).includes(secret), false);

    // Revoking asks first; cancelling leaves the key working.
    await newRow.getByRole('button', { name: 'Revoke', exact: true }).click();
    await newRow.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await request(server, 'GET', '/v1/channels', { key: secret })).status, 200);
    await newRow.getByRole('button', { name: 'Revoke', exact: true }).click();
    await newRow.getByRole('button', { name: 'Revoke key' }).click();
    await newRow.waitFor({ state: 'detached' });
    const revoked = await request(server, 'GET', '/v1/channels', { key: secret });
    assert.equal(revoked.status, 401);
    assert.equal(await bootstrapRow.count(), 1, 'only the revoked key left the list');

    await nav(page).getByRole('link', { name: 'Channels' }).click();
    await page.getByRole('heading', { name: 'No channels yet' }).waitFor();

    // Sessions: the one in use is marked and cannot be revoked from the list.
    await nav(page).getByRole('link', { name: 'Sessions' }).click();
    const current = page.locator('tbody tr[aria-current="true"]');
    await current.waitFor();
    assert.equal(await page.locator('tbody tr').count(), 1);
    assert.match((await current.textContent()) ?? '', /This session/);
    assert.equal(await current.getByRole('button', { name: 'Revoke', exact: true }).count(), 0);

    assert.equal(
      await nav(page)
        .getByRole('link', { name: /API reference/ })
        .getAttribute('href'),
      '/v1/docs/',
    );

    const cookie = sessionCookieOf(await context.cookies());
    assert.equal((await request(server, 'GET', '/v1/auth/session', { cookie })).status, 200);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.equal((await request(server, 'GET', '/v1/auth/session', { cookie })).status, 401);
    // A reload still shows the login page: the server, not page state, decides.
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();

    assert.deepEqual(pageErrors, []);
    // Only the refusals provoked on purpose: the wrong password (401) and the empty key form (400).
    const problems = consoleLines.filter(
      (line) =>
        line.startsWith('error:') && !/401 \(Unauthorized\)|400 \(Bad Request\) \[http:\/\/127\.0\.0\.1:\d+\/v1\/api-keys\]$/.test(line),
    );
    assert.deepEqual(problems, [], 'no console errors (CSP violations show up here)');
    assert.equal(
      consoleLines.some((line) => line.includes(secret) || line.includes(OWNER_PASSWORD)),
      false,
      'no secret in the console',
    );
  } finally {
    await context.close();
  }
});

test('the organization switcher acts in the chosen organization and remembers it', async () => {
  const other = await createOtherOrganization(server, 'Acme');
  const db = server.container.database.db;
  const owner = await findUserByEmail(db, OWNER_EMAIL);
  assert.ok(owner);
  await addMembership({ db, clock: server.container.clock }, { organizationId: other.organizationId, userId: owner.id, role: 'admin' });
  const now = new Date();
  await db.insert(channels).values({
    id: uuidv7(),
    organizationId: other.organizationId,
    platform: 'chatapp_official',
    name: 'Acme support line',
    status: 'connected',
    displayPhoneNumber: '+49 30 1234567',
    createdAt: now,
    updatedAt: now,
  });

  const { context, page, pageErrors } = await openContext();
  try {
    await page.goto(`${server.baseUrl}/app/channels`);
    await logIn(page, OWNER_EMAIL, OWNER_PASSWORD);
    const switcher = page.getByRole('combobox', { name: /^Organization/ });
    await switcher.waitFor();
    assert.equal(await switcher.inputValue(), server.organizationId);
    await page.getByRole('heading', { name: 'No channels yet' }).waitFor();

    await switcher.selectOption(other.organizationId);
    const row = page.locator('tbody tr', { hasText: 'Acme support line' });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /\+49 30 1234567/);
    assert.match((await page.locator('aside.sidebar').textContent()) ?? '', /Your role: admin/);

    // API keys are the other organization's: its key is listed, the bootstrap key is not.
    await nav(page).getByRole('link', { name: 'API keys' }).click();
    await page.locator('tbody tr', { hasText: 'Acme key' }).waitFor();
    assert.equal(await page.locator('tbody tr', { hasText: server.apiKey.slice(0, 8) }).count(), 0);

    // The choice survives a reload.
    await page.reload();
    await page.locator('tbody tr', { hasText: 'Acme key' }).waitFor();
    assert.equal(await page.getByRole('combobox', { name: /^Organization/ }).inputValue(), other.organizationId);
    assert.equal(await page.evaluate(() => localStorage.getItem('parley.organizationId')), other.organizationId);

    // A remembered organization the user is no longer in falls back to the session's own.
    await page.evaluate(() => localStorage.setItem('parley.organizationId', '00000000-0000-4000-8000-000000000000'));
    await page.reload();
    await page.locator('tbody tr', { hasText: `${server.apiKey.slice(0, 8)}…` }).waitFor();
    assert.equal(await page.getByRole('combobox', { name: /^Organization/ }).inputValue(), server.organizationId);
    assert.deepEqual(pageErrors, []);
  } finally {
    await context.close();
  }
});

test('a normal visit logs nothing: signed out, the page asks for no session; signed in, every page of the menu loads without a console error or an accessibility violation', async () => {
  const { context, page, consoleLines, pageErrors } = await openContext();
  try {
    const asked: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname.startsWith('/v1/')) asked.push(new URL(r.url()).pathname);
    });
    await page.goto(`${server.baseUrl}/app/inbox`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.equal(asked.includes('/v1/auth/session'), false, 'no session cookie: no probe, so no 401');
    assert.deepEqual(
      consoleLines.filter((l) => l.startsWith('error:')),
      [],
    );

    await logIn(page, OWNER_EMAIL, OWNER_PASSWORD);
    await page.waitForURL(`${server.baseUrl}/app/inbox`);
    // Every page the menu offers, reached by the menu, renders its heading (once the menu is drawn).
    await nav(page).getByRole('link').first().waitFor();
    const links = await nav(page)
      .getByRole('link')
      .evaluateAll((as) => as.map((a) => ({ href: a.getAttribute('href')!, target: a.getAttribute('target') })));
    const pages = links.filter((l) => l.target !== '_blank').map((l) => l.href);
    assert.ok(pages.length >= 14, `the menu lists every area's pages (${pages.join(', ')})`);
    for (const href of pages) {
      await nav(page).locator(`a[href="${href}"]`).click();
      await page.waitForURL(`${server.baseUrl}${href}`);
      await page
        .locator('main#content h1')
        .first()
        .waitFor()
        .catch((err: Error) => {
          throw new Error(
            `${href}: no heading (${err.message.split('\n')[0]}); console: ${consoleLines.filter((l) => l.startsWith('error:')).join(' | ')} ${pageErrors.join(' | ')}`,
          );
        });
      assert.notEqual(await page.locator('main#content h1').first().textContent(), 'Page not found', href);
      // Every page, empty as it is here (the area tests check them full), at desktop and phone width.
      await assertAccessible(page, `${href} (desktop)`);
      await page.setViewportSize(PHONE);
      await assertAccessible(page, `${href} (phone)`);
      await page.setViewportSize(DESKTOP);
    }
    await page.getByText('Live updates on').waitFor();
    assert.deepEqual(
      { consoleErrors: consoleLines.filter((l) => l.startsWith('error:')), pageErrors },
      { consoleErrors: [], pageErrors: [] },
    );
  } finally {
    await context.close();
  }
});

test('the API reference page: no CSP error, no accessibility violation at desktop and phone width, and it fits a phone', async () => {
  const recorded = await openContext();
  const { context, page } = recorded;
  try {
    // swagger-ui takes its time over a document this size (over 10 s on a loaded machine).
    page.setDefaultTimeout(60_000);
    await page.goto(`${server.baseUrl}/v1/docs/`);
    await page.getByRole('heading', { name: /Parley API/, level: 1 }).waitFor();
    await page.locator('.opblock-tag').first().waitFor();
    // One operation opened, as a reader would.
    await page.locator('.opblock-summary-control').first().click();
    await page.locator('.opblock-body').first().waitFor();
    await assertAccessible(page, 'API reference (desktop)');
    await page.setViewportSize(PHONE);
    await assertAccessible(page, 'API reference (phone)');
    await assertFitsWidth(page, 'API reference (phone)');
    assert.deepEqual(problemsOf(recorded), { consoleErrors: [], pageErrors: [] }, 'no CSP violation (they are console errors)');
  } finally {
    await context.close();
  }
});
