/**
 * Media the sandbox holds (the small PNG a simulated customer "sends" by default, or the bytes a test
 * gave, padded with zeros to a size it asked for) and the short-lived signed URLs it hands out for
 * them, like the provider's lookaside URLs.
 */
import { createHash, createHmac } from 'node:crypto';
import { constantTimeEqual } from '../lib/crypto.ts';

/** A sandbox media row's content: base64 bytes, then zeros up to paddedSize. */
export type HeldMedia = { data: string; paddedSize: number | null };

/** The bytes of held media, in chunks (large padded media is never held in memory whole). */
export async function* mediaBytes(media: HeldMedia): AsyncIterable<Uint8Array> {
  const data = Buffer.from(media.data, 'base64');
  yield data;
  let left = (media.paddedSize ?? 0) - data.length;
  const zeros = Buffer.alloc(Math.min(Math.max(left, 0), 256 * 1024));
  while (left > 0) {
    const n = Math.min(left, zeros.length);
    yield zeros.subarray(0, n);
    left -= n;
  }
}

export function mediaSize(media: HeldMedia): number {
  return Math.max(Buffer.from(media.data, 'base64').length, media.paddedSize ?? 0);
}

/** Hex SHA-256 of the held media's bytes (as the provider's webhooks and media objects give it). */
export async function heldMediaSha256(media: HeldMedia): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of mediaBytes(media)) hash.update(chunk);
  return hash.digest('hex');
}

/** A minimal PDF (what a simulated document carries unless the test gives bytes). */
export const SAMPLE_PDF_BASE64 = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n').toString('base64');

/** An 8x8 green PNG, the picture every simulated inbound image carries. */
export const SAMPLE_PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEUlEQVR4nGNQvZyGFTEMLQkAIIZXgYDWEVMAAAAASUVORK5CYII=';

export const MEDIA_URL_LIFETIME_SECONDS = 300;

export function createMediaUrls(deps: { baseUrl: string; key: string }) {
  const sign = (id: string, expires: number) => createHmac('sha256', deps.key).update(`${id}.${expires}`).digest('hex');
  return {
    /** A URL that serves the media to anyone holding it until it lapses. */
    url(id: string, now: Date): string {
      const expires = Math.floor(now.getTime() / 1000) + MEDIA_URL_LIFETIME_SECONDS;
      return `${deps.baseUrl}/sandbox/media/${encodeURIComponent(id)}?expires=${expires}&signature=${sign(id, expires)}`;
    },
    verify(id: string, expires: string | undefined, signature: string | undefined, now: Date): boolean {
      if (!expires || !signature || !/^\d{1,12}$/.test(expires)) return false;
      if (Number(expires) < now.getTime() / 1000) return false;
      return constantTimeEqual(signature, sign(id, Number(expires)));
    },
  };
}
