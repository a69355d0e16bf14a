/**
 * Delivering the sandbox's callbacks: the official provider's webhooks (signed X-Hub-Signature-256
 * with the app secret, to config.sandbox.officialWebhookUrl) and the gateway's callbacks (signed
 * X-Gateway-Signature with the session's secret, to its callback_url). Each runs as one
 * 'sandbox.callback' job; a refused or failed POST throws, so the job is retried.
 */
import type { Executor } from '../db/client.ts';
import type { SandboxCallback, SandboxContext } from './context.ts';
import { deliverCall } from './callbacks/call.ts';
import { deliverInbound } from './callbacks/inbound.ts';
import { deliverPhone } from './callbacks/phone.ts';
import { deliverGatewayEvent, deliverSession } from './callbacks/session.ts';
import { deliverStatuses, type StatusPayload } from './callbacks/statuses.ts';
import { deliverTemplate } from './callbacks/template.ts';

/**
 * The callbacks, one kind per file under callbacks/: statuses.ts (together, step by step),
 * inbound.ts, template.ts, session.ts, phone.ts, call.ts; delivery.ts signs and posts, load.ts reads the rows.
 */
export function createCallbacks(ctx: SandboxContext) {
  return {
    /**
     * Delivers a batch of callbacks (each job's `id` is stable across its retries): statuses together
     * (deliverStatuses), the others each on its own. Resolves to the jobs that failed, to be retried.
     */
    async deliverBatch(db: Executor, jobs: Array<{ id: string; payload: SandboxCallback }>): Promise<Map<string, Error>> {
      const statuses = jobs.filter((j): j is { id: string; payload: StatusPayload } => j.payload.kind === 'message.status');
      const others = jobs.filter(
        (j): j is { id: string; payload: Exclude<SandboxCallback, StatusPayload> } => j.payload.kind !== 'message.status',
      );
      const failed = statuses.length > 0 ? await deliverStatuses(ctx, db, statuses) : new Map<string, Error>();
      await Promise.all(
        others.map((job) =>
          deliverOne(ctx, db, job.payload, job.id).catch(
            (err: unknown) => void failed.set(job.id, err instanceof Error ? err : new Error(String(err))),
          ),
        ),
      );
      return failed;
    },
    /** Delivers one callback; `eventId` is stable across retries (the job id). Throws to be retried. */
    async deliver(db: Executor, payload: SandboxCallback, eventId: string): Promise<void> {
      if (payload.kind !== 'message.status') return deliverOne(ctx, db, payload, eventId);
      const failed = await deliverStatuses(ctx, db, [{ id: eventId, payload }]);
      const err = failed.get(eventId);
      if (err) throw err;
    },
  };
}

/** Delivers one callback other than a status. */
async function deliverOne(
  ctx: SandboxContext,
  db: Executor,
  payload: Exclude<SandboxCallback, StatusPayload>,
  eventId: string,
): Promise<void> {
  switch (payload.kind) {
    case 'message.inbound':
      return deliverInbound(ctx, db, payload, eventId);
    case 'template.status':
      return deliverTemplate(ctx, db, payload);
    case 'session.status':
      return deliverSession(ctx, db, payload, eventId);
    case 'gateway.event':
      return deliverGatewayEvent(ctx, db, payload, eventId);
    case 'message.echo':
    case 'message.edited':
    case 'message.deleted':
      return deliverPhone(ctx, db, payload, eventId);
    case 'call':
      return deliverCall(ctx, db, payload, eventId);
    default:
      payload satisfies never;
  }
}
