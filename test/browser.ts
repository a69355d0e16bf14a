/**
 * What the browser tests share: Debian's chromium through playwright-core, a fresh profile per test
 * that records console output and page errors, and the dashboard's sign-in form.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { DASHBOARD_DIR } from '../src/http/dashboard.ts';

export const CHROMIUM = '/usr/bin/chromium';

/** Chromium, headless, once the dashboard is built. */
export async function launchBrowser(): Promise<Browser> {
  assert.ok(existsSync(path.join(DASHBOARD_DIR, 'index.html')), 'the dashboard is not built: run `npm run build:dashboard` first');
  assert.ok(existsSync(CHROMIUM), `no browser at ${CHROMIUM}: apt-get install -y chromium`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A fresh browser profile that records console output and page errors for later checks. */
export async function openContext(browser: Browser, viewport = { width: 1280, height: 860 }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const consoleLines: string[] = [];
  const pageErrors: string[] = [];
  page.on('console', (message) => consoleLines.push(`${message.type()}: ${message.text()} [${message.location().url}]`));
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  return { context, page, consoleLines, pageErrors };
}

/** Fills in and sends the sign-in form. */
export async function logIn(page: Page, email: string, password: string) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
