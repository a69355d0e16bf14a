/**
 * The mechanics shared by the worker's loops that claim rows under a lease (message dispatch,
 * webhook delivery, gateway sessions); the rows, the queries and the leases are the caller's.
 *
 * The caller gives one pass: claim what there is room for and start the work on it (through run).
 * The loop runs passes one at a time, each on a fresh turn of the event loop (embedded PGlite answers
 * through microtasks only, so without that the work's sockets would wait for the passes to end):
 * - woken by wake(), by a NOTIFY on one of its channels, and by a poll as the floor;
 * - a wake during a pass asks for one more pass after it, never a second pass beside it; a pass
 *   that took all it could asks for another itself;
 * - paused while the database is known to be down (no pass, no poll), and polled at once when it is
 *   back, since notifications may have been missed meanwhile;
 * - stopped gracefully: no pass starts after stop(), the one under way ends, and the work in flight
 *   gets up to timeoutMs; then it is aborted (if the caller can) and waited for, or left to its lease.
 */
export type LeaseLoopDatabase = {
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  availability: { up(): boolean; onAvailable(listener: () => void): () => void };
};

export type LeaseLoopOptions = {
  /** What the loop is, for the log ("message dispatcher"). */
  name: string;
  database: LeaseLoopDatabase;
  /** NOTIFY channels that wake the loop; onNotify notes what the notification asks for, before the pass it starts. */
  channels: ReadonlyArray<{ channel: string; onNotify?: () => void }>;
  pollMs: number;
  /** Notes what a poll asks for (a poll also runs at start and when the database is back), before the pass it starts. */
  onPoll?: () => void;
  /** One pass: claims what there is room for and starts its work through run(). Resolves true to have another pass at once. */
  pass(): Promise<boolean>;
  /** Work done every `ms` while the loop runs (renewing the leases of the rows in hand, say). */
  every?: { ms: number; run(): Promise<void> };
  /** Without it, start() rejects when a channel cannot be listened to; with it, the loop runs on polls alone. */
  onListenError?: (err: unknown) => void;
  logger: { error(fields: object, message: string): void };
};

export type LeaseLoop = {
  start(): Promise<void>;
  /** Asks for a pass now instead of at the next poll. */
  wake(): void;
  /** Runs one piece of claimed work; stop() waits for it. settled runs when it ends, after it no longer counts in inFlight(). */
  run(work: () => Promise<void>, settled?: () => void): void;
  /** Work started through run() and not yet ended. */
  inFlight(): number;
  /** True from start() until stop(). */
  isRunning(): boolean;
  /**
   * Stops passing and polling, waits for the pass under way, then up to timeoutMs for the work in
   * flight. With abort, what is still running then is aborted and waited for; without, it is left to
   * finish on its own (its leases lapse if the process exits first).
   */
  stop(options: { timeoutMs: number; abort?: () => void }): Promise<void>;
};

export function createLeaseLoop(options: LeaseLoopOptions): LeaseLoop {
  const { database, logger } = options;
  const tasks = new Set<Promise<void>>();
  const unlisten: Array<() => Promise<void>> = [];
  let running = false;
  let passing = false;
  /** The passes under way, or the last ones. */
  let passed: Promise<void> = Promise.resolve();
  let again = false;
  let pollTimer: NodeJS.Timeout | undefined;
  let everyTimer: NodeJS.Timeout | undefined;
  let offAvailable: (() => void) | undefined;

  const pump = () => {
    if (!running || !database.availability.up()) return;
    if (passing) {
      again = true;
      return;
    }
    passing = true;
    passed = (async () => {
      try {
        do {
          again = false;
          await yieldToEventLoop();
          if (!running) break;
          try {
            if (await options.pass()) again = true;
          } catch (err) {
            // Not again at once (the next wake or poll tries), or a failing database would be asked in a loop.
            if (running) logger.error({ err }, `${options.name}: could not claim; trying again at the next wake or poll`);
          }
        } while (again && running && database.availability.up());
      } finally {
        // In the same turn as the last look at `again`: a wake from here on starts a pass of its own.
        passing = false;
      }
    })();
  };

  const poll = () => {
    if (!running || !database.availability.up()) return;
    options.onPoll?.();
    pump();
  };

  return {
    async start() {
      if (running) return;
      running = true;
      for (const { channel, onNotify } of options.channels) {
        try {
          unlisten.push(
            await database.listen(channel, () => {
              onNotify?.();
              pump();
            }),
          );
        } catch (err) {
          if (!options.onListenError) {
            running = false;
            for (const stopListening of unlisten.splice(0)) await stopListening().catch(() => undefined);
            throw err;
          }
          options.onListenError(err);
        }
      }
      offAvailable = database.availability.onAvailable(poll);
      pollTimer = setInterval(poll, options.pollMs);
      pollTimer.unref();
      if (options.every) {
        const every = options.every;
        everyTimer = setInterval(() => void every.run(), every.ms);
        everyTimer.unref();
      }
      poll();
    },
    wake: pump,
    run(work, settled) {
      let started: Promise<void>;
      try {
        started = work();
      } catch (err) {
        started = Promise.reject(err);
      }
      const task: Promise<void> = started
        .catch((err: unknown) => logger.error({ err }, `${options.name}: work failed unexpectedly`))
        .finally(() => {
          tasks.delete(task);
          settled?.();
        });
      tasks.add(task);
    },
    inFlight: () => tasks.size,
    isRunning: () => running,
    async stop({ timeoutMs, abort }) {
      if (!running) return;
      running = false;
      clearInterval(pollTimer);
      clearInterval(everyTimer);
      offAvailable?.();
      for (const stopListening of unlisten.splice(0)) await stopListening().catch(() => undefined);
      await passed;
      if (tasks.size > 0 && timeoutMs > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.allSettled([...tasks]), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
        clearTimeout(timer);
      }
      if (abort) {
        abort();
        await Promise.allSettled([...tasks]);
      }
    },
  };
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
