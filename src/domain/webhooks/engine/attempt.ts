/** The engine's attempt step: signs and sends one delivery (or skips it), then records what came of it. */
import { signingSecrets } from '../endpoints.ts';
import { sendWebhook } from '../send.ts';
import { openSecret, type ClaimedRow, type EngineContext } from './context.ts';
import { releaseLater } from './flush.ts';
import { recordOutcome } from './record.ts';

export async function attemptDelivery(engine: EngineContext, row: ClaimedRow, controller: AbortController): Promise<void> {
  const { clock, settings, policy } = engine.deps;
  const trigger = row.manual ? 'manual' : 'scheduled';
  if (!row.enabled || row.body === null) {
    recordOutcome(engine, row, trigger, null, row.enabled ? 'the event is no longer retained' : 'endpoint disabled');
    return;
  }
  const now = clock.now();
  const secrets = signingSecrets(
    {
      secretSealed: row.secret_sealed,
      previousSecretSealed: row.previous_secret_sealed,
      previousSecretExpiresAt: row.previous_secret_expires_at === null ? null : new Date(row.previous_secret_expires_at),
    },
    (sealed) => openSecret(engine, sealed),
    now,
  );
  const outcome = await sendWebhook(
    row.url,
    secrets,
    { id: row.message_id, type: row.event_type, body: JSON.stringify(row.body), test: row.test },
    { clock, timeoutMs: settings.timeoutMs, policy, signal: controller.signal },
  );
  if (controller.signal.aborted) {
    // Shutdown: no attempt is recorded and the lease is given back, so the next worker sends it at once.
    releaseLater(engine, row.id);
    return;
  }
  recordOutcome(engine, row, trigger, outcome, null);
}
