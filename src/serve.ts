/**
 * What a start runs once its configuration is valid: the service (its roles, printing the dashboard
 * address, draining on SIGTERM) or the migrations. main.ts loads this only after the configuration
 * checked out, so a wrong setting stops the process before the rest of the code is even loaded.
 */
import type { Config } from './config.ts';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildContainer, openConfiguredDatabase, probeServices, type Container } from './container.ts';
import { migrate } from './db/migrate.ts';
import { analyzeSoon } from './jobs/handlers/analyze-tables.ts';
import { checkChannelsAtStart } from './jobs/handlers/channel-watchdog.ts';
import { isDatabaseUnavailable } from './db/errors.ts';
import { buildApp, type App } from './http/app.ts';
import { buildProbeApp } from './http/probes.ts';
import { createLogger } from './lib/logger.ts';

export async function runMigrations(config: Config) {
  const logger = createLogger({ level: config.logLevel });
  const database = await openConfiguredDatabase(config, logger);
  try {
    const { applied } = await migrate(database);
    logger.info({ applied }, applied.length ? 'applied database migrations' : 'database is up to date');
  } finally {
    await database.close();
  }
}

/** Shown once, on the first start, when the owner's password or the first key was generated. */
function printWelcome(container: Container) {
  const result = container.bootstrapResult;
  if (!result.created) return;
  const lines = [
    '',
    '  Parley is ready. This is shown once; keep these somewhere safe.',
    `  Dashboard:  ${container.config.appUrl}/`,
    `  Email:      ${result.email}`,
    result.generatedPassword ? `  Password:   ${result.generatedPassword}` : '  Password:   (BOOTSTRAP_ADMIN_PASSWORD)',
    result.generatedApiKey ? `  API key:    ${result.generatedApiKey}` : '  API key:    (BOOTSTRAP_API_KEY)',
    `  Try:        curl -H 'X-Api-Key: <API key>' ${container.config.baseUrl}/v1/channels`,
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

/**
 * A database server that is not up yet (restarting, or starting beside us) is waited for, with a
 * capped backoff, rather than ending the process; any other failure still stops the start.
 */
async function buildContainerWhenReachable(config: Config): Promise<Container> {
  const logger = createLogger({ level: config.logLevel });
  for (let delay = 500; ; delay = Math.min(delay * 2, 10_000)) {
    try {
      return await buildContainer(config, { logger });
    } catch (err) {
      if (!config.databaseUrl || !isDatabaseUnavailable(err)) throw err;
      logger.warn({ reason: (err as Error).message, retryInMs: delay }, 'the database cannot be reached; waiting for it');
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

export async function serve(config: Config) {
  const container = await buildContainerWhenReachable(config);
  // Right away: the generated secrets are committed now, and a start that fails later (the port
  // taken, say) must not lose them, since no later start shows them again.
  printWelcome(container);
  let app: App | undefined;
  /** A worker-only process's HTTP server: the probes and /metrics. */
  let probes: FastifyInstance | undefined;
  let stopping = false;
  let workerStarting: Promise<void> | undefined;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    container.logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      container.logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs + 5000);
    timer.unref();
    try {
      await Promise.all([app?.close(), probes?.close()]);
      // A signal during the worker's start: let the start finish, then stop what it started.
      await workerStarting?.catch(() => undefined);
      await container.close();
      process.exit(0);
    } catch (err) {
      container.logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  // The API listens first: jobs left from before a restart may call this very server (the sandbox).
  if (config.roles.includes('api')) {
    app = await buildApp(container);
    await app.listen({ port: config.port, host: config.host });
    // Every start, once it answers: the address is no secret, and a later start is where it was lost.
    process.stdout.write(`Dashboard: ${config.appUrl}/\n`);
  } else {
    // Watched like an API process: /livez, /readyz and /metrics on PORT (docs/operations.md).
    probes = await buildProbeApp(container.logger as FastifyBaseLogger, probeServices(container), {
      trustProxy: config.trustProxy,
      shutdownTimeoutMs: config.shutdownTimeoutMs,
    });
    await probes.listen({ port: config.port, host: config.host });
  }
  if (config.roles.includes('worker') && !stopping) {
    workerStarting = container.queue.work(container.jobHandlers());
    await workerStarting;
    // A first look at the tables' growth soon after start, not at the next minute (a fresh database fills fast).
    await analyzeSoon(container.queue, container.database.db).catch((err: unknown) =>
      container.logger.warn({ err }, 'could not schedule the table analysis'),
    );
    await checkChannelsAtStart(container.queue, container.database.db).catch((err: unknown) =>
      container.logger.warn({ err }, 'could not schedule the channel check'),
    );
    container.logger.info('worker started');
  }
}
