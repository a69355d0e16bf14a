/**
 * The composition root: builds the database, queue, clock, logger and sealer from the config.
 * The one place that picks implementations.
 */
import { recordBroadcastReply } from './domain/broadcasts/replies.ts';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createFileAtomically } from './lib/write-once.ts';
import path from 'node:path';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/client.ts';
import { MIGRATION_LOCK_KEY, migrate } from './db/migrate.ts';
import { isDatabaseUnavailable } from './db/errors.ts';
import { bootstrap, type BootstrapResult } from './domain/organizations/bootstrap.ts';
import { ensureFirstPartyClients } from './domain/oauth/first-party.ts';
import { startQueue, type JobHandlers, type Queue } from './jobs/queue.ts';
import { purgeSessionsHandler } from './jobs/handlers/purge-sessions.ts';
import { analyzeSoon, analyzeTablesHandler } from './jobs/handlers/analyze-tables.ts';
import { providerInboundHandler } from './jobs/handlers/provider-inbound.ts';
import { channelWatchdogHandler } from './jobs/handlers/channel-watchdog.ts';
import { sandboxCallbackHandler } from './jobs/handlers/sandbox-callback.ts';
import { createProviderRegistry, installationDefaults, type ProviderRegistry } from './providers/registry.ts';
import type { ChannelDeps } from './domain/channels/channels.ts';
import type { OnboardingDeps, PairingDeps } from './domain/channels/pairing.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { createSealer, parseKey, randomToken, type Sealer } from './lib/crypto.ts';
import { createLogger, type Logger } from './lib/logger.ts';
import { createMailer, sendInBackground, type Mail, type Mailer } from './lib/mail.ts';
import { createSandbox, type Sandbox } from './sandbox/sandbox.ts';
import { messageReconcileHandler } from './jobs/handlers/message-reconcile.ts';
import type { BroadcastDeps } from './domain/broadcasts/broadcasts.ts';
import { tasksDueHandler } from './jobs/handlers/crm-tasks-due.ts';
import { broadcastsRunHandler } from './jobs/handlers/broadcasts-run.ts';
import { conversationsWakeHandler } from './jobs/handlers/conversations-wake.ts';
import { conversationsAssignHandler } from './jobs/handlers/conversations-assign.ts';
import { createInboundRouter, createQueueTrigger } from './domain/teams/assignment.ts';
import { createMessageDispatcher, type MessageDispatcher } from './domain/messages/dispatcher.ts';
import type { DispatchDeps } from './domain/messages/dispatch.ts';
import { DISPATCH_CHANNEL, messageStatusByProviderId, storedMessageByProviderId } from './domain/messages/messages.ts';
import {
  createAcceptWriter,
  createChannelCache,
  type AcceptWriter,
  type ChannelCache,
  type MessageDeps,
  type SendPolicy,
} from './domain/messages/accept.ts';
import { createTemplateParameterCache, type TemplateParameterCache } from './domain/templates/parameters.ts';
import type { TemplateDeps } from './domain/templates/templates.ts';
import { coalescedNotify } from './db/notify.ts';
import { createPacer, type Pacer } from './domain/messages/pacing.ts';
import { resolveInboundContact } from './domain/contacts/inbound.ts';
import { recordInboundOrder } from './domain/orders/inbound.ts';
import { recordInboundOptOut } from './domain/contacts/opt-out.ts';
import { createAutoReplyRecorder, sendAutoReplies } from './domain/business-hours/auto-replies.ts';
import { createBotInboundRecorder } from './domain/bots/inbound.ts';
import { deliverToBot, type BotDeliveryDeps } from './domain/bots/deliver.ts';
import type { BotDeps } from './domain/bots/bots.ts';
import { expireBotSessions } from './domain/bots/sessions.ts';
import { createCsatAnswerRecorder, createCsatRequester, sendCsat } from './domain/csat/surveys.ts';
import type { ConversationHooks } from './domain/messages/conversations.ts';
import type { ActionDeps } from './domain/automations/actions.ts';
import { createAutomationEventHook } from './domain/automations/triggers.ts';
import { automationsEventHandler, automationsNoReplyHandler } from './jobs/handlers/automations.ts';
import { sendPolicy } from './domain/contacts/policy.ts';
import { applyStatuses, createMessageApplier, type InboundContactResolver } from './domain/messages/provider-events.ts';
import { changeContactNumber } from './domain/contacts/number-change.ts';
import type { WebhookDeps } from './domain/webhooks/deps.ts';
import type { TargetPolicy } from './lib/safe-fetch.ts';
import { createWebhookEngine, type WebhookEngine } from './domain/webhooks/engine.ts';
import { webhooksCleanupHandler } from './jobs/handlers/webhooks-cleanup.ts';
import { API_KEYS_CHANGED, createApiKeyAuthenticator, type ApiKeyAuthenticator } from './domain/api-keys/api-keys.ts';
import { createClientCache, type ClientCache } from './domain/oauth/client-cache.ts';
import { createBearerAuthenticator, OAUTH_ACCESS_CHANGED, type BearerAuthenticatorService } from './domain/oauth/bearer.ts';
import { pathToFileURL } from 'node:url';
import { acceptInboundDelivery } from './domain/inbound/accept.ts';
import { findChannel } from './domain/channels/channels.ts';
import { uuidv7 } from './lib/ids.ts';
import type { Platform } from './providers/provider.ts';
import { createEmbeddedEngine, type EmbeddedEngine } from './providers/gateway/embedded/engine.ts';
import type { SocketFactory } from './providers/gateway/embedded/socket.ts';
import { createMetrics, type Metrics } from './metrics/metrics.ts';
import { readSnapshot } from './metrics/snapshot.ts';
import { checkReadiness } from './db/readiness.ts';
import type { ProbeServices } from './http/probes.ts';
import type { CounterStore } from './lib/counters.ts';
import { createDatabaseCounterStore } from './db/counters.ts';
import { createRedisCounterStore } from './lib/redis-counters.ts';
import { messageMediaHandler } from './jobs/handlers/message-media.ts';
import { callRejectHandler } from './jobs/handlers/call-reject.ts';
import type { MediaStoreDeps } from './domain/messages/inbound-media.ts';
import { createFsMediaStore } from './storage/fs-store.ts';
import type { MediaStore } from './storage/media-store.ts';

