import { z } from 'zod';
import { isDatabaseUnavailable } from '../../db/errors.ts';
import type { App } from '../types.ts';

const ComponentSchema = z.object({
  status: z.enum(['up', 'down']),
  latency_ms: z.number().optional(),
  error: z.string().optional(),
});

const HealthSchema = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    version: z.string(),
    uptime_seconds: z.number(),
    components: z.object({ database: ComponentSchema, queue: ComponentSchema }),
  })
  .meta({ id: 'Health' });

async function probe(check: () => Promise<void>): Promise<z.infer<typeof ComponentSchema>> {
  const started = performance.now();
  try {
    await Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error('timed out after 2 s')), 2000).unref())]);
    return { status: 'up', latency_ms: Math.round((performance.now() - started) * 10) / 10 };
  } catch (err) {
    // Public: an outage is named, but not the server's address (the operator's log has it).
    return { status: 'down', error: isDatabaseUnavailable(err) ? 'the database cannot be reached' : (err as Error).message };
  }
}

/** What the health route uses: a ping of each component it reports. */
export type HealthServices = { pingDatabase: () => Promise<void>; pingQueue: () => Promise<void> };

export async function registerHealthRoutes(app: App, { pingDatabase, pingQueue }: HealthServices) {
  const started = Date.now();
  app.get(
    '/v1/health',
    {
      // Asked every few seconds: a successful answer is logged at debug only.
      config: { auth: { public: true }, quietLog: 'successes' as const },
      schema: {
        tags: ['health'],
        summary: 'Service health',
        description: "No credential needed. 200 while the database answers, 503 otherwise, with each component's state.",
        security: [],
        response: { 200: HealthSchema, 503: HealthSchema },
      },
    },
    async (_request, reply) => {
      const [database, queue] = await Promise.all([probe(pingDatabase), probe(pingQueue)]);
      const ok = database.status === 'up';
      return reply.code(ok ? 200 : 503).send({
        status: ok ? 'ok' : 'unavailable',
        version: '1',
        uptime_seconds: Math.round((Date.now() - started) / 1000),
        components: { database, queue },
      });
    },
  );
}
