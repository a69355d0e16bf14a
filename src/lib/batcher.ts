/**
 * Group commit for writes many callers make at once: calls that arrive while `maxInFlight` runs are
 * busy (or in the same turn of the event loop) are gathered and run together, up to `maxBatch` at a
 * time. At low load each call runs at once, alone; under load the runs grow instead of queueing one
 * round trip per call. A run that fails rejects every call it carried, unless `splitOnFailure`: then
 * each of its calls is run again alone, so one bad item fails only itself. An item `alone` says so of
 * runs by itself (one whose write may fail for reasons of its own, such as a key already taken).
 */
export type BatcherOptions<I> = {
  maxBatch: number;
  maxInFlight: number;
  alone?: (item: I) => boolean;
  splitOnFailure?: boolean;
};

export function createBatcher<I, R>(run: (items: I[]) => Promise<R[]>, options: BatcherOptions<I>): (item: I) => Promise<R> {
  type Waiting = { item: I; resolve(result: R): void; reject(err: unknown): void };
  const waiting: Waiting[] = [];
  let inFlight = 0;
  let scheduled = false;

  const runBatch = (batch: Waiting[]): Promise<R[]> => {
    try {
      return run(batch.map((w) => w.item));
    } catch (err) {
      return Promise.reject(err);
    }
  };

  const settle = async (batch: Waiting[]) => {
    try {
      const results = await runBatch(batch);
      batch.forEach((w, i) => w.resolve(results[i]!));
    } catch (err) {
      if (!options.splitOnFailure || batch.length === 1) return batch.forEach((w) => w.reject(err));
      await Promise.all(
        batch.map((w) =>
          runBatch([w]).then(
            ([result]) => w.resolve(result!),
            (e: unknown) => w.reject(e),
          ),
        ),
      );
    }
  };

  const start = () => {
    scheduled = false;
    while (inFlight < options.maxInFlight && waiting.length > 0) {
      let size = 1;
      if (!options.alone?.(waiting[0]!.item)) {
        while (size < waiting.length && size < options.maxBatch && !options.alone?.(waiting[size]!.item)) size++;
      }
      const batch = waiting.splice(0, size);
      inFlight++;
      void settle(batch).finally(() => {
        inFlight--;
        schedule();
      });
    }
  };

  // On the next turn of the event loop, so the calls made meanwhile (the answers read in that turn;
  // on PGlite a statement runs on this very thread, and nothing else is read while it does) join it.
  const schedule = () => {
    if (scheduled || waiting.length === 0) return;
    scheduled = true;
    setImmediate(start);
  };

  return (item) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      schedule();
    });
}
