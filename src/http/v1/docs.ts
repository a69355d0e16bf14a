import { readFileSync } from 'node:fs';
import swaggerUi from '@fastify/swagger-ui';
import type { App } from '../types.ts';

const DOCS_PREFIX = '/v1/docs';

/** The page's own script and stylesheet beside swagger-ui's (docs-page/: what they change and why). */
const pageFile = (name: string) => readFileSync(new URL(`./docs-page/${name}`, import.meta.url), 'utf8');

/**
 * The reference page's CSP: swagger-ui's own, minus the third-party validator badge (img-src is
 * self and data: only) and, on plain http, minus `upgrade-insecure-requests` (it would break the page).
 */
export function docsCsp(header: string, upgradeInsecureRequests: boolean): string {
  const directives = header
    .split(';')
    .map((d) => d.trim())
    .filter((d) => d !== '' && (upgradeInsecureRequests || d !== 'upgrade-insecure-requests'))
    .map((d) => (d.startsWith('img-src ') ? "img-src 'self' data:" : d));
  return `${directives.join('; ')};`;
}

/** The OpenAPI 3.1 document (generated from the route schemas) and a reference page for people. */
export async function registerDocsRoutes(app: App, options: { upgradeInsecureRequests: boolean }) {
  app.get(
    '/v1/openapi.json',
    {
      config: { auth: { public: true } },
      schema: { hide: true },
    },
    async () => app.swagger(),
  );
  // The reference page's own routes are public, like the document it renders.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith(DOCS_PREFIX)) route.config = { ...route.config, auth: { public: true } };
  });
  await app.register(swaggerUi, {
    routePrefix: DOCS_PREFIX,
    staticCSP: true,
    transformStaticCSP: (header) => docsCsp(header, options.upgradeInsecureRequests),
    // No validator badge: it would send the document's address to a third party.
    validatorUrl: false,
    // BaseLayout: no top bar. Its logo is an SVG with an inline <style> the CSP refuses (a console error on
    // every visit), beside an image without a text alternative and an unlabelled URL box. reference.js gives
    // the page its landmark and fixes what swagger-ui draws that no reader could name or reach in order;
    // reference.css the contrast of the version badges. The test is in test/dashboard.browser.test.ts.
    uiConfig: { url: '/v1/openapi.json', deepLinking: true, validatorUrl: null, layout: 'BaseLayout' },
    theme: {
      title: 'Parley API reference',
      js: [{ filename: 'reference.js', content: pageFile('reference.js') }],
      css: [{ filename: 'reference.css', content: pageFile('reference.css') }],
    },
  });
}