export type Container = {
  config: Config;
  logger: Logger;
  clock: Clock;
  database: Database;
  queue: Queue;
  sealer: Sealer;
  providers: ProviderRegistry;
  /** The built-in sandbox provider, when PROVIDER_SANDBOX is on. */
  sandbox: Sandbox | undefined;
  pacer: Pacer;
  /** API keys, cached in the process and forgotten when any key is withdrawn. */
  apiKeys: ApiKeyAuthenticator;
  /** OAuth access tokens, cached in the process and forgotten when anything that can withdraw one changes. */
  bearer: BearerAuthenticatorService;
  /** OAuth clients by client_id for the token endpoints, cached in the process and forgotten with the bearer cache. */
  oauthClients: ClientCache;
  /** CRM rules on sending (consent, suppression) and on inbound senders (contact resolution). */
  crm: { sendPolicy?: SendPolicy; resolveInboundContact: InboundContactResolver };
  /** Delivers webhooks in the worker role (started by queue.work, stopped by queue.stop). */
  webhookEngine: WebhookEngine;
  /** Sends accepted messages in the worker role (started by queue.work, stopped by queue.stop). */
  dispatcher: MessageDispatcher;
  /** Channels as the accepting path last loaded them (checked by every accept). */
  channelCache: ChannelCache;
  /** Approved templates' parameter counts as the accepting path last loaded them. */
  templateParameters: TemplateParameterCache;
  /** Writes accepted messages, concurrent ones together. */
  acceptWriter: AcceptWriter;
  /** After an accept: this process's dispatcher when it runs one, else the others' by NOTIFY. */
  wakeDispatch(): void;
  bootstrapResult: BootstrapResult;
  /** This process's id (made at boot): the owner of the channel sessions it holds. */
  processId: string;
  /** Linked-device sessions of unofficial channels without a gateway (its session manager runs in the worker role). */
  embedded: EmbeddedEngine;
  /** Outgoing mail (invitation and reset links); undefined when SMTP_URL is not set. */
  mailer: Mailer | undefined;
  /** Where the rate limits count (Redis when REDIS_URL is set, else the database): shared by every process. */
  counters: CounterStore;
  /** Where inbound media is kept once downloaded (MEDIA_STORE: the filesystem or an S3-compatible bucket). */
  mediaStore: MediaStore;
  jobHandlers(): JobHandlers;
  /** This process's Prometheus metrics (GET /metrics). */
  metrics: Metrics;
  close(): Promise<void>;
};

