/**
 * Killing the service (SIGKILL) in the middle of a dispatch batch, while the provider holds sends of
 * the batch unanswered (some received, some not), loses no message and sends none twice: after the
 * restart each send whose answer was lost is settled by asking the provider (see dispatch-kill.ts).
 */
import { test } from 'node:test';
import { killMidBatch } from './dispatch-kill.ts';

test(
  'SIGKILL mid-batch (api and worker in one process): every message read, each sent exactly once, every status delivered',
  { timeout: 170_000 },
  () => killMidBatch('one'),
);
