/**
 * The one way tests wait for a condition: probe is called until it returns a value (anything but
 * undefined or false), every everyMs, for at most timeoutMs; then the wait fails naming what it was
 * for. A probe that throws fails the wait at once (an assertion inside it is a failure, not a "not yet").
 */

// Taken when this module loads: a test that mocks the timers (node:test's mock.timers) still waits in real time.
const { setTimeout: realSetTimeout } = globalThis;
const realNow = Date.now;

export type EventuallyOptions = { timeoutMs?: number; everyMs?: number };

export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  options: EventuallyOptions | number = {},
): Promise<T> {
  const { timeoutMs = 20_000, everyMs = 25 } = typeof options === 'number' ? { timeoutMs: options } : options;
  const started = realNow();
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    const waited = realNow() - started;
    if (waited > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => realSetTimeout(resolve, Math.min(everyMs, timeoutMs - waited + 1)));
  }
}
