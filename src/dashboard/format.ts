/** Display helpers. */

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
