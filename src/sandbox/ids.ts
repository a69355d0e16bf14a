/** The sandbox's identifiers, shaped like the providers' own. */
import { randomBytes, randomInt } from 'node:crypto';

/** A numeric id like the official provider's object ids (15 digits, so it also fits a JSON number). */
export function numericId(): string {
  let id = String(randomInt(1, 9));
  for (let i = 0; i < 14; i++) id += String(randomInt(0, 10));
  return id;
}

/** A display number in the reserved +1 555 range. */
export function sandboxDisplayNumber(): string {
  let digits = '';
  for (let i = 0; i < 7; i++) digits += String(randomInt(0, 10));
  return `+1555${digits}`;
}

/** An official message id: "wamid." and base64, as the provider writes them. */
export function wamid(): string {
  return `wamid.${Buffer.concat([Buffer.from('HBgL'), randomBytes(24)]).toString('base64')}`;
}

/** A gateway message id (the chat app's own upper-case hex ids). */
export function gatewayMessageId(): string {
  return `3EB0${randomBytes(10).toString('hex').toUpperCase()}`;
}

/** The official provider's per-request trace id. */
export function fbtraceId(): string {
  return `A${randomBytes(16).toString('base64url').slice(0, 22)}`;
}

/** A gateway session id. */
export function sessionId(): string {
  return `sbx_${randomBytes(12).toString('hex')}`;
}

/** The text a gateway's QR code encodes (the chat app's "ref,public key,identity key" form). */
export function qrText(): string {
  return `2@${randomBytes(24).toString('base64')},${randomBytes(32).toString('base64')},${randomBytes(32).toString('base64')}`;
}
