/**
 * The business cloud API over HTTP (Graph style): `{api_base}/{version}/{path}` with a bearer
 * token, JSON in and out, errors classified by errors.ts. Nothing else.
 */
import type { FormData } from 'undici';
import type { TargetPolicy } from '../../lib/safe-fetch.ts';
import { callJson } from '../http.ts';
import type { Result } from '../provider.ts';
import { classifyGraphError } from './errors.ts';

export type GraphSettings = { apiBase: string; version: string; policy: TargetPolicy; timeoutMs?: number };

export function createGraphClient(settings: GraphSettings) {
  const base = `${settings.apiBase.replace(/\/+$/, '')}/${settings.version}`;
  return {
    async call<T>(
      method: string,
      path: string,
      options: { token?: string; body?: unknown; form?: FormData; query?: Record<string, string>; timeoutMs?: number } = {},
    ): Promise<Result<T>> {
      const query = options.query ? `?${new URLSearchParams(options.query).toString()}` : '';
      const result = await callJson({
        method,
        url: `${base}/${path.replace(/^\/+/, '')}${query}`,
        headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
        body: options.body,
        ...(options.form ? { form: options.form } : {}),
        timeoutMs: options.timeoutMs ?? settings.timeoutMs ?? 15_000,
        policy: settings.policy,
      });
      if (!result.ok) return result;
      const { status, json, retryAfter } = result.answer;
      if (status >= 200 && status < 300) return { ok: true, value: json as T };
      return { ok: false, error: classifyGraphError(status, json, retryAfter) };
    },
  };
}

export type GraphClient = ReturnType<typeof createGraphClient>;
