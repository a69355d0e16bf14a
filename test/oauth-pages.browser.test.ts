/**
 * The OAuth pages in a real browser (Debian's chromium through playwright-core) against a real
 * server: a third-party client (openid-client builds its authorization URL) sends a signed-out person
 * to the consent page, who signs in, comes back, chooses organizations and lands on the client's
 * loopback redirect with code and state; the device page takes a code and approves or denies it;
 * sign-in returns only to the dashboard's own pages; no page can be framed.
 * Needs the built dashboard (`npm run build:dashboard`).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { eq } from 'drizzle-orm';
import * as oidc from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import { oauthAuthorizationRequests, oauthDeviceAuthorizations } from '../src/db/schema.ts';
import { addMembership } from '../src/domain/organizations/organizations.ts';
import { findUserByEmail } from '../src/domain/users/users.ts';
import { sha256Hex } from '../src/lib/crypto.ts';
import { closeBrowserSuite, openBrowserSuite, logIn as fillSignIn, openContext } from './browser.ts';
import { createOtherOrganization, OWNER_EMAIL, OWNER_PASSWORD, request, type TestServer } from './harness.ts';
import { createOAuthClient, pkcePair, type ClientFixture } from './oauth-client-fixture.ts';

let server: TestServer;
let browser: Browser;
/** The client's side: its loopback redirect URI, which records what it is sent, and a page that frames the dashboard. */
let clientSite: Server;
let clientOrigin: string;
const callbacks: URL[] = [];
let client: ClientFixture;
let second: Awaited<ReturnType<typeof createOtherOrganization>>;

