/**
 * POST /v1/channels/{id}/media: a file goes to the channel's provider (the sandbox's official API, over
 * real HTTP, multipart as the provider takes it) and its media id comes back, within the provider's size
 * and type limits per kind; platforms without uploads refuse it naming the operation.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { request, startTestServer, type TestServer } from '../harness.ts';
import { jpegBytes, multipartBody } from '../media-helpers.ts';
import { customerWrites, officialChannel, pairedGatewayChannel, send, waitForStatus } from '../messages-helpers.ts';

let server: TestServer;
let official: { id: string };
let gateway: { id: string };
const TO = '4915112347777';

before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '50' } });
  official = await officialChannel(server);
  gateway = await pairedGatewayChannel(server);
});
after(() => server.close());

const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
/** A static WebP (RIFF....WEBPVP8 ), padded to `size`. */
const webp = (size: number) => {
  const head = Buffer.from('RIFF\0\0\0\0WEBPVP8 ', 'latin1');
  return Buffer.concat([head, Buffer.alloc(size - head.length)]);
};

async function upload(channelId: string, parts: Parameters<typeof multipartBody>[0], key = server.apiKey) {
  const { rawBody, contentType } = await multipartBody(parts);
  return request(server, 'POST', `/v1/channels/${channelId}/media`, { key, rawBody, contentType });
}

async function heldBySandbox(id: string) {
  const rows = await queryRows<{ mime_type: string; data: string; account_id: string }>(
    server.container.database.db,
    sql`select mime_type, data, account_id from sandbox_media where id = ${id}`,
  );
  return rows[0];
}

test('a picture goes to the provider and its media id comes back; the provider holds the bytes', async () => {
  const bytes = jpegBytes(4096);
  const res = await upload(official.id, { file: { data: bytes, type: 'image/jpeg', name: 'receipt.jpg' } });
  assert.equal(res.status, 201, res.text);
  assert.match(res.body.data.id, /^\d+$/);
  assert.deepEqual(
    { ...res.body.data, id: undefined },
    { id: undefined, type: 'image', mime_type: 'image/jpeg', size: 4096, file_name: 'receipt.jpg' },
  );
  const held = await heldBySandbox(res.body.data.id);
  assert.ok(held, 'the sandbox provider holds the upload');
  assert.equal(held.mime_type, 'image/jpeg');
  assert.ok(Buffer.from(held.data, 'base64').equals(bytes), 'the bytes arrived whole');
});

test('the kind is told by the bytes when not given; a document keeps its file name', async () => {
  const doc = await upload(official.id, { file: { data: PDF, type: 'application/octet-stream', name: 'Invoice 7.pdf' } });
  assert.equal(doc.status, 201, doc.text);
  assert.equal(doc.body.data.type, 'document');
  assert.equal(doc.body.data.mime_type, 'application/pdf');
  assert.equal(doc.body.data.file_name, 'Invoice 7.pdf');
  const sticker = await upload(official.id, { file: { data: webp(2048), type: 'image/webp' } });
  assert.equal(sticker.status, 201, sticker.text);
  assert.equal(sticker.body.data.type, 'sticker');
  // A plain-text document: the bytes tell nothing, the declared type is one the provider takes.
  const text = await upload(official.id, { type: 'document', file: { data: Buffer.from('hello'), type: 'text/plain', name: 'a.txt' } });
  assert.equal(text.status, 201, text.text);
  assert.equal(text.body.data.mime_type, 'text/plain');
});

test('an uploaded file is sent by its id: the provider gets the id, no link', async () => {
  await customerWrites(server, official.id, TO);
  const uploaded = await upload(official.id, { file: { data: jpegBytes(), type: 'image/jpeg', name: 'photo.jpg' } });
  assert.equal(uploaded.status, 201, uploaded.text);
  const sent = await send(server, {
    channel_id: official.id,
    to: TO,
    type: 'image',
    content: { media_id: uploaded.body.data.id, caption: 'yours' },
  });
  assert.equal(sent.status, 201, sent.text);
  await waitForStatus(server, sent.body.data.id, 'sent');
  const rows = await queryRows<{ body: { image: Record<string, unknown> } }>(
    server.container.database.db,
    sql`select body from sandbox_messages where direction = 'outbound' and body->>'biz_opaque_callback_data' = ${sent.body.data.id}`,
  );
  assert.deepEqual(rows[0]!.body.image, { id: uploaded.body.data.id, caption: 'yours' });
});

test("files beyond the provider's limits for their kind are refused before the provider is called, naming /file", async () => {
  const cases: Array<[string, Parameters<typeof multipartBody>[0], RegExp]> = [
    ['an image over 5 MB', { file: { data: jpegBytes(5 * 1024 * 1024 + 1), type: 'image/jpeg' } }, /5242880/],
    ['a static sticker over 100 KB', { file: { data: webp(100 * 1024 + 1), type: 'image/webp' } }, /static sticker/],
    ['a picture sent as video', { type: 'video', file: { data: jpegBytes(), type: 'image/jpeg' } }, /video\/mp4/],
    ['a type the provider does not take', { file: { data: Buffer.from('<html></html>'), type: 'text/html' } }, /text\/html/],
    ['a kind that is none', { type: 'hologram', file: { data: PDF, type: 'application/pdf' } }, /type/],
  ];
  const before = await queryRows<{ n: number }>(server.container.database.db, sql`select count(*)::int as n from sandbox_media`);
  for (const [name, parts, detail] of cases) {
    const res = await upload(official.id, parts);
    assert.ok(res.status === 422 || res.status === 400, `${name}: ${res.status} ${res.text}`);
    assert.ok(
      res.body.errors?.some((e: { pointer: string }) => e.pointer === '/file' || e.pointer === '/type'),
      `${name} names the field: ${res.text}`,
    );
    assert.match(res.body.detail, detail, name);
  }
  const afterwards = await queryRows<{ n: number }>(server.container.database.db, sql`select count(*)::int as n from sandbox_media`);
  assert.equal(afterwards[0]!.n, before[0]!.n, 'nothing reached the provider');
});

test('a body that is not a form with a file is a 400 or 415 naming what is wrong', async () => {
  const json = await request(server, 'POST', `/v1/channels/${official.id}/media`, { key: server.apiKey, body: { file: 'x' } });
  assert.equal(json.status, 415, json.text);
  const noFile = await upload(official.id, { type: 'image' });
  assert.equal(noFile.status, 400, noFile.text);
  assert.ok(noFile.body.errors.some((e: { pointer: string }) => e.pointer === '/file'));
  const broken = await request(server, 'POST', `/v1/channels/${official.id}/media`, {
    key: server.apiKey,
    rawBody: '--x\r\nContent-Disposition: form-data; name="file"\r\n\r\nunterminated',
    contentType: 'multipart/form-data; boundary=x',
  });
  assert.equal(broken.status, 400, broken.text);
});

test('a platform without uploads refuses, naming the operation; an unknown channel is 404', async () => {
  const res = await upload(gateway.id, { file: { data: jpegBytes(), type: 'image/jpeg' } });
  assert.equal(res.status, 422, res.text);
  assert.equal(res.body.code, 'unsupported');
  assert.equal(res.body.operation, 'media.upload');
  const unknown = await upload('00000000-0000-7000-8000-000000000000', { file: { data: jpegBytes(), type: 'image/jpeg' } });
  assert.equal(unknown.status, 404, unknown.text);
});
