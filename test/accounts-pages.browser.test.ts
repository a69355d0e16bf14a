/**
 * The account pages in a real browser (Debian's chromium through playwright-core) against real
 * servers: a password-reset link opens /app/reset-password, which takes the new password twice and
 * sends the person to sign in with it; a used link says so. /app/login offers sign-up only when the
 * server runs with SIGNUP=open, and /app/signup makes an account and signs it in.
 * Needs the built dashboard (`npm run build:dashboard`).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser, logIn, openContext } from './browser.ts';
import { loginCookie, request, startTestServer, type TestServer } from './harness.ts';
import { addPerson } from './accounts-fixtures.ts';

let closed: TestServer;
let open: TestServer;
let browser: Browser;

before(async () => {
  closed = await startTestServer();
  open = await startTestServer({ env: { SIGNUP: 'open' } });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await closed?.close();
  await open?.close();
});

async function openPage() {
  const { context, page, consoleLines, pageErrors } = await openContext(browser, { width: 1100, height: 900 });
  // A signed-out page asks for the session first (401), and a refused request is logged by the browser.
  const problems = () => ({
    pageErrors,
    consoleErrors: consoleLines.filter((line) => line.startsWith('error:') && !/40[149] \(|410 \(/.test(line)),
  });
  return { context, page, problems };
}

/** A reset link for a new member of the closed server's organization, made by its owner. */
async function resetLink() {
  const member = await addPerson(closed, 'member');
  const res = await request(closed, 'POST', `/v1/organizations/${closed.organizationId}/members/${member.userId}/password-reset`, {
    cookie: await loginCookie(closed),
  });
  assert.equal(res.status, 201, res.text);
  const url = res.body.data.url as string;
  closed.registerSensitive('a password-reset token', decodeURIComponent(new URL(url).hash.slice('#token='.length)));
  return { member, url };
}

test('a reset link opens the page, which takes the new password twice and sends the person to sign in with it', async () => {
  const { context, page, problems } = await openPage();
  try {
    const { member, url } = await resetLink();
    await page.goto(url);
    await page.getByRole('heading', { name: 'Set a new password' }).waitFor();
    assert.equal(new URL(page.url()).hash, '', 'the token stays in the address bar');
    const newPassword = 'chosen in the browser';
    await page.getByLabel('New password', { exact: true }).fill(newPassword);
    await page.getByLabel('New password again').fill(`${newPassword} typo`);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('alert').filter({ hasText: 'The two passwords differ' }).waitFor();
    await page.getByLabel('New password again').fill(newPassword);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('status').filter({ hasText: 'Your password is set' }).waitFor();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await logIn(page, member.email, newPassword);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/app/inbox');
    assert.deepEqual(problems(), { pageErrors: [], consoleErrors: [] });
  } finally {
    await context.close();
  }
});

test('a used link, and a page opened without its token, say what to do', async () => {
  const { context, page, problems } = await openPage();
  try {
    const { url } = await resetLink();
    const token = decodeURIComponent(new URL(url).hash.slice('#token='.length));
    assert.equal(
      (await request(closed, 'POST', '/v1/auth/password-reset', { body: { token, new_password: 'used already once' } })).status,
      204,
    );
    await page.goto(url);
    await page.getByLabel('New password', { exact: true }).fill('another good passphrase');
    await page.getByLabel('New password again').fill('another good passphrase');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('alert').filter({ hasText: 'This password reset link was already used' }).waitFor();
    await page.goto(`${closed.config.appUrl}/reset-password`);
    await page.getByRole('alert').filter({ hasText: 'This page needs the whole reset link' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Set password' }).count(), 0);
    assert.deepEqual(problems().pageErrors, []);
  } finally {
    await context.close();
  }
});

test('with SIGNUP=closed the sign-in page offers no sign-up', async () => {
  const { context, page } = await openPage();
  try {
    // The sign-up state is fetched as the form shows: its answer is awaited before looking.
    const answered = page.waitForResponse((r) => r.url().endsWith('/v1/auth/signup'));
    await page.goto(`${closed.config.appUrl}/login`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.equal((await answered).status(), 200);
    await page.getByText('Forgot your password?').waitFor();
    assert.equal(await page.getByRole('link', { name: 'Create one' }).count(), 0);
  } finally {
    await context.close();
  }
});

test('with SIGNUP=open the sign-in page links to sign-up, which makes an account and organization and signs in', async () => {
  const { context, page, problems } = await openPage();
  try {
    await page.goto(`${open.config.appUrl}/login`);
    await page.getByRole('link', { name: 'Create one' }).click();
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await page.getByLabel('Your name').fill('Bea Browser');
    await page.getByLabel('Email').fill('bea@example.com');
    await page.getByLabel('Password').fill('bea signs up here');
    await page.getByLabel('Organization name').fill('Bea Studio');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    await page.locator('aside.sidebar').getByText('Bea Studio').waitFor();
    await page.getByText('Your role: owner').waitFor();
    assert.equal(new URL(page.url()).pathname, '/app/inbox');
    open.registerSensitive('the signed-up password', 'bea signs up here');
    assert.deepEqual(problems(), { pageErrors: [], consoleErrors: [] });
  } finally {
    await context.close();
  }
});
