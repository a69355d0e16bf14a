/**
 * Copying a download into the store (the filesystem store in a temp directory): the type is sniffed
 * from the bytes, the size and hash counted on the way, and a body that passes its limit stops the
 * copy with nothing stored, whatever size the provider declared (here: none).
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { createFsMediaStore } from '../../storage/fs-store.ts';
import { copyMediaIntoStore, MediaTooLargeError } from './inbound-media.ts';
import { MEDIA_RULES, STATIC_STICKER_MAX } from './media.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'parley-inbound-media-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const store = createFsMediaStore(dir);
const files = (): string[] => {
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
  return walk(dir);
};

/** A body in chunks of 64 KB that counts how many chunks were read. */
function body(data: Buffer) {
  const state = { read: 0 };
  async function* chunks() {
    for (let i = 0; i < data.length; i += 65536) {
      state.read++;
      yield data.subarray(i, i + 65536);
    }
  }
  return { body: chunks(), state };
}

const webp = (animated: boolean, size: number) => {
  const head = Buffer.alloc(30);
  head.write('RIFF', 0, 'latin1');
  head.writeUInt32LE(size - 8, 4);
  head.write('WEBPVP8X', 8, 'latin1');
  head.writeUInt32LE(10, 16);
  head[20] = animated ? 0x02 : 0;
  return Buffer.concat([head, randomBytes(size - head.length)]);
};

test('the bytes are stored whole, with their sniffed type, size and SHA-256', async () => {
  const data = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(300_000)]);
  const result = await copyMediaIntoStore(store, 'org/ok', body(data).body, 'image', MEDIA_RULES.image!.maxBytes);
  assert.deepEqual(result, { contentType: 'image/jpeg', size: data.length, sha256: createHash('sha256').update(data).digest('hex') });
  const stored = await store.get('org/ok');
  const chunks: Buffer[] = [];
  for await (const chunk of stored!.body) chunks.push(Buffer.from(chunk));
  assert.ok(Buffer.concat(chunks).equals(data));
});

test('a body with no declared size that passes the limit stops there, reads no further, and leaves nothing', async () => {
  const limit = 200_000;
  const data = randomBytes(2_000_000);
  const { body: source, state } = body(data);
  await assert.rejects(copyMediaIntoStore(store, 'org/big', source, 'image', limit), MediaTooLargeError);
  // 64 KB chunks: the fourth passes 200,000 bytes; nothing after it is read.
  assert.equal(state.read, 4);
  assert.equal(await store.exists('org/big'), false);
  assert.deepEqual(
    files().filter((f) => f.includes('big')),
    [],
  );
});

test('a static sticker is held to 100 KB, an animated one to 500 KB; text bytes are application/octet-stream', async () => {
  const limit = MEDIA_RULES.sticker!.maxBytes;
  await assert.rejects(
    copyMediaIntoStore(store, 'org/static', body(webp(false, STATIC_STICKER_MAX + 1)).body, 'sticker', limit),
    MediaTooLargeError,
  );
  assert.equal(await store.exists('org/static'), false);
  const animated = await copyMediaIntoStore(store, 'org/animated', body(webp(true, 400 * 1024)).body, 'sticker', limit);
  assert.equal(animated.contentType, 'image/webp');
  const small = await copyMediaIntoStore(store, 'org/small', body(webp(false, 50 * 1024)).body, 'sticker', limit);
  assert.equal(small.size, 50 * 1024);
  const text = await copyMediaIntoStore(
    store,
    'org/text',
    body(Buffer.from('hello, plain text')).body,
    'document',
    MEDIA_RULES.document!.maxBytes,
  );
  assert.equal(text.contentType, 'application/octet-stream');
  const empty = await copyMediaIntoStore(store, 'org/empty', body(Buffer.alloc(0)).body, 'document', MEDIA_RULES.document!.maxBytes);
  assert.deepEqual([empty.size, empty.contentType], [0, 'application/octet-stream']);
});
