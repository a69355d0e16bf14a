/**
 * The sandbox's scripted outcomes, chosen by the recipient's last digits (docs/sandbox.md), so tests
 * and demos can provoke every path of an adapter.
 */

export type RecipientOutcome =
  /** Accepted, then sent -> delivered -> read. */
  | 'deliver'
  /** Accepted, then a failed status (undeliverable). */
  | 'undeliverable'
  /** Refused at send time: re-engagement window (official) / not on the chat app (gateway). */
  | 'refuse'
  /** Refused at send time with a throughput limit, on the first attempt of a message only. */
  | 'throttle_once';

export function recipientOutcome(digits: string): RecipientOutcome {
  if (digits.endsWith('0001')) return 'undeliverable';
  if (digits.endsWith('0002')) return 'refuse';
  if (digits.endsWith('0429')) return 'throttle_once';
  return 'deliver';
}

/** International number as digits: 7 to 15 of them, an optional leading + dropped. */
export function normalizePhone(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const digits = value
    .trim()
    .replace(/^\+/, '')
    .replace(/[\s\-().]/g, '');
  return /^[1-9]\d{6,14}$/.test(digits) ? digits : undefined;
}

/** What another number's profile shows (gateway profiles): a business account, one that hides its profile, or an ordinary one. */
export function profileOutcome(digits: string): 'business' | 'private' | 'plain' {
  if (digits.endsWith('0003')) return 'business';
  if (digits.endsWith('0004')) return 'private';
  return 'plain';
}

/** The privacy id the sandbox gives a number (15 digits or more, like the chat app's; phoneOfLid reads it back). */
const LID_OFFSET = 100_000_000_000_000n;
export function lidOf(digits: string): string {
  return String(BigInt(digits) * 7n + LID_OFFSET);
}

/** The number behind a privacy id lidOf made; undefined for any other. */
export function phoneOfLid(lid: string): string | undefined {
  const id = /^(\d{15,25})(@lid)?$/.exec(lid)?.[1];
  if (!id) return undefined;
  const offset = BigInt(id) - LID_OFFSET;
  if (offset <= 0n || offset % 7n !== 0n) return undefined;
  return normalizePhone(String(offset / 7n));
}

/** Statuses that follow an accepted message, in order. */
export function statusSteps(outcome: RecipientOutcome): Array<'sent' | 'delivered' | 'read' | 'failed'> {
  return outcome === 'undeliverable' ? ['failed'] : ['sent', 'delivered', 'read'];
}

/** Templates whose name starts with "reject" are rejected; the rest approved. */
export function templateDecision(name: string): { status: 'APPROVED' | 'REJECTED'; reason: string | null } {
  return name.startsWith('reject') ? { status: 'REJECTED', reason: 'INVALID_FORMAT' } : { status: 'APPROVED', reason: null };
}