export type ContainerOverrides = {
  logger?: Logger;
  clock?: Clock;
  database?: Database;
  /** The embedded engine's sockets (tests: a scripted socket); else EMBEDDED_SOCKET_MODULE's, else the real library's. */
  socketFactory?: SocketFactory;
  /** Where inbound media goes (tests: a store of their own); else MEDIA_STORE's. */
  mediaStore?: MediaStore;
};

export async function buildContainer(config: Config, overrides: ContainerOverrides = {}): Promise<Container> {
  const logger = overrides.logger ?? createLogger({ level: config.logLevel });
  const clock = overrides.clock ?? systemClock;
  const sealer = createSealer(parseKey(config.encryptionKey ?? loadOrCreateKeyFile(config.dataDir)));
  const database = overrides.database ?? (await openConfiguredDatabase(config, logger));
  try {
    const { applied } = await migrate(database);
    if (applied.length > 0) logger.info({ applied }, 'applied database migrations');
    const bootstrapResult = await bootstrap(database, config.bootstrap, clock);
    await ensureFirstPartyClients(database.db, clock);
    // pg-boss's own install is not safe for two processes at once on a fresh PostgreSQL database
    // (its `create schema if not exists` runs after a wait on its advisory lock and can still fail
    // with a duplicate pg_namespace key), so one process at a time starts it, under the start-up
    // lock. PGlite serves one process, and its single connection must stay free for pg-boss.
    const jobQueue =
      database.kind === 'postgres'
        ? await database.withAdvisoryLock(MIGRATION_LOCK_KEY, () =>
            startQueue(database, logger, { maintain: config.roles.includes('worker') }),
          )
        : await startQueue(database, logger, { maintain: config.roles.includes('worker') });
    const metrics = createMetrics({
      snapshot: () => readSnapshot(database.db),
      databaseUp: () => database.availability.up(),
      pool: database.poolStats,
    });
    const webhookEngine = createWebhookEngine({
      ...webhookDepsOf(config, database, sealer, clock),
      logger,
      recorder: metrics.webhooks,
      onSequenced: createAutomationEventHook({ queue: jobQueue }),
    });
    const queue = jobQueue;
    const processId = uuidv7();
    const embedded = createEmbeddedEngine({
      database,
      sealer,
      clock,
      logger,
      processId,
      lease: { ttlMs: config.embedded.leaseTtlMs, renewMs: config.embedded.leaseRenewMs, pollMs: config.embedded.pollMs },
      reconnect: { baseMs: config.embedded.reconnectBaseMs, maxMs: config.embedded.reconnectMaxMs },
      qrWaitMs: config.embedded.qrWaitMs,
      commandTimeoutMs: config.embedded.commandTimeoutMs,
      // Only the worker role holds sessions; an api-only process asks the holders.
      socketFactory: config.roles.includes('worker') ? (overrides.socketFactory ?? (await loadSocketFactory(config, logger))) : undefined,
      async report(channelId, events, deliveryId) {
        const channel = await findChannel(database.db, channelId);
        if (!channel) return;
        await acceptInboundDelivery(
          { db: database.db, queue, clock, logger, statuses: applyStatuses },
          { platform: channel.platform as Platform, events, channel, deliveryId },
        );
      },
      statusOf: (channelId, providerMessageId) => messageStatusByProviderId(database.db, channelId, providerMessageId),
      messageOf: (channelId, providerMessageId) => storedMessageByProviderId(database.db, channelId, providerMessageId),
      pollKey: Buffer.from(sealer.derive('embedded-engine:poll-key'), 'hex'),
    });
    const providers = createProviderRegistry({ targets: providerTargets(config), timeoutMs: config.providerTimeoutMs, embedded });
    const sandbox = config.providerSandbox ? createSandbox({ config, sealer, queue, clock, logger }) : undefined;
    const pacer = createPacer({ db: database.db, clock });
    const mediaStore = overrides.mediaStore ?? (await createMediaStore(config));
    const crm: Container['crm'] = { sendPolicy, resolveInboundContact };
    const apiKeys = createApiKeyAuthenticator(
      { db: database.db, clock },
      { ttlMs: 60_000, negativeTtlMs: 10_000, onError: (err) => logger.warn({ err }, 'could not record an API key use') },
    );
    // Stops with the database (database.close()).
    await database.listen(API_KEYS_CHANGED, () => apiKeys.forget());
    const bearer = createBearerAuthenticator(
      { db: database.db, clock },
      { ttlMs: 60_000, onError: (err) => logger.warn({ err }, 'could not record an OAuth grant use') },
    );
    const oauthClients = createClientCache(database.db, { ttlMs: 60_000 });
    await database.listen(OAUTH_ACCESS_CHANGED, () => {
      bearer.forget();
      oauthClients.forget();
    });
    const counters = config.redis
      ? await createRedisCounterStore({ ...config.redis, logger })
      : createDatabaseCounterStore(database, { onPurgeError: (err) => logger.warn({ err }, 'could not delete ended rate-limit windows') });
    const container: Container = {
      config,
      logger,
      clock,
      database,
      queue,
      sealer,
      providers,
      sandbox,
      pacer,
      apiKeys,
      bearer,
      oauthClients,
      crm,
      processId,
      embedded,
      mailer: createMailer(config.mail),
      counters,
      mediaStore,
      webhookEngine,
      dispatcher: undefined as unknown as MessageDispatcher,
      channelCache: createChannelCache({ ttlMs: 30_000, now: () => new Date() }),
      templateParameters: createTemplateParameterCache({ ttlMs: 30_000, now: () => new Date() }),
      // PGlite has one connection: one statement at a time, everything else joins the next.
      acceptWriter: createAcceptWriter(database, {
        maxInFlight: database.kind === 'pglite' ? 1 : ACCEPT_STATEMENTS_IN_FLIGHT,
        maxBatch: 64,
        policy: crm.sendPolicy,
      }),
      // PGlite serves one process, so its dispatcher is this process's.
      wakeDispatch:
        config.roles.includes('worker') || database.kind === 'pglite'
          ? () => container.dispatcher.wake()
          : coalescedNotify(database.db, DISPATCH_CHANNEL, (err) => logger.warn({ err }, 'could not notify the message dispatchers')),
      bootstrapResult,
      metrics,
      jobHandlers: () => ({
        'message.reconcile': messageReconcileHandler(dispatchDeps(container)),
        'maintenance.purge-sessions': purgeSessionsHandler({ database, clock, logger }),
        'maintenance.analyze': analyzeTablesHandler({ database, logger, again: () => analyzeSoon(container.queue, database.db) }),
        'webhooks.cleanup': webhooksCleanupHandler({ database, clock, logger, retentionDays: config.eventRetentionDays }),
        'crm.tasks-due': tasksDueHandler({ db: database.db, clock, logger }),
        'broadcasts.run': broadcastsRunHandler({ db: database.db, clock, messages: messageDeps(container), logger }),
        'conversations.wake': conversationsWakeHandler({ db: database.db, clock, logger }),
        'automations.event': automationsEventHandler({ ...automationDeps(container), logger }),
        'automations.no-reply': automationsNoReplyHandler({ ...automationDeps(container), logger }),
        'conversations.assign': conversationsAssignHandler({ db: database.db, clock, logger }),
        'provider.inbound': providerInboundHandler({
          db: database.db,
          queue: container.queue,
          clock,
          logger,
          inbound: (platform) => providers.get(platform).inbound,
          messages: createMessageApplier({
            resolveContact: crm.resolveInboundContact,
            recordOrder: recordInboundOrder,
            recordOptOut: recordInboundOptOut,
            recordBotMessage: createBotInboundRecorder({ queue: container.queue }),
            recordAutoReply: createAutoReplyRecorder({ queue: container.queue }),
            recordCsatAnswer: createCsatAnswerRecorder({ queue: container.queue }),
            recordReply: recordBroadcastReply,
            routeConversation: createInboundRouter(createQueueTrigger(container.queue)),
            media: { queue: container.queue },
          }),
          changeNumber: changeContactNumber,
          calls: { resolveContact: crm.resolveInboundContact, queue: container.queue },
        }),
        'call.reject': callRejectHandler({ ...channelRouteDeps(container).pairing, messages: messageDeps(container), logger }),
        'conversation.auto-reply': async ({ message_id, greeting, away }) =>
          sendAutoReplies({ db: database.db, messages: messageDeps(container), logger }, { messageId: message_id, greeting, away }),
        'bot.deliver': async ({ delivery_id }) => void (await deliverToBot(botDeliveryDeps(container), delivery_id)),
        'bots.expire': async () => void (await expireBotSessions({ db: database.db, clock })),
        'conversation.csat': async ({ survey_id, step }) =>
          sendCsat({ db: database.db, clock, messages: messageDeps(container), logger }, { surveyId: survey_id, step }),
        'message.media': messageMediaHandler(mediaDeps(container)),
        'channel.watchdog': channelWatchdogHandler({ ...channelDeps(container), logger }),
        'sandbox.callback': sandboxCallbackHandler({ database, sandbox, logger }),
      }),
      async close() {
        // The queue with its loops (container.queue): the dispatcher, the webhook engine and the sessions stop with it.
        await container.queue.stop({ graceful: true, timeoutMs: config.shutdownTimeoutMs });
        await counters.close();
        await database.close();
      },
    };
    container.dispatcher = createMessageDispatcher(dispatchDeps(container), {
      database,
      concurrency: MESSAGE_DISPATCH_CONCURRENCY,
      pollMs: 1000,
      processId,
    });
    // The sessions go last: the sends in flight finish on their sockets before those are handed back.
    container.queue = withBackgroundLoops(jobQueue, [webhookEngine, container.dispatcher], [embedded]);
    return container;
  } catch (err) {
    await database.close().catch(() => undefined);
    throw err;
  }
}

