/**
 * Inbound media in an S3-compatible bucket (MEDIA_STORE=s3), end to end against a real local S3
 * server (s3rver on loopback): stored on arrival under the prefix, served whole and by range, and
 * too-large media leaves no object.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { startTestServer, type TestServer } from '../harness.ts';
import { customerSendsMedia, getMedia, jpegBytes, settledMedia } from '../media-helpers.ts';
import { officialChannel } from '../messages-helpers.ts';

const BUCKET = 'parley-test-media';
const dir = mkdtempSync(path.join(tmpdir(), 'parley-s3-'));
let s3: S3rver;
let client: S3Client;
let server: TestServer;
let channel: { id: string };

before(async () => {
  s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir });
  const { port } = await s3.run();
  const endpoint = `http://127.0.0.1:${port}`;
  client = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
  server = await startTestServer({
    worker: true,
    env: {
      MEDIA_STORE: 's3',
      S3_BUCKET: BUCKET,
      S3_ENDPOINT: endpoint,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_PREFIX: 'parley/media/',
    },
  });
  channel = await officialChannel(server, 'S3 media');
});
after(async () => {
  await server?.close();
  await s3?.close();
  rmSync(dir, { recursive: true, force: true });
});

const keys = async () => ((await client.send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents ?? []).map((o) => o.Key!);

test('media is stored in the bucket under the prefix and served whole and by range', async () => {
  const jpeg = jpegBytes(40_000);
  const id = await customerSendsMedia(server, channel.id, '4915100000101', 'image', {}, { data: jpeg, mime_type: 'image/jpeg' });
  const media = await settledMedia(server, id);
  assert.deepEqual([media.status, media.content_type, media.size], ['stored', 'image/jpeg', jpeg.length]);
  assert.ok((await keys()).includes(`parley/media/${server.organizationId}/${id}`));
  const whole = await getMedia(server, id);
  assert.equal(whole.status, 200);
  assert.deepEqual(whole.bytes, jpeg);
  const part = await getMedia(server, id, { headers: { range: 'bytes=100-199' } });
  assert.equal(part.status, 206);
  assert.equal(part.headers.get('content-range'), `bytes 100-199/${jpeg.length}`);
  assert.deepEqual(part.bytes, jpeg.subarray(100, 200));
});

test('too-large media leaves no object in the bucket', async () => {
  const id = await customerSendsMedia(server, channel.id, '4915100000102', 'image', {}, { data: jpegBytes(1000), size: 6 * 1024 * 1024 });
  const media = await settledMedia(server, id);
  assert.equal(media.error?.code, 'media_too_large');
  assert.ok(!(await keys()).some((k) => k.endsWith(id)));
});
