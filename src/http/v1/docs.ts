import swaggerUi from '@fastify/swagger-ui';
import type { App } from '../app.ts';

const DOCS_PREFIX = '/v1/docs';

/** The OpenAPI 3.1 document (generated from the route schemas) and a reference page for people. */
export async function registerDocsRoutes(app: App) {
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
    uiConfig: { url: '/v1/openapi.json', deepLinking: true },
  });
}
