/**
 * Whether the database server can be reached, as this process last found out. A connection-class
 * failure (the server restarting, a connection reset, a connect that timed out) starts a probe on a
 * connection of its own; while probes fail the database is down: queries fail at once instead of
 * queueing for a connection, the workers pause, and probes go on with a growing delay. The first
 * probe that answers brings it back up, and every onAvailable listener is called.
 */
import { DatabaseUnavailableError, isDatabaseUnavailable } from './errors.ts';

export type Availability = {
  /** False while the database is known to be unreachable. */
  up(): boolean;
  /** Why it is down (a short reason, no query text), or undefined when up. */
  reason(): string | undefined;
  /** Notes a failure; a connection-class one starts probing. Returns the error for rethrowing. */
  report(err: unknown): void;
  /** Throws DatabaseUnavailableError while down: for callers that must not wait. */
  check(): void;
  /** Calls listener whenever the database comes back after being down. */
  onAvailable(listener: () => void): () => void;
  stop(): void;
};

export type AvailabilityOptions = {
  /** One round trip on a fresh connection; rejects when the server cannot be reached. */
  probe(): Promise<void>;
  onDown?(reason: string): void;
  onUp?(downForMs: number): void;
  /** The delay before the first retry of a failed probe, and the most it grows to. */
  minDelayMs?: number;
  maxDelayMs?: number;
};

export function createAvailability(options: AvailabilityOptions): Availability {
  const minDelay = options.minDelayMs ?? 250;
  const maxDelay = options.maxDelayMs ?? 2000;
  let down: { since: number; reason: string } | undefined;
  let probing = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let delay = minDelay;
  const listeners = new Set<() => void>();

  const probe = () => {
    if (probing || stopped) return;
    probing = true;
    options.probe().then(
      () => {
        probing = false;
        delay = minDelay;
        if (!down) return;
        const downFor = Date.now() - down.since;
        down = undefined;
        options.onUp?.(downFor);
        for (const listener of listeners) listener();
      },
      (err: unknown) => {
        probing = false;
        if (!down) {
          down = { since: Date.now(), reason: describe(err) };
          options.onDown?.(down.reason);
        }
        if (stopped) return;
        timer = setTimeout(probe, delay);
        timer.unref();
        delay = Math.min(delay * 2, maxDelay);
      },
    );
  };

  return {
    up: () => down === undefined,
    reason: () => down?.reason,
    report(err) {
      // A failure while up may be one connection's (one backend terminated): the probe tells.
      if (!down && isDatabaseUnavailable(err)) probe();
    },
    check() {
      if (down) throw new DatabaseUnavailableError(down.reason);
    },
    onAvailable(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** A short reason: the driver's code and message, never a query or its parameters. */
function describe(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  const message = typeof e?.message === 'string' ? e.message.split('\n')[0]!.slice(0, 200) : String(err);
  return typeof e?.code === 'string' ? `${e.code}: ${message}` : message;
}
