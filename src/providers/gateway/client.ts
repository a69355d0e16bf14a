/**
 * The paired-gateway protocol over HTTP (docs/gateway-protocol.md): `{gateway_base}/sessions/...`
 * with a bearer API key, errors as `{error: {code, message, retryable}}`. Nothing else.
 */
import type { TargetPolicy } from '../../lib/safe-fetch.ts';
import { callJson } from '../http.ts';
import type { ProviderError, Result } from '../provider.ts';

type GatewayErrorBody = { error?: { code?: string; message?: string; retryable?: boolean; participants?: unknown } };

export function gatewayError(status: number, body: unknown): ProviderError {
  const e = (body as GatewayErrorBody | undefined)?.error;
  // 403 is the API key's refusal, except a group's "not an admin", which is about the number in that group.
  const keyRefused = status === 401 || (status === 403 && e?.code !== 'not_admin');
  return {
    code: e?.code ?? `http_${status}`,
    title: e?.message ?? `gateway answered HTTP ${status}`,
    retryable: e?.retryable === true || status >= 500 || status === 429,
    retryAfterSeconds: status === 429 ? 5 : undefined,
    // A rate limit holds the sends back; it is no fault of the message's (no attempt spent).
    ...(status === 429 ? { hold: true } : {}),
    channelFault: keyRefused,
    // Its rate limit is the session's: every send of the channel waits.
    scope: status === 429 || keyRefused ? 'channel' : 'message',
    ...(Array.isArray(e?.participants)
      ? { participants: e.participants.filter((p): p is string => typeof p === 'string').slice(0, 256) }
      : {}),
  };
}

export function createGatewayClient(settings: { base: string; apiKey: string; policy: TargetPolicy; timeoutMs?: number }) {
  const base = settings.base.replace(/\/+$/, '');
  return {
    async call<T>(method: string, path: string, body?: unknown): Promise<Result<T> & { status?: number }> {
      const result = await callJson({
        method,
        url: `${base}/${path.replace(/^\/+/, '')}`,
        headers: { authorization: `Bearer ${settings.apiKey}` },
        body,
        timeoutMs: settings.timeoutMs ?? 15_000,
        policy: settings.policy,
      });
      if (!result.ok) return result;
      const { status, json } = result.answer;
      if (status >= 200 && status < 300) return { ok: true, value: json as T, status };
      return { ok: false, error: gatewayError(status, json), status };
    },
  };
}
