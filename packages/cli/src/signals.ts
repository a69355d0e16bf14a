/**
 * Commands that follow something live (listen, messages get --watch, channels qr) end on Ctrl-C or
 * SIGTERM: the work's AbortSignal fires, the work ends as it would normally, and the command exits 0.
 */
export async function untilInterrupted(work: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await work(controller.signal);
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
