/**
 * Both media stores against the same cases: the filesystem store in a temp directory, the S3 store
 * against a real S3-compatible server (s3rver) listening on loopback.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CreateBucketCommand, ListMultipartUploadsCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { createFsMediaStore } from './fs-store.ts';
import type { MediaStore } from './media-store.ts';
import { createS3MediaStore } from './s3-store.ts';

async function collect(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

async function* chunked(data: Buffer, size = 64 * 1024): AsyncIterable<Uint8Array> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

/** Yields `before` bytes, then throws (an aborted download). */
async function* failingAfter(data: Buffer, before: number): AsyncIterable<Uint8Array> {
  yield* chunked(data.subarray(0, before));
  throw new Error('aborted on purpose');
}

function storeCases(name: string, make: () => MediaStore, leftovers: () => Promise<string[]>) {
  describe(name, () => {
    test('put then get returns the bytes and the size; a range returns its bytes and the whole size', async () => {
      const store = make();
      const data = randomBytes(300_000);
      await store.put('org-1/msg-1', chunked(data), { contentType: 'image/png' });
      assert.equal(await store.exists('org-1/msg-1'), true);
      const whole = await store.get('org-1/msg-1');
      assert.equal(whole!.size, data.length);
      assert.deepEqual(await collect(whole!.body), data);
      const part = await store.get('org-1/msg-1', { start: 10, end: 19 });
      assert.equal(part!.size, data.length);
      assert.deepEqual(await collect(part!.body), data.subarray(10, 20));
      const tail = await store.get('org-1/msg-1', { start: data.length - 1, end: data.length - 1 });
      assert.deepEqual(await collect(tail!.body), data.subarray(data.length - 1));
    });

    test('a missing key: get is undefined, exists false, delete no error', async () => {
      const store = make();
      assert.equal(await store.get('org-1/nothing'), undefined);
      assert.equal(await store.exists('org-1/nothing'), false);
      await store.delete('org-1/nothing');
    });

    test('a body that fails part way leaves nothing under the key, and keeps an earlier object whole', async () => {
      const store = make();
      const data = randomBytes(200_000);
      await assert.rejects(
        store.put('org-1/msg-2', failingAfter(data, 100_000), { contentType: 'application/octet-stream' }),
        /aborted on purpose/,
      );
      assert.equal(await store.exists('org-1/msg-2'), false);
      await store.put('org-1/msg-3', chunked(data), { contentType: 'application/octet-stream' });
      await assert.rejects(
        store.put('org-1/msg-3', failingAfter(randomBytes(200_000), 150_000), { contentType: 'application/octet-stream' }),
      );
      assert.deepEqual(await collect((await store.get('org-1/msg-3'))!.body), data);
      assert.deepEqual(
        (await leftovers()).filter((f) => f.includes('msg-2') || f.includes('partial')),
        [],
      );
    });

    test('delete removes the object', async () => {
      const store = make();
      await store.put('org-2/msg-1', chunked(Buffer.from('hello')), { contentType: 'text/plain' });
      await store.delete('org-2/msg-1');
      assert.equal(await store.exists('org-2/msg-1'), false);
      assert.equal(await store.get('org-2/msg-1'), undefined);
    });

    test('keys that could leave the store are refused', async () => {
      const store = make();
      for (const key of ['../x', 'a/../../x', '/abs', 'a//b', 'a/./b', '', 'a b']) {
        await assert.rejects(store.put(key, chunked(Buffer.from('x')), { contentType: 'text/plain' }), /not a path-safe key/, key);
      }
    });
  });
}

const dir = mkdtempSync(path.join(tmpdir(), 'parley-media-store-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const walk = (root: string): string[] =>
  readdirSync(root, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(root, e.name)) : [path.join(root, e.name)]));

storeCases(
  'filesystem store',
  () => createFsMediaStore(path.join(dir, 'fs')),
  async () => walk(path.join(dir, 'fs')),
);

test('filesystem store shards its files two directory levels deep', async () => {
  const store = createFsMediaStore(path.join(dir, 'sharded'));
  await store.put('org/one', chunked(Buffer.from('1')), { contentType: 'text/plain' });
  const files = walk(path.join(dir, 'sharded')).map((f) => path.relative(path.join(dir, 'sharded'), f).split(path.sep));
  assert.equal(files.length, 1);
  assert.match(files[0]![0]!, /^[0-9a-f]{2}$/);
  assert.match(files[0]![1]!, /^[0-9a-f]{2}$/);
  assert.equal(files[0]![2], 'org__one');
});

// A real S3-compatible server on loopback.
let server: S3rver;
let port = 0;
const BUCKET = 'parley-media';
before(async () => {
  server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(dir, 's3rver') });
  ({ port } = await server.run());
  await makeS3().client.send(new CreateBucketCommand({ Bucket: BUCKET }));
});
after(async () => server?.close());

function makeS3(prefix = 'media/') {
  return createS3MediaStore({
    bucket: BUCKET,
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    forcePathStyle: true,
    prefix,
  });
}

async function s3Leftovers(): Promise<string[]> {
  const client = makeS3().client;
  const objects = await client.send(new ListObjectsV2Command({ Bucket: BUCKET }));
  const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: BUCKET })).catch(() => ({ Uploads: [] }));
  return [...(objects.Contents ?? []).map((o) => o.Key!), ...(uploads.Uploads ?? []).map((u) => `upload:${u.Key}`)];
}

storeCases('S3 store (s3rver)', () => makeS3(), s3Leftovers);

test('S3 store: a body over one part goes up as a multipart upload and reads back whole; the prefix is applied', async () => {
  const store = makeS3('big/');
  const data = randomBytes(17 * 1024 * 1024);
  await store.put('org-3/large', chunked(data, 1024 * 1024), { contentType: 'video/mp4' });
  const got = await store.get('org-3/large');
  assert.equal(got!.size, data.length);
  assert.ok((await collect(got!.body)).equals(data));
  assert.ok((await s3Leftovers()).includes('big/org-3/large'));
});

test('S3 store: a multipart upload that fails after a part leaves no object (nor an open upload, where the server lists them)', async () => {
  const store = makeS3();
  const data = randomBytes(20 * 1024 * 1024);
  await assert.rejects(
    store.put('org-3/aborted', failingAfter(data, 18 * 1024 * 1024), { contentType: 'video/mp4' }),
    /aborted on purpose/,
  );
  assert.equal(await store.exists('org-3/aborted'), false);
  assert.deepEqual(
    (await s3Leftovers()).filter((k) => k.includes('aborted')),
    [],
  );
});
