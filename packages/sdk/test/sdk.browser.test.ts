// The SDK bundled for browsers (esbuild, platform browser, minified: the bundle the size report measures)
// and run in real Chromium on the service's own origin: it lists channels, pages through a list, maps an
// error to its class, and verifies a webhook signature (no Node module anywhere in it).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { closeBrowserSuite, openBrowserSuite, openContext, problemsOf } from '../../../test/browser.ts';
import type { TestServer } from '../../../test/harness.ts';
import { bundleForBrowser } from '../scripts/bundle.ts';

let server: TestServer;
let browser: Browser;
let bundle: string;

before(async () => {
  ({ server, browser } = await openBrowserSuite());
  bundle = `${await bundleForBrowser({ format: 'iife', globalName: 'ParleySDK', minify: true })};globalThis.ParleySDK = ParleySDK;`;
});
after(() => closeBrowserSuite({ server, browser }));

test('the browser bundle calls the service from its own origin: a channel created and listed, pages iterated, a 404 as NotFoundError', async () => {
  const { context, page, ...recorded } = await openContext(browser);
  try {
    // The service allows no cross-origin calls: the page is one of its own.
    await page.goto(`${server.baseUrl}/v1/health`);
    await page.evaluate(bundle);
    const result = await page.evaluate(async (apiKey) => {
      const { Parley, NotFoundError } = (globalThis as any).ParleySDK;
      const parley = new Parley({ baseUrl: location.origin, apiKey });
      const made = [];
      for (const name of ['One', 'Two', 'Three'])
        made.push((await parley.channels.create({ body: { platform: 'chatapp_official', name } })).data.id);
      const first = await parley.channels.list({ limit: 2 });
      const all = [];
      for await (const channel of parley.channels.list({ limit: 1 })) all.push(channel.id);
      const missing = await parley.messages.get({ messageID: '0196b1f2-0a00-7000-8000-0000000000f1' }).catch((e: unknown) => e);
      return {
        made,
        first: first.data.length,
        all,
        notFound: missing instanceof NotFoundError,
        status: missing.status,
        userAgent: navigator.userAgent,
      };
    }, server.apiKey);
    assert.equal(result.first, 2);
    assert.deepEqual([...result.all].sort(), [...result.made].sort());
    assert.equal(result.notFound, true);
    assert.equal(result.status, 404);
    assert.deepEqual(problemsOf(recorded).pageErrors, []);
  } finally {
    await context.close();
  }
});

test('verifyWebhook in the browser: a signature made by the standardwebhooks package holds, a changed body does not', async () => {
  const secret = `whsec_${Buffer.from('a browser-side secret of 24b').toString('base64')}`;
  const body = JSON.stringify({ message_id: 'm1', status: 'read' });
  const timestamp = new Date();
  const headers = {
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign('msg_1', timestamp, body),
  };
  const { context, page } = await openContext(browser);
  try {
    await page.goto(`${server.baseUrl}/v1/health`);
    await page.evaluate(bundle);
    const outcome = await page.evaluate(
      ({ secret, body, headers }) => {
        const { verifyWebhook, WebhookVerificationError } = (globalThis as any).ParleySDK;
        const event = verifyWebhook(new TextEncoder().encode(body), new Headers(headers), secret);
        let tampered = 'accepted';
        try {
          verifyWebhook(body.replace('read', 'sent'), headers, secret);
        } catch (err) {
          tampered = err instanceof WebhookVerificationError ? 'refused' : String(err);
        }
        return { event, tampered };
      },
      { secret, body, headers },
    );
    assert.deepEqual(outcome.event, { message_id: 'm1', status: 'read' });
    assert.equal(outcome.tampered, 'refused');
  } finally {
    await context.close();
  }
});
