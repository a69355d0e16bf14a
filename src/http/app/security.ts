/**
 * The security headers every answer carries: helmet's, computed once at start from its options (its
 * middleware would parse the directives on every request), and the dashboard's wider image policy.
 */
import securityHeaders from 'helmet';
import type { Config } from '../../config.ts';

export type SecurityHeaders = {
  /** Every answer's headers, by lower-case name. */
  values: Readonly<Record<string, string>>;
  /** The dashboard pages' Content-Security-Policy (their images and media may come from elsewhere). */
  dashboardCsp: string;
};

export function securityHeaderSettings(config: Pick<Config, 'secureCookies'>): SecurityHeaders {
  const helmetOptions = {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        styleSrc: ["'self'", "'unsafe-inline'"],
        scriptSrc: ["'self'"],
        // No page of ours is ever framed (the consent and device pages least of all: clickjacking).
        frameAncestors: ["'none'"],
        // Only an https deployment may tell browsers to upgrade; on plain http it would break the page.
        upgradeInsecureRequests: config.secureCookies ? [] : null,
      },
    },
    hsts: config.secureCookies,
    frameguard: { action: 'deny' as const },
  };
  const values = headersOf(securityHeaders(helmetOptions));
  // The dashboard's pages may show the images and media messages point at (an outbound picture by URL):
  // from https addresses, and plain http ones on a plain-http deployment, never scripts or frames.
  const mediaSources = ["'self'", 'data:', 'https:', ...(config.secureCookies ? [] : ['http:'])];
  const dashboardCsp = headerOf(
    securityHeaders.contentSecurityPolicy({
      directives: { ...helmetOptions.contentSecurityPolicy.directives, imgSrc: mediaSources, mediaSrc: mediaSources },
    }),
    'content-security-policy',
  );
  return { values, dashboardCsp };
}

type Middleware = (req: never, res: never, next: () => void) => void;

/** The headers one of helmet's middlewares sets, by lower-case name (computed once, at start). */
function headersOf(middleware: Middleware): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const res = { setHeader: (key: string, value: string) => (headers[key.toLowerCase()] = value), removeHeader: () => undefined };
  middleware({} as never, res as never, () => undefined);
  return Object.freeze(headers);
}

/** The value one of helmet's middlewares sets for a header (computed once, at start). */
function headerOf(middleware: Middleware, name: string): string {
  return headersOf(middleware)[name] ?? '';
}
