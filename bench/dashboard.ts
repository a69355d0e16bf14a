/**
 * The dashboard's first load, measured in Debian's chromium (issue 12: ≤ 300 KB of compressed
 * JavaScript, interactive in ≤ 1.5 s on the test machine):
 *  - bytes of JavaScript on the wire (compressed, as sent) for a cold load of /app/inbox signed in;
 *  - time from navigation start until the app is usable: the main navigation and the page heading are
 *    on screen (signed in), or the sign-in form's button is enabled (signed out);
 *  - baseline in the same run: a bare HTML page with one small script, served over loopback by this
 *    process, loaded the same way (what the browser costs by itself).
 *
 *   node bench/dashboard.ts [--rounds 7 (or --runs 7)]
 *
 * The service runs as its own process (`node src/main.ts`, embedded database, log level warn) with
 * the dashboard built (`npm run build:dashboard`). Each round is a fresh browser profile: no cache.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { DASHBOARD_DIR } from '../src/http/dashboard.ts';
import { machine, median, percentile, writeSection } from './bench-report.ts';
import { CHROMIUM } from '../test/browser.ts';
import { freePort } from '../test/harness.ts';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '7' }, runs: { type: 'string' }, write: { type: 'boolean', default: false } },
});
// --runs (bench/run-all.ts) is --rounds; the section is always written (--write accepted).
const ROUNDS = Number(values.runs ?? values.rounds);
if (!existsSync(path.join(DASHBOARD_DIR, 'index.html'))) {
  console.error('build the dashboard first: npm run build:dashboard');
  process.exit(2);
}

const EMAIL = 'bench@example.com';
const PASSWORD = 'correct horse battery staple';
const port = await freePort();
const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-bench-'));
const baseUrl = `http://127.0.0.1:${port}`;
const { DATABASE_URL: _server, ...inherited } = process.env;
const service = spawn(process.execPath, [path.join(import.meta.dirname, '..', 'src', 'main.ts')], {
  env: {
    ...inherited,
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: baseUrl,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    BOOTSTRAP_ADMIN_EMAIL: EMAIL,
    BOOTSTRAP_ADMIN_PASSWORD: PASSWORD,
  },
  stdio: ['ignore', 'ignore', 'inherit'],
});

// The baseline: a bare page with one small script that marks itself done.
const bare = createServer((request, response) => {
  if (request.url === '/bare.js') {
    response.writeHead(200, { 'content-type': 'text/javascript' }).end("document.getElementById('done').textContent = 'ready';");
    return;
  }
  response
    .writeHead(200, { 'content-type': 'text/html' })
    .end(
      '<!doctype html><html><head><title>bare</title></head><body><h1 id="done">loading</h1><script src="/bare.js"></script></body></html>',
    );
});
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
const bareUrl = `http://127.0.0.1:${(bare.address() as { port: number }).port}/`;

type Load = { ms: number; jsBytes: number; jsFiles: number };

async function load(browser: Browser, url: string, ready: string, cookies: Array<{ name: string; value: string }> = []): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  if (cookies.length > 0) await context.addCookies(cookies.map((c) => ({ ...c, url: baseUrl })));
  const page = await context.newPage();
  const scripts: Array<Promise<number>> = [];
  page.on('requestfinished', (request) => {
    if (request.resourceType() === 'script') scripts.push(request.sizes().then((s) => s.responseBodySize));
  });
  await page.goto(url, { waitUntil: 'commit' });
  await page.waitForSelector(ready, { state: 'visible' });
  const ms = await page.evaluate(() => performance.now());
  const sizes = await Promise.all(scripts);
  await context.close();
  return { ms, jsBytes: sizes.reduce((a, b) => a + b, 0), jsFiles: sizes.length };
}

let browser: Browser | undefined;
try {
  for (let i = 0; ; i++) {
    if (
      await fetch(`${baseUrl}/v1/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 600) throw new Error('the service did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  const login = await fetch(`${baseUrl}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
  });
  if (login.status !== 200) throw new Error(`login failed: ${login.status}`);
  const cookies = login.headers.getSetCookie().map((c) => {
    const [pair] = c.split(';');
    const at = pair!.indexOf('=');
    return { name: pair!.slice(0, at), value: pair!.slice(at + 1) };
  });

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'],
  });
  // One load of each, not counted: the service and the browser warm up.
  await load(browser, bareUrl, '#done:text("ready")');
  await load(browser, `${baseUrl}/app/inbox`, 'nav[aria-label="Main"]', cookies);

  const baseline: Load[] = [];
  const signedIn: Load[] = [];
  const signedOut: Load[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    baseline.push(await load(browser, bareUrl, '#done:text("ready")'));
    signedIn.push(await load(browser, `${baseUrl}/app/inbox`, 'main#content h1', cookies));
    signedOut.push(await load(browser, `${baseUrl}/app/login`, 'button[type="submit"]:enabled'));
  }

  const summary = (loads: Load[]) => {
    const times = loads.map((l) => l.ms).sort((a, b) => a - b);
    return {
      median: median(times),
      p95: percentile(times, 95),
      jsBytes: median(loads.map((l) => l.jsBytes)),
      jsFiles: median(loads.map((l) => l.jsFiles)),
    };
  };
  const base = summary(baseline);
  const inbox = summary(signedIn);
  const signIn = summary(signedOut);
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const row = (name: string, s: ReturnType<typeof summary>, target: string) =>
    `| ${name} | ${s.median.toFixed(0)} ms | ${s.p95.toFixed(0)} ms | ${(s.median / base.median).toFixed(1)}× | ${kb(s.jsBytes)} in ${s.jsFiles} file(s) | ${target} |`;
  const body = `
## Dashboard first load (bench/dashboard.ts)

\`node bench/dashboard.ts --rounds ${ROUNDS}\` (after \`npm run build:dashboard\`), ${new Date().toISOString().slice(0, 10)}. Debian chromium ${browser.version()} headless,
a fresh profile per load (nothing cached); the service as its own process on the embedded database. "Usable" is
navigation start until the main navigation and the page's heading show (signed in) or the sign-in button is enabled.

${machine()}

| load | usable, median | p95 | × bare page | JavaScript on the wire (compressed) | target |
|---|---|---|---|---|---|
| bare page (baseline: one HTML file, one tiny script) | ${base.median.toFixed(0)} ms | ${base.p95.toFixed(0)} ms | 1.0× | ${kb(base.jsBytes)} | |
${row('/app/inbox, signed in', inbox, `≤ 1,500 ms and ≤ 300 KB: ${inbox.median <= 1500 && inbox.jsBytes <= 300 * 1024 ? 'met' : 'NOT met'}`)}
${row('/app/login, signed out', signIn, 'same')}
`;
  console.log(body);
  writeSection('dashboard', body);
} finally {
  await browser?.close();
  bare.close();
  service.kill('SIGTERM');
  await new Promise((r) => service.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}
