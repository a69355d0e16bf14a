/**
 * Media that reaches a linked-device session (a customer's picture, and one the business sent from its
 * phone) is downloaded from the library's media host, decrypted, stored and served by
 * GET /v1/messages/{id}/media, with the type the bytes have, not the one the message claims.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { encryptedStream, proto, type WAMessage } from 'baileys';
import { eq } from 'drizzle-orm';
import QRCode from 'qrcode';
import { messages } from '../../src/db/schema.ts';
import { eventually } from '../eventually.ts';
import { request } from '../harness.ts';
import { pairedChannel, startEmbeddedServer } from './helpers.ts';

let ctx: Awaited<ReturnType<typeof startEmbeddedServer>>;
let host: Server;
let base = '';
const files = new Map<string, Buffer>();

before(async () => {
  ctx = await startEmbeddedServer();
  // The library's media host, played on loopback: it serves the encrypted bytes.
  host = createServer((req, res) => {
    const body = files.get(req.url!);
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
});
after(async () => {
  await ctx.server.close();
  await new Promise<void>((r) => host.close(() => r()));
});

/** A picture encrypted by the library itself and put on the media host, as the message names it. */
async function upload(name: string, plain: Buffer) {
  const out = await encryptedStream(plain, 'image');
  files.set(`/${name}`, await readFile(out.encFilePath));
  await rm(out.encFilePath, { force: true });
  if (out.originalFilePath) await rm(out.originalFilePath, { force: true });
  // The message claims JPEG; the bytes are PNG.
  return {
    url: `${base}/${name}`,
    mimetype: 'image/jpeg',
    mediaKey: out.mediaKey,
    fileSha256: out.fileSha256,
    fileEncSha256: out.fileEncSha256,
    fileLength: out.fileLength,
    caption: name,
  };
}

async function storedMediaOf(providerMessageId: string) {
  const db = ctx.server.container.database.db;
  const row = await eventually(
    `message ${providerMessageId} to be stored`,
    async () => (await db.select().from(messages).where(eq(messages.providerMessageId, providerMessageId)))[0],
  );
  const record = await eventually(`the media of ${providerMessageId} to be stored`, async () => {
    const res = await request(ctx.server, 'GET', `/v1/messages/${row.id}`, { key: ctx.server.apiKey });
    return res.body.data.media?.status === 'stored' ? res.body.data : undefined;
  });
  const media = await fetch(`${ctx.server.baseUrl}/v1/messages/${row.id}/media`, { headers: { 'x-api-key': ctx.server.apiKey } });
  return { record, media, bytes: Buffer.from(await media.arrayBuffer()) };
}

test("a customer's picture and one the business sent from its phone are stored and served as what they are", async () => {
  const channel = await pairedChannel(ctx, '4915100000801', 'Shop');
  const customer = '4915122220801';
  for (const fromMe of [false, true]) {
    const png = await QRCode.toBuffer(`picture from ${fromMe ? 'the business' : 'the customer'}`);
    const id = `3A${randomBytes(8).toString('hex').toUpperCase()}`;
    const imageMessage = await upload(`${id}.enc`, png);
    channel.socket.emit('messages.upsert', {
      type: 'notify',
      messages: [
        proto.WebMessageInfo.fromObject({
          key: { remoteJid: `${customer}@s.whatsapp.net`, fromMe, id },
          message: { imageMessage },
          messageTimestamp: Math.floor(Date.now() / 1000),
          pushName: 'Customer',
        }) as WAMessage,
      ],
    });
    const { record, media, bytes } = await storedMediaOf(id);
    assert.equal(record.direction, fromMe ? 'outbound' : 'inbound');
    assert.equal(record.media.content_type, 'image/png', 'sniffed from the bytes, not the claimed JPEG');
    assert.equal(media.status, 200);
    assert.equal(media.headers.get('content-type'), 'image/png');
    assert.deepEqual(bytes, png, 'the decrypted picture, byte for byte');
  }
});
