/**
 * Inbound provider webhooks: the platform's inbound half verifies the signature over the raw body
 * before anything is parsed and normalizes the delivery once; its events are stored for their channels
 * with their processing jobs (domain/inbound/accept.ts), and the provider is answered at once. Routes:
 *   GET  /v1/providers/chatapp_official/webhook[/{channelID}]   verify-token challenge
 *   POST /v1/providers/chatapp_official/webhook[/{channelID}]   X-Hub-Signature-256
 *   POST /v1/providers/chatapp_unofficial/webhook/{channelID}   X-Gateway-Signature
 * The bare official path trusts the installation's app secret (OFFICIAL_APP_SECRET, and the
 * sandbox's while it is on); the per-channel path trusts that channel's own app_secret credential.
 */
import { randomBytes } from 'node:crypto';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import type { Queue } from '../../jobs/queue.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Sealer } from '../../lib/crypto.ts';
import type { Logger } from '../../lib/logger.ts';
import type { ProviderRegistry } from '../../providers/registry.ts';
import { connectionOf, findChannel, type ChannelRow } from '../../domain/channels/channels.ts';
import { acceptInboundDelivery } from '../../domain/inbound/accept.ts';
import { applyStatuses } from '../../domain/messages/provider-events.ts';
import { DomainError } from '../../domain/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { MAX_NESTING_DEPTH, toStorableJson } from '../../lib/text.ts';
import { constantTimeEqual } from '../../lib/crypto.ts';
import type { Platform } from '../../providers/provider.ts';
import type { App } from '../types.ts';
import { errorResponses } from '../errors.ts';

const ACK = z.object({ received: z.boolean() });

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The delivery as an object; text the database cannot store (NUL, a lone surrogate) becomes U+FFFD, so the delivery is kept. */
function parseJson(raw: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw new DomainError('invalid', 'webhook body is not a JSON object');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new DomainError('invalid', 'webhook body is not a JSON object');
  const storable = toStorableJson(value);
  if (storable === undefined) throw new DomainError('invalid', `webhook body nests deeper than ${MAX_NESTING_DEPTH} levels`);
  return storable as Record<string, unknown>;
}

/** What the provider webhook routes use. */
export type ProviderWebhookDeps = {
  db: Db;
  queue: Queue;
  clock: Clock;
  logger: Logger;
  sealer: Sealer;
  providers: ProviderRegistry;
  /** The installation's app secrets and verify tokens (the configured ones, the sandbox's while it is on). */
  installationSecrets(): string[];
  installationVerifyTokens(): string[];
};

