/**
 * The business cloud API over HTTP (Graph style): `{api_base}/{version}/{path}` with a bearer
 * token, JSON in and out, errors as `{error: {message, type, code, error_subcode}}`. Nothing else.
 */
import type { TargetPolicy } from '../../lib/safe-fetch.ts';
import { callJson } from '../http.ts';
import type { ProviderError, Result } from '../provider.ts';

export type GraphSettings = { apiBase: string; version: string; policy: TargetPolicy; timeoutMs?: number };

/** Error codes that mean "not now", with how long to hold the channel: throughput, pair rate, account and app limits. */
const RATE_LIMIT_SECONDS: Record<string, number> = { '130429': 2, '131056': 6, '131048': 60, '80007': 60, '4': 60 };
const TOKEN_CODES = new Set(['190', '102', '10']);

type GraphErrorBody = { error?: { message?: string; type?: string; code?: number | string; error_subcode?: number; error_data?: { details?: string } } };

export function graphError(status: number, body: unknown, retryAfter?: string | null): ProviderError {
  const e = (body as GraphErrorBody | undefined)?.error;
  const code = e?.code === undefined ? `http_${status}` : String(e.code);
  const rateLimited = code in RATE_LIMIT_SECONDS || status === 429;
  return {
    code,
    title: e?.message ?? `provider answered HTTP ${status}`,
    message: e?.error_data?.details,
    retryable: rateLimited || status >= 500,
    retryAfterSeconds: rateLimited ? Number(retryAfter) || (RATE_LIMIT_SECONDS[code] ?? 5) : undefined,
    channelFault: TOKEN_CODES.has(code) || status === 401,
  };
}

export function createGraphClient(settings: GraphSettings) {
  const base = `${settings.apiBase.replace(/\/+$/, '')}/${settings.version}`;
  return {
    async call<T>(method: string, path: string, options: { token?: string; body?: unknown; query?: Record<string, string> } = {}): Promise<Result<T>> {
      const query = options.query ? `?${new URLSearchParams(options.query).toString()}` : '';
      const result = await callJson({
        method,
        url: `${base}/${path.replace(/^\/+/, '')}${query}`,
        headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
        body: options.body,
        timeoutMs: settings.timeoutMs ?? 15_000,
        policy: settings.policy,
      });
      if (!result.ok) return result;
      const { status, json } = result.answer;
      if (status >= 200 && status < 300) return { ok: true, value: json as T };
      return { ok: false, error: graphError(status, json) };
    },
  };
}

export type GraphClient = ReturnType<typeof createGraphClient>;
