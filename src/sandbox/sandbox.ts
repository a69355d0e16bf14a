/**
 * The built-in sandbox provider (docs/sandbox.md): the provider side of both platforms, kept in the
 * sandbox_* tables, its callbacks run as jobs. The HTTP routes (src/http/sandbox/) speak the wire
 * protocols; this module holds the state and the rules.
 */
import { and, eq, ne, or, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { sandboxMedia, sandboxMessages } from '../db/schema.ts';
import type { SandboxGatewaySession, SandboxOfficialNumber, SandboxProvisioning, SandboxSendRecords } from './contract.ts';
import { createCallbacks } from './callbacks.ts';
import { createCalls } from './calls.ts';
import type { SandboxCallback, SandboxContext, SandboxDeps } from './context.ts';
import { createFaultSwitch, type FaultSwitch } from './faults.ts';
import { createSendsInFlight, type SendsInFlight } from './in-flight.ts';
import { createGatewayApi, type GatewayApi } from './gateway.ts';
import { createInbound } from './inbound.ts';
import { createMediaUrls, mediaBytes, mediaSize } from './media.ts';
import { createOfficialApi, type OfficialApi } from './official.ts';
import { createPhone } from './phone.ts';
import { createTemplateEvents } from './template-events.ts';

export type { SandboxDeps, SandboxCallback } from './context.ts';

export const DEFAULT_QR_LIFETIME_MS = 60_000;

export type Sandbox = SandboxProvisioning &
  SandboxSendRecords & {
    official: OfficialApi;
    gateway: GatewayApi;
    inbound: ReturnType<typeof createInbound>;
    /** The business's phone and the senders: echoes, edits, deletions (gateway channels). */
    phone: ReturnType<typeof createPhone>;
    /** Customers calling (gateway channels): a call rings, then ends. */
    calls: ReturnType<typeof createCalls>;
    /** The provider's later word on a template (flagged, paused, reinstated, ...): official channels. */
    templateEvents: ReturnType<typeof createTemplateEvents>;
    /** Faults injected into sends (tests; served under /sandbox/faults only with SANDBOX_FAULT_INJECTION). */
    faults: FaultSwitch;
    /** The sends being recorded right now (findSend waits for an account's before it answers). */
    inFlight: SendsInFlight;
    /** The bytes behind a signed media URL (streamed), or undefined when the URL is wrong or lapsed; `account` is the number or session holding it. */
    downloadMedia(
      db: Executor,
      id: string,
      expires: string | undefined,
      signature: string | undefined,
    ): Promise<{ mimeType: string; size: number; body: AsyncIterable<Uint8Array>; account: string } | undefined>;
    /** Runs one 'sandbox.callback' job; `eventId` is the job's id (stable across its retries). */
    deliverCallback(db: Executor, payload: SandboxCallback, eventId: string): Promise<void>;
    /** Runs a batch of 'sandbox.callback' jobs (statuses delivered together); resolves to the ids of those that failed. */
    deliverCallbacks(db: Executor, jobs: Array<{ id: string; payload: SandboxCallback }>): Promise<Map<string, Error>>;
  };

export function createSandbox(deps: SandboxDeps): Sandbox {
  const { config, sealer, queue, clock } = deps;
  const officialAppSecret = sealer.derive('sandbox-official-app-secret');
  const officialVerifyToken = sealer.derive('sandbox-official-verify-token').slice(0, 32);
  const mediaUrls = createMediaUrls({ baseUrl: config.baseUrl, key: sealer.derive('sandbox-media-url') });
  const stepSeconds = config.sandbox.statusDelayMs / 1000;

  const ctx: SandboxContext = {
    config,
    sealer,
    clock,
    logger: deps.logger,
    officialAppSecret,
    qrLifetimeMs: deps.qrLifetimeMs ?? DEFAULT_QR_LIFETIME_MS,
    // pg-boss reads a numeric startAfter as an interval in seconds, fractions included.
    enqueueCallback: (tx, payload, steps) => queue.enqueue(tx, 'sandbox.callback', payload, { startAfterSeconds: steps * stepSeconds }),
    mediaUrl: (id) => mediaUrls.url(id, clock.now()),
  };

  const official = createOfficialApi(ctx);
  const gateway = createGatewayApi(ctx);
  const callbacks = createCallbacks(ctx);
  const inFlight = createSendsInFlight();

  return {
    officialAppSecret,
    officialVerifyToken,
    official,
    gateway,
    inbound: createInbound(ctx),
    phone: createPhone(ctx),
    calls: createCalls(ctx),
    templateEvents: createTemplateEvents(ctx),
    faults: createFaultSwitch(),
    inFlight,

    provisionOfficialNumber(db, input): Promise<SandboxOfficialNumber> {
      return official.provisionNumber(db, input);
    },

    provisionGatewaySession(db): Promise<SandboxGatewaySession> {
      return gateway.provisionSession(db);
    },

    async downloadMedia(db, id, expires, signature) {
      if (!mediaUrls.verify(id, expires, signature, clock.now())) return undefined;
      const [media] = await db.select().from(sandboxMedia).where(eq(sandboxMedia.id, id)).limit(1);
      return media ? { mimeType: media.mimeType, size: mediaSize(media), body: mediaBytes(media), account: media.accountId } : undefined;
    },

    async findSend(db, connection, messageId) {
      // The number (official) or the session (gateway) the channel is bound to.
      const account = String(connection.settings.phone_number_id ?? connection.settings.session ?? '');
      // A send cut off on the caller's side may still be landing here (see in-flight.ts).
      await inFlight.settled(account);
      const [found] = await db
        .select({ id: sandboxMessages.id })
        .from(sandboxMessages)
        .where(
          and(
            eq(sandboxMessages.accountId, account),
            eq(sandboxMessages.direction, 'outbound'),
            // A send refused with a throughput error was not accepted.
            ne(sandboxMessages.status, 'throttled'),
            or(eq(sandboxMessages.idempotencyKey, messageId), sql`${sandboxMessages.body}->>'biz_opaque_callback_data' = ${messageId}`),
          ),
        )
        .limit(1);
      return { ok: true, value: found ? { found: true, providerMessageId: found.id } : { found: false } };
    },

    deliverCallback(db, payload, eventId) {
      return callbacks.deliver(db, payload, eventId);
    },

    deliverCallbacks(db, jobs) {
      return callbacks.deliverBatch(db, jobs);
    },
  };
}
