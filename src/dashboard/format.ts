/** Display helpers. */
import type { ChannelStatus } from '../domain/channels/status.ts';

let timeZone: string | undefined;

/** Dates show in the user's own time zone (from their profile) when the browser knows it. */
export function setTimeZone(zone: string | undefined): void {
  try {
    timeZone = zone ? new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone : undefined;
  } catch {
    timeZone = undefined;
  }
}

export function formatDate(iso: string | null | undefined, empty = '—'): string {
  if (!iso) return empty;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(date);
}

/** An amount in a currency's minor units (1250 EUR) as money (€12.50), in the browser's locale. */
export function formatMoney(minor: number, currency: string): string {
  try {
    const format = new Intl.NumberFormat(undefined, { style: 'currency', currency });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(minor / 10 ** digits);
  } catch {
    return `${minor} ${currency}`;
  }
}

/** A short description of a browser from its user agent. */
export function describeUserAgent(ua: string | null): string {
  if (!ua) return 'Unknown device';
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /Firefox\//.test(ua)
      ? 'Firefox'
      : /(Chrome|Chromium)\//.test(ua)
        ? 'Chrome'
        : /Safari\//.test(ua)
          ? 'Safari'
          : /curl\//.test(ua)
            ? 'curl'
            : undefined;
  const os = /Windows/.test(ua)
    ? 'Windows'
    : /Android/.test(ua)
      ? 'Android'
      : /iPhone|iPad/.test(ua)
        ? 'iOS'
        : /Mac OS X/.test(ua)
          ? 'macOS'
          : /Linux/.test(ua)
            ? 'Linux'
            : undefined;
  if (browser && os) return `${browser} on ${os}`;
  return browser ?? os ?? (ua.length > 60 ? `${ua.slice(0, 57)}…` : ua);
}

export type Tone = 'ok' | 'bad' | 'warn' | 'neutral';

/**
 * The colour of a status badge (the word is always shown too). Channel states are typed against the
 * status machine, so a new state cannot be left out; other words fall back to neutral.
 */
const CHANNEL_TONES: Record<ChannelStatus, Tone> = { pending: 'warn', pairing: 'warn', connected: 'ok', disconnected: 'bad', error: 'bad' };

const TONES: Record<string, Tone> = {
  ...CHANNEL_TONES,
  active: 'ok',
  approved: 'ok',
  delivered: 'ok',
  read: 'ok',
  received: 'ok',
  succeeded: 'ok',
  open: 'ok',
  enabled: 'ok',
  sent: 'neutral',
  queued: 'neutral',
  draft: 'neutral',
  closed: 'neutral',
  resolved: 'neutral',
  snoozed: 'neutral',
  retrying: 'warn',
  in_review: 'warn',
  paused: 'warn',
  failed: 'bad',
  rejected: 'bad',
  disabled: 'bad',
};

export function statusTone(status: string): Tone {
  return Object.hasOwn(TONES, status) ? TONES[status]! : 'neutral';
}
