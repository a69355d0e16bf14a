/**
 * A sandbox callback as it goes out: the official provider's webhooks (signed X-Hub-Signature-256 with
 * the app secret, to config.sandbox.officialWebhookUrl) and the gateway's callbacks (signed
 * X-Gateway-Signature with the session's secret, to its callback_url), and the POST that sends one.
 */
import { createHmac } from 'node:crypto';
import { safeUrl } from '../../lib/logger.ts';
import { safeFetch, type TargetPolicy } from '../../lib/safe-fetch.ts';
import { digitsOf, type AccountRow, type SandboxContext } from '../context.ts';

const CALLBACK_TIMEOUT_MS = 5000;

export type Delivery = { url: string; body: string; headers: Record<string, string> };

export function officialDelivery(ctx: SandboxContext, payload: unknown): Delivery {
  const body = JSON.stringify(payload);
  const signature = createHmac('sha256', ctx.officialAppSecret).update(body).digest('hex');
  return {
    url: ctx.config.sandbox.officialWebhookUrl,
    body,
    headers: { 'x-hub-signature-256': `sha256=${signature}`, 'user-agent': 'facebookexternalua' },
  };
}

/** `at`: when the event happened (a gateway stamps its events so, and a callback retried late stays in order). */
export function gatewayDelivery(
  ctx: SandboxContext,
  account: AccountRow,
  eventId: string,
  event: string,
  payload: Record<string, unknown>,
  at?: string,
): Delivery | undefined {
  if (!account.callbackUrl || !account.callbackSecretSealed) return undefined;
  const body = JSON.stringify({ event, session: account.id, timestamp: at ?? ctx.clock.now().toISOString(), payload });
  const secret = ctx.sealer.open(account.callbackSecretSealed);
  return {
    url: account.callbackUrl,
    body,
    headers: {
      'x-gateway-signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
      'x-gateway-event-id': eventId,
      'user-agent': 'parley-sandbox-gateway',
    },
  };
}

/**
 * The sandbox runs inside this service, so its callbacks are this service's requests: under the
 * same guard as any other, with Parley's own provider webhooks (where bound channels point them)
 * and the configured official webhook URL as the exceptions.
 */
function targetsOf(ctx: SandboxContext): TargetPolicy {
  return {
    allowPrivate: ctx.config.allowPrivateNetworkTargets,
    ownPrefixes: [`${ctx.config.baseUrl}/v1/providers/`, ctx.config.sandbox.officialWebhookUrl],
  };
}

export async function post(ctx: SandboxContext, delivery: Delivery): Promise<void> {
  const response = await safeFetch(
    delivery.url,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...delivery.headers },
      body: delivery.body,
      signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS),
    },
    targetsOf(ctx),
  ).catch((err: unknown) => {
    throw new Error(`sandbox callback to ${safeUrl(delivery.url)} failed: ${(err as Error).message}`, { cause: err });
  });
  await response.arrayBuffer().catch(() => undefined);
  if (response.status < 200 || response.status > 299) {
    throw new Error(`sandbox callback to ${safeUrl(delivery.url)} answered ${response.status}`);
  }
}

/** Official webhooks only reach business accounts the app subscribed to. */
export function officialTarget(ctx: SandboxContext, account: AccountRow): boolean {
  if (account.subscribed) return true;
  ctx.logger.info({ waba_id: account.wabaId }, 'sandbox webhook not sent: the app is not subscribed to this business account');
  return false;
}

export function envelope(account: AccountRow, field: string, value: Record<string, unknown>) {
  return { object: 'whatsapp_business_account', entry: [{ id: account.wabaId, changes: [{ field, value }] }] };
}

export function metadata(account: AccountRow) {
  return { display_phone_number: digitsOf(account.displayPhoneNumber), phone_number_id: account.id };
}

export const unixSeconds = (ctx: SandboxContext) => String(Math.floor(ctx.clock.now().getTime() / 1000));
