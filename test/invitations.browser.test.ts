/**
 * The invitation page in a real browser (Debian's chromium through playwright-core) against a real
 * server: a new person opens the link, signs up and lands in the dashboard; a person with an account
 * signs in from the page, comes back and accepts; a broken link says so. Needs the built dashboard
 * (`npm run build:dashboard`).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { closeBrowserSuite, openBrowserSuite, logIn, openContext } from './browser.ts';
import { createOtherOrganization, request, type TestServer } from './harness.ts';
import { MEMBER_PASSWORD } from './org-helpers.ts';

let server: TestServer;
let browser: Browser;

before(async () => ({ server, browser } = await openBrowserSuite()));
after(() => closeBrowserSuite({ server, browser }));

async function invite(email: string, role: 'admin' | 'member'): Promise<string> {
  const res = await request(server, 'POST', `/v1/organizations/${server.organizationId}/invitations`, {
    key: server.apiKey,
    body: { email, role },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.data.url;
}

async function members(): Promise<Array<{ email: string; role: string }>> {
  return (await request(server, 'GET', `/v1/organizations/${server.organizationId}/members`, { key: server.apiKey })).body.data;
}

test('a new person opens the link, signs up with name and password, and lands in the dashboard', async () => {
  const url = await invite('browser-new@example.com', 'admin');
  const { context, page, pageErrors } = await openContext(browser);
  try {
    await page.goto(url);
    await page.getByRole('heading', { name: 'Join My organization' }).waitFor();
    assert.equal(new URL(page.url()).hash, '', 'the token left the address bar');
    await page.getByText('invited browser-new@example.com').waitFor();
    await page.getByLabel('Your name').fill('Browser Newcomer');
    await page.getByLabel('Password').fill(MEMBER_PASSWORD);
    await page.getByRole('button', { name: 'Create account and join' }).click();
    await page.getByRole('heading', { name: 'Welcome to My organization' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'as admin' }).waitFor();
    await page.getByRole('link', { name: 'Open Parley' }).click();
    // Signed in by the sign-up: the app's shell, not the sign-in page.
    await page.getByRole('button', { name: /log out/i }).waitFor();
    assert.deepEqual((await members()).find((m) => m.email === 'browser-new@example.com')?.role, 'admin');
    assert.deepEqual(pageErrors, []);
  } finally {
    await context.close();
  }
});

test('a person with an account signs in from the page, comes back to it and accepts', async () => {
  const other = await createOtherOrganization(server, 'browser-existing');
  const url = await invite(other.email, 'member');
  const { context, page, pageErrors } = await openContext(browser);
  try {
    await page.goto(url);
    await page.getByRole('heading', { name: 'Join My organization' }).waitFor();
    await page.getByRole('link', { name: 'Sign in to accept' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await logIn(page, other.email, other.password);
    await page.getByRole('button', { name: `Accept as ${other.email}` }).click();
    await page.getByRole('heading', { name: 'Welcome to My organization' }).waitFor();
    assert.equal((await members()).find((m) => m.email === other.email)?.role, 'member');
    assert.deepEqual(pageErrors, []);
  } finally {
    await context.close();
  }
});

test('a broken link, or none, says so', async () => {
  const { context, page } = await openContext(browser);
  try {
    await page.goto(`${server.config.appUrl}/invitations#token=pli_not-a-real-token-at-all-000000`);
    await page.getByText('This invitation link is not valid').waitFor();
    await page.goto(`${server.config.appUrl}/invitations`);
    await page.evaluate(() => sessionStorage.clear());
    await page.reload();
    await page.getByText('needs the whole invitation link').waitFor();
  } finally {
    await context.close();
  }
});
