/**
 * What the browser tests share: Debian's chromium through playwright-core (the one the test runner
 * started for the whole run, when it did: PARLEY_TEST_BROWSER_WS), a fresh profile per test that
 * records console output and page errors, and the dashboard's sign-in form.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { DASHBOARD_DIR } from '../src/http/dashboard.ts';
import { BROWSER_ARGS, CHROMIUM } from './browser-launch.ts';
import { startTestServer, type TestServer, type TestServerOptions } from './harness.ts';

export { CHROMIUM };

/**
 * Chromium, headless, once the dashboard is built: the run's shared one (scripts/test.ts), or one of
 * this file's own. Closing what this returns closes only what the file opened in it.
 */
export async function launchBrowser(): Promise<Browser> {
  assert.ok(existsSync(path.join(DASHBOARD_DIR, 'index.html')), 'the dashboard is not built: run `npm run build:dashboard` first');
  const shared = process.env.PARLEY_TEST_BROWSER_WS;
  if (shared) return chromium.connect(shared);
  assert.ok(existsSync(CHROMIUM), `no browser at ${CHROMIUM}: apt-get install -y chromium`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: BROWSER_ARGS });
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

/** Where browser tests leave what a person can look at afterwards (screenshots): test-output/, ignored by git. */
export const TEST_OUTPUT_DIR = path.resolve(import.meta.dirname, '..', 'test-output');

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's check of the page as it is now (run through the debugging protocol, so the page's CSP
 * does not stand in the way): fails on any violation, whatever its impact (minor and moderate too), naming each.
 */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(
            context: unknown,
            options: unknown,
          ): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown }> }> }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.slice(0, 3).map((n) => JSON.stringify(n.target)),
    }));
  });
  assert.deepEqual(violations, [], `${what}: accessibility violations`);
}

/** No page wider than the screen: nothing scrolls sideways at this viewport. */
export async function assertFitsWidth(page: Page, what: string): Promise<void> {
  const { scroll, width } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, width: window.innerWidth }));
  assert.ok(scroll <= width, `${what}: the page is ${scroll} px wide on a ${width} px screen`);
}

/** Saves a screenshot of the whole page as test-output/screenshots/<name>.png (docs/dashboard.md shows them). */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  const file = path.join(TEST_OUTPUT_DIR, 'screenshots', `${name}.png`);
  mkdirSync(path.dirname(file), { recursive: true });
  // From the top: a page scrolled by the test would draw the sticky sidebar part-way down.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** A phone's viewport (the narrowest the dashboard supports is 360 px). */
export const PHONE = { width: 360, height: 740 };

/**
 * One look at a page the way the issue asks for: no sideways scroll and no accessibility violation
 * at desktop and phone width, with a screenshot of each (`<name>-desktop`, `<name>-phone`).
 */
export async function checkPage(page: Page, name: string): Promise<void> {
  const desktop = page.viewportSize() ?? { width: 1280, height: 860 };
  await assertAccessible(page, `${name} (desktop)`);
  await assertFitsWidth(page, `${name} (desktop)`);
  await saveScreenshot(page, `${name}-desktop`);
  await page.setViewportSize(PHONE);
  await assertFitsWidth(page, `${name} (phone)`);
  await assertAccessible(page, `${name} (phone)`);
  await saveScreenshot(page, `${name}-phone`);
  await page.setViewportSize(desktop);
}

/** Console errors and page errors seen so far (a normal visit has none). */
export function problemsOf(recorded: { consoleLines: string[]; pageErrors: string[] }) {
  return { consoleErrors: recorded.consoleLines.filter((l) => l.startsWith('error:')), pageErrors: recorded.pageErrors };
}

/** What a browser test file runs against: a test server and the browser, started together. */
export type BrowserSuite = { server: TestServer; browser: Browser };

/** Starts a browser test file's server (with its options) and browser, in the order the file's hooks expect. */
export async function openBrowserSuite(options: TestServerOptions = {}): Promise<BrowserSuite> {
  const server = await startTestServer(options);
  try {
    return { server, browser: await launchBrowser() };
  } catch (err) {
    await server.close();
    throw err;
  }
}

/** Closes what openBrowserSuite started (either may be missing when a start failed): the browser first, then the server. */
export async function closeBrowserSuite(suite: Partial<BrowserSuite>): Promise<void> {
  await suite.browser?.close();
  await suite.server?.close();
}
