/** Keeping what a held session's messages are named by (and the content of what it sent): session-messages.ts, bounded. */
import { PRUNE_EVERY, pruneSessionMessages, recordSessionMessages, type SessionMessage } from '../session-messages.ts';
import type { EngineContext, Held } from './context.ts';

/** Keeps messages of a session; every PRUNE_EVERY of them, the channel's old ones go. A failure is logged: the message itself is not affected. */
export async function remember(engine: EngineContext, held: Held, items: SessionMessage[]): Promise<void> {
  const { db, options } = engine;
  const now = options.clock.now();
  try {
    held.remembered = (held.remembered ?? 0) + (await recordSessionMessages({ db, sealer: options.sealer }, held.channelId, items, now));
    if (held.remembered >= PRUNE_EVERY) {
      held.remembered = 0;
      await pruneSessionMessages(db, held.channelId, now);
    }
  } catch (err) {
    options.logger.warn(
      { err, channel_id: held.channelId },
      'embedded engine: could not keep the messages of a session (retries and receipts fall back)',
    );
  }
}
