/**
 * Group commit for writes many callers make at once: calls that arrive while `maxInFlight` runs are
 * busy (or in the same turn of the event loop) are gathered and run together, up to `maxBatch` at a
 * time. At low load each call runs at once, alone; under load the runs grow instead of queueing one
 * round trip per call. A run that fails rejects every call it carried.
 */
export function createBatcher<I, R>(run: (items: I[]) => Promise<R[]>, options: { maxBatch: number; maxInFlight: number }): (item: I) => Promise<R> {
  type Waiting = { item: I; resolve(result: R): void; reject(err: unknown): void };
  const waiting: Waiting[] = [];
  let inFlight = 0;
  let scheduled = false;

  const start = () => {
    scheduled = false;
    while (inFlight < options.maxInFlight && waiting.length > 0) {
      const batch = waiting.splice(0, options.maxBatch);
      inFlight++;
      let running: Promise<R[]>;
      try {
        running = run(batch.map((w) => w.item));
      } catch (err) {
        running = Promise.reject(err);
      }
      void running
        .then(
          (results) => batch.forEach((w, i) => w.resolve(results[i]!)),
          (err: unknown) => batch.forEach((w) => w.reject(err)),
        )
        .finally(() => {
          inFlight--;
          schedule();
        });
    }
  };

  // On the next turn of the event loop, so the calls made meanwhile (the answers read in that turn) join it.
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
