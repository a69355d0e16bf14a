/**
 * Inbound media stored on arrival, end to end: a customer sends media through the sandbox (official
 * webhook or gateway callback), the provider.inbound job records it pending, the message.media job
 * downloads it through the channel's adapter into the filesystem store, and GET
 * /v1/messages/{id}/media serves it (ranges, ETag, the sniffed type).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { SAMPLE_PNG_BASE64 } from '../../src/sandbox/media.ts';
import { createOtherOrganization, request, startTestServer, type TestServer } from '../harness.ts';
import { customerSendsMedia, getMedia, jpegBytes, settledMedia } from '../media-helpers.ts';
import { eventually } from '../eventually.ts';
import { customerWrites, eventsOf, officialChannel, pairedGatewayChannel } from '../messages-helpers.ts';

let server: TestServer;
let official: { id: string };
const PNG = Buffer.from(SAMPLE_PNG_BASE64, 'base64');
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

before(async () => {
  server = await startTestServer({ worker: true, env: { SANDBOX_FAULT_INJECTION: 'true' } });
  official = await officialChannel(server, 'Media');
});
after(() => server.close());

function mediaDir(): string {
  const media = server.config.media;
  assert.equal(media.store, 'fs');
  return media.dir;
}

/** Every file under the media directory (temp files included). */
function storedFiles(): string[] {
  const walk = (dir: string): string[] =>
    existsSync(dir)
      ? readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
          e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)],
        )
      : [];
  return walk(mediaDir());
}

async function mediaRow(messageId: string) {
  const [row] = await queryRows<{
    status: string;
    declared_type: string | null;
    content_type: string | null;
    attempts: number;
    source: unknown;
    error_code: string | null;
  }>(
    server.container.database.db,
    sql`select status, declared_type, content_type, attempts, source, error_code from message_media where message_id = ${messageId}`,
  );
  return row;
}

test('an official inbound image is stored on arrival: the record links it, GET serves the bytes with ETag, ranges and the sniffed type', async () => {
  const id = await customerWrites(server, official.id, '4915100000001', 'image', { caption: 'receipt' });
  const media = await settledMedia(server, id);
  assert.deepEqual(media, {
    status: 'stored',
    url: `/v1/messages/${id}/media`,
    content_type: 'image/png',
    size: PNG.length,
    sha256: sha256(PNG),
    file_name: null,
    error: null,
  });
  // The provider's handle is kept for the download but never shown.
  const record = await request(server, 'GET', `/v1/messages/${id}`, { key: server.apiKey });
  assert.doesNotMatch(record.text, /"source"/);
  assert.equal(record.body.data.content.caption, 'receipt');

  const whole = await getMedia(server, id);
  assert.equal(whole.status, 200);
  assert.deepEqual(whole.bytes, PNG);
  assert.equal(whole.headers.get('content-type'), 'image/png');
  assert.equal(whole.headers.get('content-length'), String(PNG.length));
  assert.equal(whole.headers.get('etag'), `"${sha256(PNG)}"`);
  assert.equal(whole.headers.get('accept-ranges'), 'bytes');
  assert.equal(whole.headers.get('x-content-type-options'), 'nosniff');
  assert.match(whole.headers.get('cache-control') ?? '', /^private/);
  assert.equal(whole.headers.get('content-disposition'), 'inline');

  const first = await getMedia(server, id, { headers: { range: 'bytes=0-9' } });
  assert.equal(first.status, 206);
  assert.deepEqual(first.bytes, PNG.subarray(0, 10));
  assert.equal(first.headers.get('content-range'), `bytes 0-9/${PNG.length}`);
  assert.equal(first.headers.get('content-length'), '10');

  const last = await getMedia(server, id, { headers: { range: 'bytes=-5' } });
  assert.equal(last.status, 206);
  assert.deepEqual(last.bytes, PNG.subarray(PNG.length - 5));
  assert.equal(last.headers.get('content-range'), `bytes ${PNG.length - 5}-${PNG.length - 1}/${PNG.length}`);

  const past = await getMedia(server, id, { headers: { range: `bytes=${PNG.length}-` } });
  assert.equal(past.status, 416);
  assert.equal(past.headers.get('content-range'), `bytes */${PNG.length}`);
  assert.equal(past.json().code, 'range_not_satisfiable');

  const several = await getMedia(server, id, { headers: { range: 'bytes=0-1,4-5' } });
  assert.equal(several.status, 200);
  assert.deepEqual(several.bytes, PNG);

  const stale = await getMedia(server, id, { headers: { range: 'bytes=0-9', 'if-range': '"another"' } });
  assert.equal(stale.status, 200);
  const unchanged = await getMedia(server, id, { headers: { 'if-none-match': `"${sha256(PNG)}"` } });
  assert.equal(unchanged.status, 304);
  assert.equal(unchanged.bytes.length, 0);

  const events = (await eventsOf(server, 'message.media_updated')).filter((e) => e.payload.message_id === id);
  assert.deepEqual(
    events.map((e) => e.payload),
    [
      {
        message_id: id,
        conversation_id: record.body.data.conversation_id,
        channel_id: official.id,
        media_status: 'stored',
        error_code: null,
        organization_id: server.organizationId,
      },
    ],
  );
  // The thread shows the same media.
  const thread = await request(server, 'GET', `/v1/conversations/${record.body.data.conversation_id}/messages`, { key: server.apiKey });
  assert.deepEqual(thread.body.data.find((m: { id: string }) => m.id === id).media, media);
});

