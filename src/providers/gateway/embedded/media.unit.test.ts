import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { encryptedStream } from 'baileys';
import type { MediaDownload } from '../../provider.ts';
import { downloadEmbeddedMedia, mediaUrlOf } from './media.ts';
import { loadLibrary } from './library.ts';

// mediaUrlOf reads a direct path with the chat library, which the download loads first.
await loadLibrary();

/** Bytes encrypted by the library itself, as the service stores them. */
async function encrypt(plain: Buffer, type: 'image' | 'document' | 'audio') {
  const out = await encryptedStream(plain, type);
  const bytes = await readFile(out.encFilePath);
  await rm(out.encFilePath, { force: true });
  if (out.originalFilePath) await rm(out.originalFilePath, { force: true });
  return {
    bytes,
    mediaKey: out.mediaKey.toString('base64'),
    fileSha256: out.fileSha256.toString('base64'),
    fileEncSha256: out.fileEncSha256.toString('base64'),
    fileLength: out.fileLength,
  };
}

const files = new Map<string, Buffer>();
const requests: Array<{ url: string; origin?: string }> = [];
let server: Server;
let base = '';
before(async () => {
  server = createServer((req, res) => {
    requests.push({ url: req.url!, origin: req.headers.origin });
    const body = files.get(req.url!);
    if (req.url === '/busy') return res.writeHead(503).end();
    if (!body) return res.writeHead(404).end();
    // In small pieces, so the MAC held back spans chunk boundaries.
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    for (let i = 0; i < body.length; i += 7) res.write(body.subarray(i, i + 7));
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

const LOOPBACK = { allowPrivate: true };
async function collect(download: MediaDownload): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of download.body) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}

test('media encrypted by the library comes back as the original bytes, with its declared type and size', async () => {
  for (const [type, size] of [
    ['image', 1234],
    ['document', 70_001],
    ['audio', 16],
  ] as const) {
    const plain = randomBytes(size);
    const enc = await encrypt(plain, type);
    files.set(`/${type}.enc`, enc.bytes);
    const result = await downloadEmbeddedMedia(
      {
        mediaType: type,
        url: `${base}/${type}.enc`,
        mediaKey: enc.mediaKey,
        fileSha256: enc.fileSha256,
        fileLength: enc.fileLength,
        mimetype: 'x/y',
      },
      LOOPBACK,
    );
    assert.equal(result.ok, true, JSON.stringify(result));
    if (!result.ok) return;
    assert.deepEqual([result.value.mimeType, result.value.size], ['x/y', size]);
    assert.deepEqual(await collect(result.value), plain, type);
  }
  assert.equal(requests.at(-1)!.origin, 'https://web.whatsapp.com', 'the media host expects the web origin');
});

test('tampered bytes or a wrong hash fail the stream before it ends', async () => {
  const plain = randomBytes(500);
  const enc = await encrypt(plain, 'image');
  const tampered = Buffer.from(enc.bytes);
  tampered[20] = tampered[20]! ^ 0xff;
  files.set('/tampered.enc', tampered);
  const bad = await downloadEmbeddedMedia({ mediaType: 'image', url: `${base}/tampered.enc`, mediaKey: enc.mediaKey }, LOOPBACK);
  assert.ok(bad.ok);
  await assert.rejects(collect(bad.value), /integrity check \(MAC\)/);

  files.set('/good.enc', enc.bytes);
  const wrongHash = await downloadEmbeddedMedia(
    { mediaType: 'image', url: `${base}/good.enc`, mediaKey: enc.mediaKey, fileSha256: Buffer.alloc(32).toString('base64') },
    LOOPBACK,
  );
  assert.ok(wrongHash.ok);
  await assert.rejects(collect(wrongHash.value), /integrity check \(SHA-256\)/);

  const wrongKey = await downloadEmbeddedMedia(
    { mediaType: 'image', url: `${base}/good.enc`, mediaKey: randomBytes(32).toString('base64') },
    LOOPBACK,
  );
  assert.ok(wrongKey.ok);
  await assert.rejects(collect(wrongKey.value), /integrity check/);
});

test('only the service media hosts are fetched (unless private targets are allowed); limits and missing media are clear errors', async () => {
  const before = requests.length;
  const production = { allowPrivate: false };
  const elsewhere = await downloadEmbeddedMedia({ mediaType: 'image', url: 'https://example.invalid/x.enc', mediaKey: 'AAAA' }, production);
  assert.deepEqual(!elsewhere.ok && [elsewhere.error.code, elsewhere.error.retryable], ['media_url_refused', false]);
  const plainHttp = mediaUrlOf({ url: 'http://mmg.whatsapp.net/x' }, production);
  assert.equal(!plainHttp.ok && plainHttp.error.code, 'media_url_refused');
  const loopback = await downloadEmbeddedMedia({ mediaType: 'image', url: `${base}/good.enc`, mediaKey: 'AAAA' }, production);
  assert.equal(!loopback.ok && loopback.error.code, 'media_url_refused');
  // A direct path is on the default media host.
  const direct = mediaUrlOf({ directPath: '/v/t62.7118-24/abc.enc?oh=1' }, production);
  assert.equal(direct.ok && direct.value.toString(), 'https://mmg.whatsapp.net/v/t62.7118-24/abc.enc?oh=1');
  const hostUrl = mediaUrlOf({ url: 'https://mmg.whatsapp.net/d/f/abc.enc' }, production);
  assert.equal(hostUrl.ok, true);

  const huge = await downloadEmbeddedMedia(
    { mediaType: 'image', url: `${base}/good.enc`, mediaKey: 'AAAA', fileLength: 6 * 1024 * 1024 },
    LOOPBACK,
  );
  assert.deepEqual(!huge.ok && [huge.error.code, huge.error.retryable], ['media_too_large', false]);
  const noKey = await downloadEmbeddedMedia({ mediaType: 'image', url: `${base}/good.enc` }, LOOPBACK);
  assert.equal(!noKey.ok && noKey.error.code, 'media_unavailable');
  assert.equal(requests.length, before, 'nothing above was fetched');

  const gone = await downloadEmbeddedMedia({ mediaType: 'image', url: `${base}/expired.enc`, mediaKey: 'AAAA' }, LOOPBACK);
  assert.deepEqual(!gone.ok && [gone.error.code, gone.error.retryable], ['media_expired', false]);
  const busy = await downloadEmbeddedMedia({ mediaType: 'image', url: `${base}/busy`, mediaKey: 'AAAA' }, LOOPBACK);
  assert.deepEqual(!busy.ok && [busy.error.code, busy.error.retryable], ['media_unreachable', true]);
});
