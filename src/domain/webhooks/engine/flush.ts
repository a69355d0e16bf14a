/**
 * The engine's flush step: outcomes and lease releases are written in small batches, one flush at a
 * time; a batch that fails is written row by row, so one bad row does not lose the others' outcomes.
 */
import { sql } from 'drizzle-orm';
import { FLUSH_BATCH, FLUSH_DELAY_MS, type EngineContext, type Outcome } from './context.ts';
import { writeOutcomeRows } from './write-outcomes.ts';

/** Gives a row's lease back (with the next flush) without recording an attempt. */
export function releaseLater(engine: EngineContext, deliveryId: string): void {
  engine.releases.push(deliveryId);
  scheduleFlush(engine);
}

export function scheduleFlush(engine: EngineContext): void {
  if (engine.outcomes.length + engine.releases.length >= FLUSH_BATCH) {
    void flush(engine);
    return;
  }
  if (engine.flushTimer) return;
  engine.flushTimer = setTimeout(() => {
    engine.flushTimer = undefined;
    void flush(engine);
  }, FLUSH_DELAY_MS);
}

export function flush(engine: EngineContext): Promise<void> {
  if (engine.flushing) {
    engine.flushAgain = true;
    return engine.flushing;
  }
  engine.flushing = (async () => {
    do {
      await yieldToEventLoop();
      engine.flushAgain = false;
      const batch = engine.outcomes.splice(0, FLUSH_BATCH);
      const released = engine.releases.splice(0, engine.releases.length);
      if (batch.length > 0) await writeOutcomes(engine, batch);
      if (released.length > 0) await releaseLeases(engine, released);
    } while (engine.flushAgain || engine.outcomes.length > 0 || engine.releases.length > 0);
  })().finally(() => {
    engine.flushing = undefined;
  });
  return engine.flushing;
}

async function writeOutcomes(engine: EngineContext, batch: Outcome[]): Promise<void> {
  try {
    await writeOutcomeRows(engine, batch);
  } catch (err) {
    if (batch.length === 1) {
      // Its lease lapses and the delivery is attempted again: at least once.
      engine.deps.logger.error({ err, delivery_id: batch[0]!.delivery_id }, 'could not record a webhook attempt');
      return;
    }
    // One bad row must not lose the others' outcomes.
    for (const one of batch) await writeOutcomes(engine, [one]);
  }
}

async function releaseLeases(engine: EngineContext, ids: string[]): Promise<void> {
  try {
    await engine.db.execute(sql`
      update webhook_deliveries set locked_until = null, locked_by = null
      where id in (select value::uuid from json_array_elements_text(${JSON.stringify(ids)}::json)) and locked_by = ${engine.workerId}`);
  } catch (err) {
    engine.deps.logger.warn({ err }, 'could not release webhook leases; they lapse by themselves');
  }
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