export function openConfiguredDatabase(config: Config, logger: Logger): Promise<Database> {
  return config.databaseUrl
    ? openDatabase({
        kind: 'postgres',
        url: config.databaseUrl,
        waitMs: config.databaseTimeoutMs,
        // An outage is logged once each way (onDown, onUp), not once per connection that noticed it.
        onError: (err) =>
          isDatabaseUnavailable(err) ? logger.debug({ err }, 'database connection lost') : logger.error({ err }, 'database pool error'),
        onDown: (reason) => logger.error({ reason }, 'database unreachable; requests answer 503 and workers pause until it is back'),
        onUp: (downForMs) => logger.warn({ down_for_ms: downForMs }, 'database reachable again; resuming'),
      })
    : openDatabase({ kind: 'pglite', dataDir: path.join(config.dataDir, 'db') });
}

/** The media store the config names (docs/media.md); the S3 client is loaded only when it is named (about 35 MB of RSS). */
export async function createMediaStore(config: Config): Promise<MediaStore> {
  const media = config.media;
  if (media.store === 'fs') return createFsMediaStore(media.dir);
  const { createS3MediaStore } = await import('./storage/s3-store.ts');
  return createS3MediaStore({
    bucket: media.bucket,
    region: media.region,
    endpoint: media.endpoint,
    accessKeyId: media.accessKeyId,
    secretAccessKey: media.secretAccessKey,
    forcePathStyle: media.forcePathStyle,
    prefix: media.prefix,
  });
}

