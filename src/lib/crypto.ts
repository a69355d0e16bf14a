/** Framework-free crypto helpers: random secrets, hashes, constant-time compare, sealed credentials. */
import { createCipheriv, createDecipheriv, createHash, createHmac, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';

/** A URL-safe random string carrying `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** SHA-256 hex digest; used to store high-entropy secrets (keys, tokens) that need no slow KDF. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** SHA-256 base64url digest: a short derived value that is safe in a cookie or header. */
export function sha256Base64url(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

/** Parses a 32-byte key written as base64, base64url or hex. */
export function parseKey(text: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new Error('encryption key must be 32 bytes');
  return key;
}

/** AES-256-GCM sealing for secrets that must be read back (provider credentials, webhook secrets). */
export type Sealer = {
  seal(plaintext: string): string;
  open(sealed: string): string;
  /** A stable secret for `label`, derived from the key (HMAC-SHA256, hex). */
  derive(label: string): string;
};

export function createSealer(keyBytes: Buffer): Sealer {
  // A key object made once: handing the raw bytes to every cipher made a key object per call (most of its cost).
  const key = createSecretKey(keyBytes);
  return {
    derive(label) {
      return createHmac('sha256', key).update(`parley:${label}`).digest('hex');
    },
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `v1.${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${body.toString('base64url')}`;
    },
    open(sealed) {
      const [version, iv, tag, body] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('unknown sealed format');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
