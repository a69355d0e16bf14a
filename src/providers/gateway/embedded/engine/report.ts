/** Reporting what a held session's socket saw through the inbound pipeline, in order, surviving a database outage. */
import { isDatabaseUnavailable } from '../../../../db/errors.ts';
import type { InboundEvent } from '../../../provider.ts';
import type { EngineContext, Held } from './context.ts';

/** Storing a session event while the database is unreachable is tried again after these waits (doubling). */
const REPORT_RETRY_BASE_MS = 250;
const REPORT_RETRY_MAX_MS = 5_000;

/**
 * Stores a session's events in order. The library has already acknowledged them to the service, so
 * while the database is unreachable they are kept and tried again (the session's later events wait
 * behind them) for as long as this process holds the session; other errors are logged.
 */
export async function report(engine: EngineContext, held: Held, events: InboundEvent[]): Promise<void> {
  const { options, sessions } = engine;
  const { logger } = options;
  for (const event of events) {
    for (let attempt = 1; ; attempt++) {
      try {
        await options.report(held.channelId, [event], deliveryIdOf(event));
        break;
      } catch (err) {
        if (!isDatabaseUnavailable(err) || sessions.get(held.channelId) !== held) {
          logger.error({ err, channel_id: held.channelId, kind: event.kind }, 'embedded engine: could not store a session event');
          break;
        }
        if (attempt === 1)
          logger.warn(
            { err, channel_id: held.channelId, kind: event.kind },
            'embedded engine: database unreachable; keeping the session event to store it when it is back',
          );
        await untilAvailableOr(engine, Math.min(REPORT_RETRY_MAX_MS, REPORT_RETRY_BASE_MS * 2 ** (attempt - 1)));
      }
    }
  }
}

/** Waits until the database is reported back, or at most `ms` (it may be back before anyone notices). */
const untilAvailableOr = (engine: EngineContext, ms: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    const unsubscribe = engine.options.database.availability.onAvailable(done);
    function done() {
      clearTimeout(timer);
      unsubscribe();
      resolve();
    }
  });

/** The inbound pipeline's delivery id of an event: the library delivers some twice, and they are stored once. */
function deliveryIdOf(event: InboundEvent): string | undefined {
  switch (event.kind) {
    case 'message.inbound':
      // A stub is a delivery of its own: the real message may follow under the same id (and replaces it).
      return `${event.content.stub_type ? 'stub' : 'msg'}:${event.providerMessageId}`;
    case 'message.echo':
      return `msg:${event.providerMessageId}`;
    case 'message.status':
      return `ack:${event.providerMessageId}:${event.status}`;
    case 'message.edited':
      return `edit:${event.providerMessageId}:${event.timestamp.getTime()}`;
    case 'message.deleted':
      return `del:${event.providerMessageId}`;
    default:
      return undefined;
  }
}

/** A channel.status event of a held session, stamped now. */
export const statusEvent = (
  engine: EngineContext,
  held: Held,
  status: 'connected' | 'disconnected' | 'pairing' | 'error',
  reason: string,
  reasonCode: string,
  extra: Partial<Extract<InboundEvent, { kind: 'channel.status' }>> = {},
): InboundEvent => ({
  kind: 'channel.status',
  ref: held.ref,
  status,
  reason,
  reasonCode,
  timestamp: engine.options.clock.now(),
  ...extra,
});
