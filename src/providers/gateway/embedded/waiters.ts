/**
 * Waiting, in any process, for a row another process writes (a session's first QR, a command's
 * result): one LISTEN per NOTIFY channel and process, opened on the first wait, waking the waiters of
 * the payload's key (all of them after the listening connection was lost and came back). A slow
 * re-check is the floor under it, should a notification be missed.
 */
export type WaitersDatabase = { listen(channel: string, onNotify: (payload?: string) => void): Promise<() => Promise<void>> };

export type NotifyWaiters = {
  /** Calls check until it gives a value, on each NOTIFY of channel naming key; undefined after timeoutMs. */
  wait<T>(channel: string, key: string, check: () => Promise<T | undefined>, timeoutMs: number): Promise<T | undefined>;
};

/** The floor under the notifications: a waiter looks again at least this often. */
const RECHECK_MS = 1000;

export function createNotifyWaiters(database: WaitersDatabase, onListenError: (err: unknown) => void): NotifyWaiters {
  const listening = new Map<string, Promise<void>>();
  const waiters = new Map<string, Map<string, Set<() => void>>>();

  const listen = (channel: string) => {
    let started = listening.get(channel);
    if (!started) {
      started = database
        .listen(channel, (payload) => {
          const byKey = waiters.get(channel);
          if (!byKey) return;
          const woken = payload ? [...(byKey.get(payload) ?? [])] : [...byKey.values()].flatMap((set) => [...set]);
          for (const wake of woken) wake();
        })
        .then(
          () => undefined,
          (err: unknown) => {
            // Polls alone until a later wait tries again.
            listening.delete(channel);
            onListenError(err);
          },
        );
      listening.set(channel, started);
    }
    return started;
  };

  return {
    async wait(channel, key, check, timeoutMs) {
      await listen(channel);
      const deadline = Date.now() + timeoutMs;
      const byKey = waiters.get(channel) ?? new Map<string, Set<() => void>>();
      waiters.set(channel, byKey);
      for (;;) {
        let wake!: () => void;
        const woken = new Promise<void>((resolve) => (wake = resolve));
        // Registered before the check, so a NOTIFY that lands during it is not missed.
        const set = byKey.get(key) ?? new Set();
        set.add(wake);
        byKey.set(key, set);
        let timer: NodeJS.Timeout | undefined;
        try {
          const value = await check();
          if (value !== undefined) return value;
          const left = deadline - Date.now();
          if (left <= 0) return undefined;
          await Promise.race([woken, new Promise((resolve) => (timer = setTimeout(resolve, Math.min(left, RECHECK_MS))))]);
        } finally {
          clearTimeout(timer);
          set.delete(wake);
          if (set.size === 0) byKey.delete(key);
        }
      }
    },
  };
}
