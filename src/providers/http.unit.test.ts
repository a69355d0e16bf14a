/**
 * Media downloads on loopback: streamed as they come, classified by status, and a download stopped
 * part way (a size limit passed) or read to the end leaves no connection open to the server (each
 * download has connections of its own, closed when it ends: none waits in a pool for the server to
 * drop it).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { eventually } from '../../test/eventually.ts';
import { downloadStream } from './http.ts';

let server: Server;
let base = '';
const BIG = Buffer.alloc(8 * 1024 * 1024, 7);
const seen: Array<{ url: string; authorization: string | undefined }> = [];

before(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
    if (req.url === '/big') return void res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(BIG.length) }).end(BIG);
    if (req.url === '/small') return void res.writeHead(200, { 'content-type': 'image/png; charset=binary' }).end('abc');
    if (req.url === '/moved') return void res.writeHead(302, { location: '/small' }).end();
    if (req.url === '/gone') return void res.writeHead(404).end('no');
    if (req.url === '/busy') return void res.writeHead(503, { 'retry-after': '7' }).end('later');
    res.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const policy = { allowPrivate: true };
const connections = () => new Promise<number>((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n))));

test('a download stopped after its first chunk, or never read, leaves no connection open', async () => {
  for (let round = 0; round < 5; round++) {
    const started = await downloadStream({ url: `${base}/big`, headersFor: () => ({}), timeoutMs: 5000, policy });
    assert.ok(started.ok);
    assert.equal(started.value.size, BIG.length);
    const iterator = started.value.body[Symbol.asyncIterator]();
    if (round % 2 === 0) assert.ok(((await iterator.next()).value as Uint8Array).length > 0);
    await iterator.return!();
  }
  await eventually('every connection to close', async () => ((await connections()) === 0 ? true : undefined), 1500);
});

test('a whole body streams; a redirect is followed with the headers its URL gets; statuses are classified', async () => {
  seen.length = 0;
  const moved = await downloadStream({
    url: `${base}/moved`,
    headersFor: (url): Record<string, string> => (url.pathname === '/moved' ? { authorization: 'Bearer first-hop-only' } : {}),
    timeoutMs: 5000,
    policy,
  });
  assert.ok(moved.ok);
  const chunks: Buffer[] = [];
  for await (const chunk of moved.value.body) chunks.push(Buffer.from(chunk));
  assert.equal(Buffer.concat(chunks).toString(), 'abc');
  assert.equal(moved.value.mimeType, 'image/png');
  assert.deepEqual(seen, [
    { url: '/moved', authorization: 'Bearer first-hop-only' },
    { url: '/small', authorization: undefined },
  ]);
  const gone = await downloadStream({ url: `${base}/gone`, headersFor: () => ({}), timeoutMs: 5000, policy });
  assert.deepEqual(!gone.ok && [gone.error.code, gone.error.retryable], ['media_gone', false]);
  const busy = await downloadStream({ url: `${base}/busy`, headersFor: () => ({}), timeoutMs: 5000, policy });
  assert.deepEqual(!busy.ok && [busy.error.code, busy.error.retryable, busy.error.retryAfterSeconds], ['http_503', true, 7]);
  const refused = await downloadStream({ url: `${base}/small`, headersFor: () => ({}), timeoutMs: 5000, policy: { allowPrivate: false } });
  assert.deepEqual(!refused.ok && [refused.error.code, refused.error.retryable], ['unsafe_target', false]);
  await eventually('every connection to close', async () => ((await connections()) === 0 ? true : undefined), 1500);
});