before(async () => {
  ({ server, browser } = await openBrowserSuite());
  clientSite = createServer((req, res) => {
    const url = new URL(req.url ?? '/', clientOrigin);
    if (url.pathname === '/callback') {
      callbacks.push(url);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>CLI</title><h1>The CLI is signed in</h1>');
    } else if (url.pathname === '/frame') {
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<!doctype html><title>Framing</title><iframe name="victim" src="${server.baseUrl}/app/device"></iframe>`);
    } else if (url.pathname === '/favicon.ico') res.writeHead(204).end();
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => clientSite.listen(0, '127.0.0.1', resolve));
  clientOrigin = `http://127.0.0.1:${(clientSite.address() as AddressInfo).port}`;
  client = await createOAuthClient(server, {
    name: 'Browser CLI',
    redirectUris: [`${clientOrigin}/callback`],
    scopes: ['channels:read', 'messages:send'],
  });
  second = await createOtherOrganization(server, 'Acme Labs');
  const owner = await findUserByEmail(server.container.database.db, OWNER_EMAIL);
  await addMembership(
    { db: server.container.database.db, clock: server.container.clock },
    { organizationId: second.organizationId, userId: owner!.id, role: 'member' },
  );
});

after(async () => {
  await new Promise((resolve) => clientSite?.close(resolve));
  await closeBrowserSuite({ server, browser });
});

async function openPage() {
  const { context, page, consoleLines, pageErrors } = await openContext(browser, { width: 1100, height: 900 });
  const problems = () => ({
    pageErrors,
    consoleErrors: consoleLines.filter((line) => line.startsWith('error:') && !/401 \(Unauthorized\)/.test(line)),
  });
  return { context, page, problems };
}

/** Signs the owner in on the sign-in page, once it shows. */
async function logIn(page: Page) {
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await fillSignIn(page, OWNER_EMAIL, OWNER_PASSWORD);
}

test('a signed-out person follows a client to the consent page, signs in, comes back, approves two organizations and lands on the redirect with code and state', async () => {
  const { context, page, problems } = await openPage();
  try {
    const config = new oidc.Configuration(
      { issuer: server.config.baseUrl, authorization_endpoint: `${server.config.baseUrl}/v1/oauth/authorize` },
      client.clientId,
      undefined,
      oidc.None(),
    );
    oidc.allowInsecureRequests(config);
    const { challenge } = pkcePair();
    const state = oidc.randomState();
    const authorizationUrl = oidc.buildAuthorizationUrl(config, {
      redirect_uri: client.redirectUris[0]!,
      scope: 'channels:read messages:send',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
    });

    const first = await page.goto(authorizationUrl.href);
    // Signed out: the sign-in page, set to come back to the consent page.
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const signIn = new URL(page.url());
    assert.equal(signIn.pathname, '/app/login');
    const returnTo = signIn.searchParams.get('return_to') ?? '';
    assert.match(returnTo, /^\/app\/oauth\/authorize\?request=[0-9a-f-]{36}$/);
    assert.equal(first?.headers()['x-frame-options'], 'DENY');
    await logIn(page);

    await page.getByRole('heading', { name: 'Authorize Browser CLI' }).waitFor();
    assert.equal(new URL(page.url()).pathname + new URL(page.url()).search, returnTo, 'back on the consent page');
    const scopes = page.getByRole('list', { name: 'What it asks for' });
    assert.deepEqual(await scopes.getByRole('listitem').allTextContents(), [
      'Read channels, their status and capabilities channels:read',
      'Send messages and change conversations messages:send',
    ]);
    const own = page.getByRole('checkbox', { name: new RegExp(server.config.bootstrap.organizationName) });
    const labs = page.getByRole('checkbox', { name: /Acme Labs/ });
    assert.equal(await own.isChecked(), true, 'the organization the dashboard acts in is preselected');
    assert.equal(await labs.isChecked(), false);
    // Nothing chosen, nothing to approve.
    await own.uncheck();
    assert.equal(await page.getByRole('button', { name: 'Approve' }).isDisabled(), true);
    await own.check();
    await labs.check();
    await page.getByRole('button', { name: 'Approve' }).click();

    await page.waitForURL((url) => url.href.startsWith(`${clientOrigin}/callback?`));
    await page.getByRole('heading', { name: 'The CLI is signed in' }).waitFor();
    const landed = new URL(page.url());
    const code = landed.searchParams.get('code') ?? '';
    server.registerSensitive('an authorization code', code);
    assert.match(code, /^plc_/);
    assert.equal(landed.searchParams.get('state'), state);
    assert.equal(landed.searchParams.get('iss'), server.config.baseUrl);
    assert.equal(callbacks.at(-1)?.href, landed.href, 'the client received it');

    const [row] = await server.container.database.db
      .select()
      .from(oauthAuthorizationRequests)
      .where(eq(oauthAuthorizationRequests.codeHash, sha256Hex(code)));
    assert.ok(row);
    assert.equal(row.status, 'approved');
    assert.deepEqual([...row.organizationIds!].sort(), [server.organizationId, second.organizationId].sort());
    assert.deepEqual(problems(), { pageErrors: [], consoleErrors: [] });
  } finally {
    await context.close();
  }
});

test('the device page: a signed-out person opens the complete URI, signs in, confirms the prefilled code and approves; then denies another code typed by hand', async () => {
  const start = async () => {
    const res = await request(server, 'POST', '/v1/oauth/device', {
      rawBody: `client_id=${client.clientId}&scope=channels%3Aread`,
      contentType: 'application/x-www-form-urlencoded',
    });
    assert.equal(res.status, 200, res.text);
    server.registerSensitive('a device code', res.body.device_code);
    return res.body as { device_code: string; user_code: string; verification_uri_complete: string };
  };
  const rowOf = async (deviceCode: string) =>
    (
      await server.container.database.db
        .select()
        .from(oauthDeviceAuthorizations)
        .where(eq(oauthDeviceAuthorizations.deviceCodeHash, sha256Hex(deviceCode)))
    )[0]!;
  const device = await start();
  const { context, page, problems } = await openPage();
  try {
    await page.goto(device.verification_uri_complete);
    await logIn(page);
    await page.getByRole('heading', { name: 'Connect a device' }).waitFor();
    const codeField = page.getByRole('textbox', { name: 'Code' });
    assert.equal(await codeField.inputValue(), device.user_code, 'the code from the link is filled in');
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.getByRole('heading', { name: 'Connect Browser CLI' }).waitFor();
    assert.match((await page.locator('main').textContent()) ?? '', new RegExp(`Check that your device shows ${device.user_code}`));
    assert.deepEqual(await page.getByRole('list', { name: 'What it asks for' }).getByRole('listitem').allTextContents(), [
      'Read channels, their status and capabilities channels:read',
    ]);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'Device connected' }).waitFor();
    assert.match((await page.getByRole('status').textContent()) ?? '', /Browser CLI can now reach the organizations you chose/);
    const approved = await rowOf(device.device_code);
    assert.equal(approved.status, 'approved');
    assert.deepEqual(approved.organizationIds, [server.organizationId]);

    // A wrong code is told apart from a right one; a right one typed by hand (any case, no dash) works.
    await page.getByRole('button', { name: 'Enter another code' }).click();
    await codeField.fill('BCDF-BCDF');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('alert').getByText('No device is waiting for this code').waitFor();
    const other = await start();
    await codeField.fill(other.user_code.replace('-', '').toLowerCase());
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByRole('heading', { name: 'Access denied' }).waitFor();
    assert.equal((await rowOf(other.device_code)).status, 'denied');
    const { pageErrors, consoleErrors } = problems();
    assert.deepEqual(pageErrors, []);
    // The wrong code's 404 is the only failed request the browser reports.
    assert.deepEqual(
      consoleErrors.filter((line) => !/404 \(Not Found\)/.test(line)),
      [],
    );
  } finally {
    await context.close();
  }
});

test('sign-in returns only to the dashboard: return_to elsewhere is ignored', async () => {
  const { context, page } = await openPage();
  try {
    const elsewhere = [
      `${clientOrigin}/callback`,
      `//127.0.0.1:${new URL(clientOrigin).port}/callback`,
      '/v1/openapi.json',
      '/app/login?return_to=%2Fv1%2Fopenapi.json',
    ];
    for (const [i, target] of elsewhere.entries()) {
      await page.goto(`${server.baseUrl}/app/login?return_to=${encodeURIComponent(target)}`);
      // Signed out the first time; after that the session is there and the page moves on by itself.
      if (i === 0) await logIn(page);
      await page.waitForURL(`${server.baseUrl}/app/inbox`);
    }
    // A path of the dashboard is where it returns.
    await page.goto(`${server.baseUrl}/app/login?return_to=${encodeURIComponent('/app/settings/sessions')}`);
    await page.waitForURL(`${server.baseUrl}/app/settings/sessions`);
    assert.equal(callbacks.filter((u) => !u.searchParams.has('code')).length, 0, 'the client site was never visited');
  } finally {
    await context.close();
  }
});

test('no dashboard page can be framed by another site', async () => {
  const { context, page } = await openPage();
  try {
    // The framing page's load event waits for its frame, refused or not.
    await page.goto(`${clientOrigin}/frame`, { waitUntil: 'load' });
    // Found through its element: a refused frame's error page does not always keep the frame's name.
    const frame = await (await page.locator('iframe[name="victim"]').elementHandle())?.contentFrame();
    assert.ok(frame);
    // The browser refused to render it: the frame holds its own error page, not the dashboard.
    assert.equal(await frame.locator('#root').count(), 0, `the dashboard did not load in the frame (${frame.url()})`);
  } finally {
    await context.close();
  }
});