export async function registerProviderWebhookRoutes(app: App, deps: ProviderWebhookDeps) {
  const { db, logger, installationSecrets, installationVerifyTokens } = deps;
  const acceptDeps = { db, queue: deps.queue, clock: deps.clock, logger, statuses: applyStatuses };

  /**
   * The channel a per-channel path names, or undefined. These routes are public, so an unknown id is
   * never told apart from a real one: it is checked against a secret nobody holds and refused exactly
   * as a real channel's bad signature or verify token is. A database error throws (503: the provider
   * retries), never passes for an unknown channel (the delivery would be refused and dropped).
   */
  async function channelFromPath(channelId: string): Promise<ChannelRow | undefined> {
    if (!isUuid(channelId)) return undefined;
    return findChannel(db, channelId);
  }
  const unknownChannelSecret = randomBytes(32).toString('base64url');
  const channelCredential = (channel: ChannelRow | undefined, name: 'verify_token' | 'app_secret' | 'callback_secret'): string =>
    (channel ? connectionOf(channel, deps.sealer).credentials[name] : undefined) || unknownChannelSecret;

  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<ZodTypeProvider>();
    // Raw bodies: signatures are over the exact bytes received.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    const challenge = async (query: Record<string, string | undefined>, tokens: string[]) => {
      const ok =
        query['hub.mode'] === 'subscribe' &&
        typeof query['hub.verify_token'] === 'string' &&
        tokens.some((t) => constantTimeEqual(t, query['hub.verify_token']!));
      if (!ok) throw new DomainError('forbidden', 'verify token does not match');
      return String(query['hub.challenge'] ?? '');
    };

    const ChallengeQuery = z.object({
      'hub.mode': z.string().optional(),
      'hub.verify_token': z.string().optional(),
      'hub.challenge': z.string().optional(),
    });

    scope.get(
      '/v1/providers/chatapp_official/webhook',
      {
        config: { auth: { public: true } },
        schema: {
          tags: ['provider webhooks'],
          summary: 'Official provider: webhook verification challenge',
          description:
            "Answers `hub.challenge` as plain text when `hub.verify_token` matches OFFICIAL_VERIFY_TOKEN (or the sandbox's); 403 otherwise.",
          security: [],
          querystring: ChallengeQuery,
          response: { 200: { description: 'hub.challenge', content: { 'text/plain': { schema: z.string() } } }, ...errorResponses([403]) },
        },
      },
      async (request, reply) => reply.type('text/plain').send(await challenge(request.query, installationVerifyTokens())),
    );

    scope.get(
      '/v1/providers/chatapp_official/webhook/:channelID',
      {
        config: { auth: { public: true } },
        schema: {
          tags: ['provider webhooks'],
          summary: 'Official provider: webhook verification challenge for one channel',
          description: "Like the bare path, with the channel's own `verify_token` setting.",
          security: [],
          params: z.object({ channelID: z.string() }),
          querystring: ChallengeQuery,
          response: {
            200: { description: 'hub.challenge', content: { 'text/plain': { schema: z.string() } } },
            ...errorResponses([403, 404]),
          },
        },
      },
      async (request, reply) => {
        const channel = await channelFromPath(request.params.channelID);
        return reply.type('text/plain').send(await challenge(request.query, [channelCredential(channel, 'verify_token')]));
      },
    );

    /**
     * Verifies the delivery with the platform's inbound half (signature over the raw bytes, before
     * anything is parsed), normalizes it once and stores its events for their channels. `only`: the
     * channel of a per-channel path (null when that channel is unknown: refused like a bad signature).
     */
    const receive = async (
      platform: Platform,
      request: { body: unknown; headers: Record<string, string | string[] | undefined> },
      secrets: string[],
      only?: ChannelRow | null,
    ) => {
      const inbound = deps.providers.get(platform).inbound;
      const raw = request.body;
      if (!Buffer.isBuffer(raw) || !inbound.verify(raw, header(request.headers[inbound.signatureHeader]), secrets) || only === null) {
        throw new DomainError('unauthenticated', `invalid or missing ${inbound.signatureHeader}`);
      }
      const events = inbound.normalize(parseJson(raw));
      const deliveryId = inbound.deliveryIdHeader ? header(request.headers[inbound.deliveryIdHeader]) : undefined;
      await acceptInboundDelivery(acceptDeps, {
        platform,
        events,
        ...(only ? { channel: only } : {}),
        ...(deliveryId ? { deliveryId } : {}),
      });
      return { received: true };
    };

    scope.post(
      '/v1/providers/chatapp_official/webhook',
      {
        config: { auth: { public: true } },
        schema: {
          tags: ['provider webhooks'],
          summary: 'Official provider: event webhook',
          description:
            'The provider POSTs message, status, template, account and number-quality events here. `X-Hub-Signature-256` (HMAC-SHA256 of the raw body with the app secret) is checked before the body is parsed; 401 when it does not match. Answers 200 once the delivery is stored.',
          security: [],
          response: { 200: ACK, ...errorResponses([400, 401]) },
        },
      },
      async (request) => receive('chatapp_official', request, installationSecrets()),
    );

    scope.post(
      '/v1/providers/chatapp_official/webhook/:channelID',
      {
        config: { auth: { public: true } },
        schema: {
          tags: ['provider webhooks'],
          summary: 'Official provider: event webhook for one channel',
          description: "For a channel on its own provider app: checked with the channel's `app_secret` credential.",
          security: [],
          params: z.object({ channelID: z.string() }),
          response: { 200: ACK, ...errorResponses([400, 401, 404]) },
        },
      },
      async (request) => {
        const channel = await channelFromPath(request.params.channelID);
        return receive('chatapp_official', request, [channelCredential(channel, 'app_secret')], channel ?? null);
      },
    );

    scope.post(
      '/v1/providers/chatapp_unofficial/webhook/:channelID',
      {
        config: { auth: { public: true } },
        schema: {
          tags: ['provider webhooks'],
          summary: 'Gateway: callback',
          description:
            "The paired gateway POSTs session, message and status events here (docs/gateway-protocol.md). `X-Gateway-Signature` (HMAC-SHA256 of the raw body with the channel's callback secret) is checked before the body is parsed; retries with the same `X-Gateway-Event-Id` are stored once.",
          security: [],
          params: z.object({ channelID: z.string() }),
          response: { 200: ACK, ...errorResponses([400, 401, 404]) },
        },
      },
      async (request) => {
        const channel = await channelFromPath(request.params.channelID);
        return receive('chatapp_unofficial', request, [channelCredential(channel, 'callback_secret')], channel ?? null);
      },
    );
  });
}
