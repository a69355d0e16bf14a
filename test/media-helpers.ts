/** Helpers for inbound media tests: a customer sending media through the sandbox, and reading it back. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.ts';
import { eventually } from './eventually.ts';
import { request, type TestServer } from './harness.ts';

/** The first bytes of a JPEG (SOI + APP0 JFIF), then random bytes: file-type tells image/jpeg. */
export function jpegBytes(size = 2048): Buffer {
  const head = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]);
  return Buffer.concat([head, randomBytes(Math.max(0, size - head.length))]);
}

/** A customer sends media (the sandbox's own sample unless `media.data` is given); resolves to the stored message's id. */
export async function customerSendsMedia(
  server: TestServer,
  channelId: string,
  from: string,
  type: string,
  content: Record<string, unknown> = {},
  media?: { data?: Buffer; mime_type?: string; size?: number },
): Promise<string> {
  const body = {
    channel_id: channelId,
    from,
    type,
    content,
    ...(media
      ? {
          media: {
            ...(media.data ? { data: media.data.toString('base64') } : {}),
            ...(media.mime_type ? { mime_type: media.mime_type } : {}),
            ...(media.size !== undefined ? { size: media.size } : {}),
          },
        }
      : {}),
  };
  const res = await request(server, 'POST', '/sandbox/inbound', { key: server.apiKey, body });
  assert.equal(res.status, 202, res.text);
  const providerId = res.body.provider_message_id as string;
  return eventually('the inbound message', async () => {
    const rows = await queryRows<{ id: string }>(
      server.container.database.db,
      sql`select id from messages where provider_message_id = ${providerId}`,
    );
    return rows[0]?.id;
  });
}

/** Waits until the message record's media has left `pending`; returns the record's media. */
export async function settledMedia(server: TestServer, messageId: string, timeoutMs = 30_000): Promise<Record<string, any>> {
  return eventually(
    `the media of message ${messageId} to settle`,
    async () => {
      const res = await request(server, 'GET', `/v1/messages/${messageId}`, { key: server.apiKey });
      assert.equal(res.status, 200, res.text);
      const media = res.body.data.media;
      assert.ok(media, 'the message has media');
      return media.status === 'pending' ? undefined : media;
    },
    timeoutMs,
  );
}

/** GET /v1/messages/{id}/media, the body as bytes. */
export async function getMedia(server: TestServer, messageId: string, options: { key?: string; headers?: Record<string, string> } = {}) {
  const response = await fetch(`${server.baseUrl}/v1/messages/${messageId}/media`, {
    headers: { 'x-api-key': options.key ?? server.apiKey, ...options.headers },
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, json: () => JSON.parse(bytes.toString('utf8')) };
}

/** A multipart/form-data body (what a browser or curl -F sends): fields as strings, files as {data, type, name}. */
export async function multipartBody(
  parts: Record<string, string | { data: Buffer; type?: string; name?: string }>,
): Promise<{ rawBody: Buffer; contentType: string }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(parts)) {
    if (typeof value === 'string') form.set(name, value);
    else form.set(name, new Blob([new Uint8Array(value.data)], value.type ? { type: value.type } : {}), value.name ?? 'file');
  }
  const encoded = new Request('http://127.0.0.1/', { method: 'POST', body: form });
  return { rawBody: Buffer.from(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type')! };
}
