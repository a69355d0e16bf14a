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

/** The badge of each channel state: exactly the states of the channel status machine (the type checker refuses others). */
const CHANNEL_STATUS_BADGES: Record<ChannelStatus, string> = {
  pending: 'badge',
  pairing: 'badge',
  connected: 'badge badge-ok',
  disconnected: 'badge badge-bad',
  error: 'badge badge-bad',
};

/** The badge class of a channel status; a status this build does not know shows plain. */
export function channelStatusClass(status: string): string {
  return Object.hasOwn(CHANNEL_STATUS_BADGES, status) ? CHANNEL_STATUS_BADGES[status as ChannelStatus] : 'badge';
}