test('a declared type that lies is recorded but not served: the bytes decide', async () => {
  const jpeg = jpegBytes(5000);
  const id = await customerSendsMedia(server, official.id, '4915100000002', 'image', {}, { data: jpeg, mime_type: 'image/png' });
  const media = await settledMedia(server, id);
  assert.equal(media.status, 'stored');
  assert.equal(media.content_type, 'image/jpeg');
  const row = await mediaRow(id);
  assert.equal(row!.declared_type, 'image/png');
  const got = await getMedia(server, id);
  assert.equal(got.headers.get('content-type'), 'image/jpeg');
  assert.deepEqual(got.bytes, jpeg);
});

test('a document of bytes nothing recognizes is served as application/octet-stream, as an attachment with its file name', async () => {
  const text = Buffer.from('name,total\nAna,12\n');
  const id = await customerSendsMedia(
    server,
    official.id,
    '4915100000003',
    'document',
    { file_name: 'Relatório março.csv' },
    { data: text, mime_type: 'text/html' },
  );
  const media = await settledMedia(server, id);
  assert.equal(media.content_type, 'application/octet-stream');
  assert.equal(media.file_name, 'Relatório março.csv');
  const got = await getMedia(server, id);
  assert.equal(got.headers.get('content-type'), 'application/octet-stream');
  assert.equal(
    got.headers.get('content-disposition'),
    `attachment; filename="Relat_rio mar_o.csv"; filename*=UTF-8''Relat%C3%B3rio%20mar%C3%A7o.csv`,
  );
  assert.deepEqual(got.bytes, text);
});

test("media over its type's limit fails media_too_large, and nothing of it is left in the store", async () => {
  const before = storedFiles();
  const id = await customerSendsMedia(server, official.id, '4915100000004', 'image', {}, { data: PNG, size: 5 * 1024 * 1024 + 1 });
  const media = await settledMedia(server, id);
  assert.equal(media.status, 'failed');
  assert.equal(media.error.code, 'media_too_large');
  assert.match(media.error.title, /limit is 5242880 bytes/);
  assert.equal(media.content_type, null);
  assert.equal(await server.container.mediaStore.exists(`${server.organizationId}/${id}`), false);
  assert.deepEqual(storedFiles(), before);
  const got = await getMedia(server, id);
  assert.equal(got.status, 409);
  assert.deepEqual({ status: got.json().media_status, code: got.json().media_error.code }, { status: 'failed', code: 'media_too_large' });
  const events = (await eventsOf(server, 'message.media_updated')).filter((e) => e.payload.message_id === id);
  assert.deepEqual(
    events.map((e) => [e.payload.media_status, e.payload.error_code]),
    [['failed', 'media_too_large']],
  );
});

