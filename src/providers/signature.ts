/** HMAC-SHA256 signatures on raw webhook bodies (`sha256=<hex>`), checked in constant time. */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function signBody(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** True when the header carries a valid signature of the raw body under any of the secrets. */
export function verifyBodySignature(body: Buffer, header: string | undefined, secrets: readonly string[]): boolean {
  if (!header || !/^sha256=[0-9a-f]{64}$/i.test(header.trim())) return false;
  const given = Buffer.from(header.trim().slice(7).toLowerCase(), 'hex');
  let ok = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(body).digest();
    if (timingSafeEqual(given, expected)) ok = true;
  }
  return ok;
}