/** What the inbound media download needs, from the container. */
export function mediaDeps(container: Container): MediaStoreDeps {
  return {
    db: container.database.db,
    clock: container.clock,
    sealer: container.sealer,
    providers: container.providers,
    store: container.mediaStore,
    logger: container.logger,
  };
}

/** The key that seals stored credentials: made once and kept under DATA_DIR (mode 0600). */
function loadOrCreateKeyFile(dataDir: string): string {
  const file = path.join(dataDir, 'encryption.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const key = Buffer.from(randomToken(32), 'base64url').toString('base64');
  // Two processes starting at once: the first file made wins and both use it.
  if (!createFileAtomically(file, key + '\n')) return readFileSync(file, 'utf8').trim();
  return key;
}

/** What the channel and template domain functions need, from the container. */
export function channelDeps(container: Container): ChannelDeps {
  return {
    db: container.database.db,
    sealer: container.sealer,
    clock: container.clock,
    providers: container.providers,
    sandbox: container.sandbox,
    baseUrl: container.config.baseUrl,
    official: { apiBase: container.config.official.apiBase, apiVersion: container.config.official.apiVersion },
    settingDefaults: installationDefaults(container.config),
    targets: providerTargets(container.config),
  };
}

/** What the channel routes use: channel records, and the provider calls (pairing: the address the provider calls back). */
export function channelRouteDeps(container: Container): { channels: ChannelDeps; pairing: PairingDeps } {
  const channels = channelDeps(container);
  const base = container.config.baseUrl;
  return { channels, pairing: { ...channels, callbackUrl: (channel) => `${base}/v1/providers/${channel.platform}/webhook/${channel.id}` } };
}

/** What the onboarding routes use: channels, and the installation's app credentials for embedded signup. */
export function onboardingDeps(container: Container): OnboardingDeps {
  return { ...channelDeps(container), app: { appId: container.config.official.appId, appSecret: container.config.official.appSecret } };
}

/** What the template routes need, from the container. */
export function templateDeps(container: Container): TemplateDeps {
  return { db: container.database.db, clock: container.clock, sealer: container.sealer, providers: container.providers };
}

/** What the broadcast routes need, from the container: the runner is asked to look at once after a schedule or a resume. */
export function broadcastDeps(container: Container): BroadcastDeps {
  return {
    db: container.database.db,
    clock: container.clock,
    wake: async () => {
      await container.queue.enqueue(container.database.db, 'broadcasts.run', {}, { singletonKey: 'now', singletonSeconds: 1 });
      container.queue.wake('broadcasts.run');
    },
  };
}

/**
 * What changing conversations needs, from the container: resolving one asks for a satisfaction rating
 * (domain/csat); a change that lets a team's queue move enqueues its assignment (domain/teams).
 */
export function conversationDeps(container: Container): { db: Database['db']; clock: Clock; hooks: ConversationHooks } {
  return {
    db: container.database.db,
    clock: container.clock,
    hooks: { onResolved: createCsatRequester({ queue: container.queue }), queue: createQueueTrigger(container.queue) },
  };
}

/** What automation rules need, from the container: their writes, and the actions' (messages, webhook calls). */
export function automationDeps(container: Container): ActionDeps {
  return {
    db: container.database.db,
    clock: container.clock,
    sealer: container.sealer,
    policy: { allowPrivate: container.config.allowPrivateNetworkTargets },
    messages: messageDeps(container),
    webhookTimeoutMs: container.config.webhooks.timeoutMs,
    conversationHooks: conversationDeps(container).hooks,
  };
}

/** What sending needs, from the container. */
export function messageDeps(container: Container): MessageDeps {
  return {
    db: container.database.db,
    clock: container.clock,
    channels: container.channelCache,
    writer: container.acceptWriter,
    templates: container.templateParameters,
    sendPolicy: container.crm.sendPolicy,
    targets: providerTargets(container.config),
    wakeDispatch: container.wakeDispatch,
  };
}

export function dispatchDeps(container: Container): DispatchDeps {
  return {
    db: container.database.db,
    clock: container.clock,
    sealer: container.sealer,
    providers: container.providers,
    pacer: container.pacer,
    logger: container.logger,
    targets: providerTargets(container.config),
    reconcileAfterSeconds: container.config.messageReconcileSeconds,
    holdSeconds: container.config.messageHoldSeconds,
    // A request cut off on our side has landed on the provider's (or never will) by then.
    lookupSettleSeconds: Math.ceil(container.config.providerTimeoutMs / 1000) + 5,
    sandboxSends: container.sandbox
      ? (connection, messageId) => container.sandbox!.findSend(container.database.db, connection, messageId)
      : undefined,
    recorder: container.metrics.sends,
  };
}

/** Accepting statements in flight at once per process (the rest of the pool serves everything else). */
const ACCEPT_STATEMENTS_IN_FLIGHT = 2;

/** Messages sent at once by one worker process. */
const MESSAGE_DISPATCH_CONCURRENCY = 32;

/**
 * The worker role runs the pg-boss handlers and loops that work on tables of their own (webhook
 * deliveries, see domain/webhooks/engine.ts; message dispatch, see domain/messages/dispatcher.ts):
 * all start with queue.work and stop with queue.stop.
 */
type BackgroundLoop = { start(): Promise<void>; stop(options: { timeoutMs: number }): Promise<void> };

function withBackgroundLoops(queue: Queue, loops: BackgroundLoop[], last: BackgroundLoop[] = []): Queue {
  return {
    ...queue,
    async work(handlers) {
      await queue.work(handlers);
      for (const loop of [...last, ...loops]) await loop.start();
    },
    async stop(options) {
      await Promise.all(loops.map((loop) => loop.stop(options)));
      await Promise.all(last.map((loop) => loop.stop(options)));
      await queue.stop(options);
    },
  };
}

/**
 * The embedded engine's socket factory: EMBEDDED_SOCKET_MODULE's `socketFactory` (tests and
 * diagnostics), else the real library's (loaded by a worker when its first session opens).
 */
async function loadSocketFactory(config: Config, logger: Logger): Promise<SocketFactory> {
  if (config.embedded.socketModule) {
    const loaded = (await import(pathToFileURL(path.resolve(config.embedded.socketModule)).href)) as { socketFactory?: SocketFactory };
    if (typeof loaded.socketFactory !== 'function')
      throw new Error(`EMBEDDED_SOCKET_MODULE ${config.embedded.socketModule} exports no socketFactory function`);
    logger.warn(
      { module: config.embedded.socketModule },
      'embedded engine: sockets come from EMBEDDED_SOCKET_MODULE, not the real service',
    );
    return loaded.socketFactory;
  }
  // The library is loaded when the first session opens, not at start (library.ts says why).
  let real: Promise<SocketFactory> | undefined;
  return async (input) => {
    real ??= import('./providers/gateway/embedded/baileys-socket.ts').then(({ createBaileysSocketFactory }) =>
      createBaileysSocketFactory({ logger }),
    );
    return (await real)(input);
  };
}

function webhookDepsOf(config: Config, database: Database, sealer: Sealer, clock: Clock): WebhookDeps {
  return {
    db: database.db,
    database,
    sealer,
    clock,
    // Plain http and private addresses only where the explicit setting allows them; never the sandbox.
    policy: { allowPrivate: config.allowPrivateNetworkTargets },
    settings: config.webhooks,
  };
}

/**
 * Where provider calls (gateway bases, official API bases) and media probes may go: public https
 * addresses; private ones and plain http only with ALLOW_PRIVATE_NETWORK_TARGETS; and, while the
 * sandbox is on, this service's own sandbox routes (the sandbox-bound channels' addresses), matched
 * on origin and path. The current config decides, never a flag stored on a channel.
 */
export function providerTargets(config: Config): TargetPolicy {
  return { allowPrivate: config.allowPrivateNetworkTargets, ownPrefixes: config.providerSandbox ? [`${config.baseUrl}/sandbox/`] : [] };
}

/** What the probe and metrics routes use (GET /livez, /readyz, /metrics), in the API and in a worker-only process. */
export function probeServices(container: Container): ProbeServices {
  return { readiness: () => checkReadiness(container.database), metrics: container.metrics, access: container.config.metrics };
}

/** What the bot routes need: the webhook rules for its URL and secret. */
export function botDeps(container: Container): BotDeps {
  const webhooks = webhookDeps(container);
  return { db: webhooks.db, clock: webhooks.clock, sealer: webhooks.sealer, policy: webhooks.policy };
}

/** What a bot delivery needs: the webhooks' sender rules and the queue it comes back on while it waits. */
function botDeliveryDeps(container: Container): BotDeliveryDeps {
  return { ...botDeps(container), queue: container.queue, timeoutMs: container.config.webhooks.timeoutMs };
}

/** What the webhook domain functions need, from the container. */
export function webhookDeps(container: Container): WebhookDeps {
  return webhookDepsOf(container.config, container.database, container.sealer, container.clock);
}

/** Sends a mail after the change that caused it committed, never failing or delaying the request; undefined without SMTP. */
export function mailSender(container: Pick<Container, 'mailer' | 'logger'>, what: string): ((mail: Mail) => void) | undefined {
  const { mailer, logger } = container;
  if (!mailer) return undefined;
  return (mail) => void sendInBackground(mailer, logger, mail, what);
}
