/** Serves the built dashboard (src/dashboard, built by Vite into dist/dashboard) under /app. */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { App } from './types.ts';

export const DASHBOARD_DIR = fileURLToPath(new URL('../../dist/dashboard/', import.meta.url));
const PREFIX = '/app';

/** What the dashboard's pages are served with: their content security policy (images and media from the web too). */
export type DashboardOptions = { contentSecurityPolicy: string };

export async function registerDashboard(app: App, options: DashboardOptions) {
  app.addHook('onRoute', (route) => {
    if (route.url === '/' || route.url.startsWith(PREFIX)) route.config = { ...route.config, auth: { public: true } };
  });
  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect(`${PREFIX}/`));
  if (!existsSync(DASHBOARD_DIR)) {
    app.get(`${PREFIX}/*`, { schema: { hide: true } }, async (_request, reply) =>
      reply.code(503).type('text/plain').send('The dashboard is not built: run `npm run build:dashboard` (npm ci and npm install do it).'),
    );
    return;
  }
  await app.register(fastifyStatic, {
    root: DASHBOARD_DIR,
    prefix: `${PREFIX}/`,
    wildcard: false,
    index: ['index.html'],
    // The build writes .br and .gz beside each file: sent as the browser accepts, never compressed per request.
    preCompressed: true,
    // Files under assets/ carry their content's hash in their name: cached for good. The page itself is
    // asked again each time, so a new build is seen at once.
    setHeaders: (reply, file) => {
      void reply.header('cache-control', /[\\/]assets[\\/]/.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache');
      if (file.endsWith('.html')) void reply.header('content-security-policy', options.contentSecurityPolicy);
    },
  });
  // Client-side routes of the single-page app all load its index; a missing built file is a 404,
  // so a page open on an old build never gets HTML in place of its script.
  app.get(`${PREFIX}/*`, { schema: { hide: true } }, async (request, reply) => {
    if (/^\/app\/assets\/|\.[a-z0-9]{1,8}$/i.test(request.url.split('?')[0] ?? '')) {
      return reply.code(404).type('text/plain').send('not found');
    }
    return reply
      .header('cache-control', 'no-cache')
      .header('content-security-policy', options.contentSecurityPolicy)
      .sendFile('index.html');
  });
}
