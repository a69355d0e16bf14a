/**
 * Where the sign-in page sends the user afterwards (`?return_to=`): only a path of this dashboard
 * on this origin, never another site (no open redirect) and never the sign-in page itself.
 */
import { BASE } from './base.ts';

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** The path (with its query) to return to, or undefined when the value is not one of ours. */
export function safeReturnTo(value: string | null | undefined, origin: string): string | undefined {
  // A path, and only a path: `//host`, `/\host` and schemes are other sites; control characters are tricks.
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.includes('\\') || hasControlCharacter(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value, origin);
  } catch {
    return undefined;
  }
  if (url.origin !== origin) return undefined;
  if (url.pathname !== BASE && !url.pathname.startsWith(`${BASE}/`)) return undefined;
  if (url.pathname.replace(/\/+$/, '') === `${BASE}/login`) return undefined;
  return url.pathname + url.search;
}

/** The sign-in page's address for coming back to `path` afterwards. */
export function loginPathFor(path: string): string {
  return `/login?return_to=${encodeURIComponent(path)}`;
}
