/**
 * Media the sandbox holds (the small PNG a simulated customer "sends") and the short-lived signed
 * URLs it hands out for them, like the provider's lookaside URLs.
 */
import { createHash, createHmac } from 'node:crypto';
import { constantTimeEqual } from '../lib/crypto.ts';

/** An 8x8 green PNG, the picture every simulated inbound image carries. */
export const SAMPLE_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEUlEQVR4nGNQvZyGFTEMLQkAIIZXgYDWEVMAAAAASUVORK5CYII=';

export const MEDIA_URL_LIFETIME_SECONDS = 300;

export function mediaSha256(base64: string): string {
  return createHash('sha256').update(Buffer.from(base64, 'base64')).digest('hex');
}

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
