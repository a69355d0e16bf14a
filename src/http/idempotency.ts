/**
 * Idempotency-Key on every authenticated POST and PATCH, so a client may retry any of them safely (the
 * SDK adds a key to each POST and retries on 429, 503 and lost connections). The same key, under the
 * same credential, within 24 hours:
 * - with the same request (method, route, path, query and body in any key order; a streamed body, as
 *   an import's or an upload's, by its length and type) answers the first
 *   request's status and body again, with `Idempotent-Replayed: true`, and does nothing again;
 * - with another request is a 409; while the first request still runs, a 409 with `Retry-After: 1`.
 * An answer of 5xx or 429 is not kept: the key may be used again, and the request runs again. A route
 * whose answer holds a secret shown once (`idempotency: 'no-replay'`: a new API key, a client secret) keeps
 * only that it succeeded: a retry is a 409 saying so, never the secret (nothing secret is stored). A
 * route that keeps keys its own way (`idempotency: 'own'`: POST /v1/messages, in the same transaction
 * as the message) is left to it. Routes open without a credential (login, the OAuth token,
 * introspection and revocation endpoints) ignore the header. A request abandoned midway (its process died) holds its key for IN_FLIGHT_LEASE_MS, then a
 * retry runs it again: at most once per lease, not exactly once, for the routes that are not 'own'.
 */
import { sql } from 'drizzle-orm';
import type { Container } from '../container.ts';
import { queryRows } from '../db/client.ts';
import type { Actor } from '../domain/actor.ts';
import { DomainError, invalid } from '../domain/errors.ts';
import { IDEMPOTENCY_HOURS } from '../domain/messages/accept.ts';
import { IDEMPOTENCY_KEY, requestHash } from './idempotency-key.ts';
import type { App } from './types.ts';

/** How long a first request that has not answered holds its key against retries. */
export const IN_FLIGHT_LEASE_MS = 60_000;
/** Answers larger than this are not kept for replay (a retry is then a 409 saying the request succeeded). */
const MAX_REPLAY_BYTES = 1024 * 1024;

export type IdempotencyMode = 'own' | 'no-replay';

type Claim = { organizationId: string; scope: string; key: string; startedAt: Date; replay: boolean };

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim: Claim | undefined;
  }
}

/** Who the key belongs to: keys of one credential never answer another's requests. */
function scopeOf(actor: Actor): string {
  switch (actor.kind) {
    case 'api_key':
      return `api_key:${actor.apiKeyId}`;
    case 'user':
      return `user:${actor.userId}`;
    case 'oauth':
      // Not the token: a retry after a refresh carries a new one.
      return `oauth:${actor.clientId}:${actor.userId}`;
    case 'system':
      return 'system';
  }
}

type Stored = {
  request_hash: string;
  state: 'started' | 'completed';
  status_code: number | null;
  content_type: string | null;
  body: string | null;
};

export function registerIdempotency(app: App, container: Pick<Container, 'database' | 'clock'>): void {
  const { db } = container.database;
  app.decorateRequest('idempotencyClaim', undefined);

  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST' && request.method !== 'PATCH') return;
    const header = request.headers['idempotency-key'];
    const mode = request.routeOptions.config.idempotency;
    const auth = request.routeOptions.config.auth;
    // Routes open without a credential (login, the OAuth protocol's endpoints) are not the caller's to replay.
    if (header === undefined || mode === 'own' || !request.actor || (auth && ('public' in auth || 'optional' in auth))) return;
    if (typeof header !== 'string' || !IDEMPOTENCY_KEY.test(header)) {
      throw invalid('Idempotency-Key must be 1 to 255 of A-Za-z0-9._:-', [
        { pointer: '/idempotency-key', message: 'must be 1 to 255 of A-Za-z0-9._:-', location: 'headers' },
      ]);
    }
    const actor = request.actor;
    const now = container.clock.now();
    const claim: Claim = {
      organizationId: actor.organizationId,
      scope: scopeOf(actor),
      key: header,
      startedAt: now,
      replay: mode !== 'no-replay',
    };
    // A body the route reads as a stream (an import, an upload) is told by its length and type: reading it here would consume it.
    const streamed = typeof (request.body as { pipe?: unknown } | undefined)?.pipe === 'function';
    const hash = requestHash({
      method: request.method,
      route: request.routeOptions.url,
      params: request.params,
      query: request.query,
      body: streamed ? { length: request.headers['content-length'] ?? null, type: request.headers['content-type'] ?? null } : request.body,
    });
    const expired = new Date(now.getTime() - IDEMPOTENCY_HOURS * 3_600_000);
    const abandoned = new Date(now.getTime() - IN_FLIGHT_LEASE_MS);
    // Ours when new, when the key's 24 hours are over, or when the same request left it unanswered past the lease.
    const taken = await queryRows<{ taken: number }>(
      db,
      sql`insert into idempotent_requests (organization_id, scope, key, request_hash, state, started_at, created_at)
          values (${claim.organizationId}, ${claim.scope}, ${claim.key}, ${hash}, 'started', ${now}, ${now})
          on conflict (organization_id, scope, key) do update
             set request_hash = excluded.request_hash, state = 'started', status_code = null, content_type = null, body = null,
                 started_at = excluded.started_at, created_at = excluded.created_at
           where idempotent_requests.created_at < ${expired}
              or (idempotent_requests.state = 'started' and idempotent_requests.started_at < ${abandoned}
                  and idempotent_requests.request_hash = excluded.request_hash)
          returning 1 as taken`,
    );
    if (taken.length > 0) {
      request.idempotencyClaim = claim;
      return;
    }
    const [stored] = await queryRows<Stored>(
      db,
      sql`select request_hash, state, status_code, content_type, body from idempotent_requests
           where organization_id = ${claim.organizationId} and scope = ${claim.scope} and key = ${claim.key}`,
    );
    // Gone between the two statements (its first request failed and let it go): run this one without a claim.
    if (!stored) return;
    if (stored.request_hash !== hash) {
      throw new DomainError('conflict', 'Idempotency-Key was already used with a different request (method, path or body)');
    }
    if (stored.state === 'started') {
      void reply.header('retry-after', '1');
      throw new DomainError('conflict', 'a request with this Idempotency-Key is still running; retry in a moment');
    }
    if (stored.body === null) {
      throw new DomainError(
        'conflict',
        `the request with this Idempotency-Key already succeeded (${stored.status_code}); its answer is not shown again (it held a secret shown once, or was too large): read the record instead`,
      );
    }
    void reply.code(stored.status_code!).header('idempotent-replayed', 'true');
    if (stored.content_type) void reply.header('content-type', stored.content_type);
    return reply.send(stored.body);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotencyClaim;
    if (!claim) return payload;
    request.idempotencyClaim = undefined;
    const where = sql`organization_id = ${claim.organizationId} and scope = ${claim.scope} and key = ${claim.key} and started_at = ${claim.startedAt}`;
    const status = reply.statusCode;
    if (status >= 500 || status === 429) {
      // Not an answer to keep: the request may be tried again under the same key.
      await db.execute(sql`delete from idempotent_requests where ${where}`);
      return payload;
    }
    const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
    const body = claim.replay && text !== undefined && Buffer.byteLength(text) <= MAX_REPLAY_BYTES ? text : null;
    const contentType = reply.getHeader('content-type');
    await db.execute(
      sql`update idempotent_requests
             set state = 'completed', status_code = ${status}, body = ${body},
                 content_type = ${typeof contentType === 'string' ? contentType : null}
           where ${where}`,
    );
    return payload;
  });
}
