/**
 * The service's OpenAPI document, obtained from the service itself: the whole app built in this
 * process over a fresh test database and asked for GET /v1/openapi.json through Fastify's inject (no
 * port is opened). BASE_URL is fixed, so the document (its `servers`) is the same on every machine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/config.ts';
import { buildContainer } from '../../../src/container.ts';
import { buildApp } from '../../../src/http/app.ts';
import { createLogger } from '../../../src/lib/logger.ts';
import { createTestDatabase } from '../../../test/harness.ts';

/** The document's base URL: the one the README and the docs use. */
export const DOCUMENT_BASE_URL = 'http://localhost:8080';

export type OpenApiDocument = {
  openapi: string;
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components?: Record<string, unknown>;
  [key: string]: unknown;
};

export async function loadOpenApiDocument(): Promise<OpenApiDocument> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-sdk-openapi-'));
  const testDb = await createTestDatabase();
  try {
    const config = loadConfig({ BASE_URL: DOCUMENT_BASE_URL, DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const container = await buildContainer(config, {
      database: testDb.database,
      logger: createLogger({ level: 'silent' }),
      socketFactory: () => {
        throw new Error('the document needs no linked-device socket');
      },
    });
    const app = await buildApp(container);
    try {
      const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
      if (res.statusCode !== 200) throw new Error(`GET /v1/openapi.json answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
      return JSON.parse(res.body) as OpenApiDocument;
    } finally {
      await app.close();
      await container.queue.stop({ graceful: false, timeoutMs: 100 });
      await container.counters.close();
    }
  } finally {
    await testDb.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