test('a provider 5xx on the download is retried with backoff, and the media is stored once', async () => {
  const faults = await request(server, 'PUT', '/sandbox/faults', { body: { rules: [{ fault: 'error', on: 'media', times: 1 }] } });
  assert.equal(faults.status, 200, faults.text);
  try {
    const jpeg = jpegBytes(3000);
    const id = await customerSendsMedia(server, official.id, '4915100000005', 'image', {}, { data: jpeg, mime_type: 'image/jpeg' });
    const media = await settledMedia(server, id, 60_000);
    assert.equal(media.status, 'stored');
    const rules = (await request(server, 'GET', '/sandbox/faults')).body.rules;
    assert.equal(rules[0].hits, 1);
    const row = await mediaRow(id);
    assert.equal(row!.attempts, 2);
    assert.deepEqual((await getMedia(server, id)).bytes, jpeg);

    // The job run again (a duplicate delivery of it) changes nothing: one object, one event, the same attempts.
    await server.container.database.db.transaction((tx) => server.container.queue.enqueue(tx, 'message.media', { message_id: id }));
    await mediaJobsDone(id, 2);
    assert.equal((await mediaRow(id))!.attempts, 2);
    const events = (await eventsOf(server, 'message.media_updated')).filter((e) => e.payload.message_id === id);
    assert.equal(events.length, 1);
    assert.equal(storedFiles().filter((f) => f.endsWith(`__${id}`)).length, 1);
  } finally {
    await request(server, 'DELETE', '/sandbox/faults');
  }
});

/** Waits until `count` message.media jobs naming the message have completed. */
async function mediaJobsDone(messageId: string, count: number) {
  return eventually(`${count} media jobs of message ${messageId} to complete`, async () => {
    const rows = await queryRows<{ state: string }>(
      server.container.database.db,
      sql`select state from pgboss.job where name = 'message.media' and data->>'message_id' = ${messageId}`,
    );
    return rows.length >= count && rows.every((r) => r.state === 'completed') ? true : undefined;
  });
}

test("through the HTTP gateway: the protocol's media call, then the bytes, stored and served", async () => {
  const gateway = await pairedGatewayChannel(server, 'Gateway media');
  const jpeg = jpegBytes(70_000);
  const id = await customerSendsMedia(
    server,
    gateway.id,
    '4915100000006',
    'image',
    { caption: 'from the gateway' },
    { data: jpeg, mime_type: 'image/jpeg' },
  );
  const media = await settledMedia(server, id);
  assert.deepEqual([media.status, media.content_type, media.size, media.sha256], ['stored', 'image/jpeg', jpeg.length, sha256(jpeg)]);
  const got = await getMedia(server, id, { headers: { range: 'bytes=65536-' } });
  assert.equal(got.status, 206);
  assert.deepEqual(got.bytes, jpeg.subarray(65536));
});

test("another organization's message is not found; a message without media is not found; media still pending is a conflict", async () => {
  const id = await customerWrites(server, official.id, '4915100000007', 'image', {});
  const other = await createOtherOrganization(server, 'media-other');
  const foreign = await getMedia(server, id, { key: other.apiKey });
  assert.equal(foreign.status, 404);
  assert.equal(foreign.json().detail, 'message not found');
  const unknown = await getMedia(server, '0190a5b4-2a7e-7c11-9d2f-5b6c7d8e9f01');
  assert.equal(unknown.status, 404);

  const text = await customerWrites(server, official.id, '4915100000007', 'text', { body: 'no media' });
  const none = await getMedia(server, text);
  assert.equal(none.status, 404);
  assert.equal(none.json().detail, 'the message has no media');
  assert.equal((await request(server, 'GET', `/v1/messages/${text}`, { key: server.apiKey })).body.data.media, null);

  // Held pending by hand (as while its job waits): the route says so.
  await settledMedia(server, id);
  await server.container.database.db.execute(sql`update message_media set status = 'pending' where message_id = ${id}`);
  const pending = await getMedia(server, id);
  assert.equal(pending.status, 409);
  assert.equal(pending.json().media_status, 'pending');
});

test('the sandbox refuses media it cannot hold, naming the field', async () => {
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ type: 'image', content: {}, media: { data: '***' } }, /media\.data must be base64/],
    [{ type: 'video', content: {} }, /media\.data .* is required for video/],
    [{ type: 'image', content: {}, media: { size: 10 } }, /media\.size must be/],
    [{ type: 'text', content: { body: 'x' }, media: {} }, /media is only for/],
    [{ type: 'audio', content: { caption: 'x' }, media: { data: 'AAAA' } }, /content\.caption is not for audio/],
  ];
  for (const [body, message] of cases) {
    const res = await request(server, 'POST', '/sandbox/inbound', {
      key: server.apiKey,
      body: { channel_id: official.id, from: '4915100000008', ...body },
    });
    assert.equal(res.status, 400, res.text);
    assert.match(res.body.error.message, message);
  }
});
