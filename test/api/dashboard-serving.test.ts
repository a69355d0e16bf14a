/**
 * How the built dashboard is served: deep links answer the page, hashed assets are cached for good
 * and sent compressed as the browser accepts (from the files the build compressed once).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { DASHBOARD_DIR } from '../../src/http/dashboard.ts';
import { startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;

before(async () => {
  assert.ok(existsSync(path.join(DASHBOARD_DIR, 'index.html')), 'the dashboard is not built: run `npm run build:dashboard` first');
  server = await startTestServer();
});

after(async () => {
  await server?.close();
});

/** A GET that sends only the given headers and leaves the body as it came (fetch would ask for gzip and undo it). */
async function get(url: string, headers: Record<string, string> = {}) {
  const response = await request(server.baseUrl + url, { headers });
  const header = (name: string) => {
    const value = response.headers[name];
    return value === undefined ? null : String(value);
  };
  return { status: response.statusCode, headers: { get: header }, body: Buffer.from(await response.body.arrayBuffer()) };
}

test('a deep link answers the page, which is asked again each time; a missing asset is a 404, never the page', async () => {
  const page = await get('/app/inbox/0196b1f2-0a00-7000-8000-000000000002?status=open');
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /text\/html/);
  assert.equal(page.headers.get('cache-control'), 'no-cache');
  assert.match(page.body.toString(), /<div id="root">/);
  assert.equal((await get('/app/assets/missing-0000.js')).status, 404);
});

test('hashed assets are cached for good and sent brotli- or gzip-compressed as accepted, the same bytes either way', async () => {
  const html = (await get('/app/')).body.toString();
  const script = /src="(\/app\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  assert.ok(script, 'the page loads its script from /app/assets');

  const plain = await get(script);
  assert.equal(plain.status, 200);
  assert.equal(plain.headers.get('content-encoding'), null);
  assert.equal(plain.headers.get('cache-control'), 'public, max-age=31536000, immutable');

  const br = await get(script, { 'accept-encoding': 'br, gzip' });
  assert.equal(br.headers.get('content-encoding'), 'br');
  assert.match(br.headers.get('vary') ?? '', /accept-encoding/i);
  assert.ok(br.body.length < plain.body.length / 2, `compressed ${br.body.length} of ${plain.body.length} bytes`);
  assert.deepEqual(brotliDecompressSync(br.body), plain.body);

  const gz = await get(script, { 'accept-encoding': 'gzip' });
  assert.equal(gz.headers.get('content-encoding'), 'gzip');
  assert.deepEqual(gunzipSync(gz.body), plain.body);
});

test("the dashboard's pages may show pictures from the web (a message's media), never scripts; the API keeps its strict policy", async () => {
  for (const url of ['/app/', '/app/inbox/0196b1f2-0a00-7000-8000-000000000002']) {
    const csp = (await get(url)).headers.get('content-security-policy') ?? '';
    const directive = (name: string) =>
      csp
        .split(';')
        .map((d) => d.trim())
        .find((d) => d.startsWith(`${name} `));
    // This test server runs on plain http, so plain http pictures are allowed too.
    assert.equal(directive('img-src'), "img-src 'self' data: https: http:", url);
    assert.equal(directive('media-src'), "media-src 'self' data: https: http:", url);
    assert.equal(directive('script-src'), "script-src 'self'", url);
    assert.equal(directive('frame-ancestors'), "frame-ancestors 'none'", url);
  }
  const api = (await get('/v1/health')).headers.get('content-security-policy') ?? '';
  assert.match(api, /img-src 'self' data:(;|$)/);
});
