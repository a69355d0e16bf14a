/**
 * Inbound provider webhooks: verify the signature over the raw body before anything is parsed,
 * store the delivery with its processing job, answer fast. Routes:
 *   GET  /v1/providers/chatapp_official/webhook[/{channelID}]   verify-token challenge
 *   POST /v1/providers/chatapp_official/webhook[/{channelID}]   X-Hub-Signature-256
 *   POST /v1/providers/chatapp_unofficial/webhook/{channelID}   X-Gateway-Signature
 * The bare official path trusts the installation's app secret (OFFICIAL_APP_SECRET, and the
 * sandbox's while it is on); the per-channel path trusts that channel's own app_secret credential.
 */
import { randomBytes } from 'node:crypto';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Container } from '../../container.ts';
import { connectionOf, findChannel, findChannelByRef, findChannelsByWaba, type ChannelRow } from '../../domain/channels/channels.ts';
import { acceptProviderDelivery } from '../../domain/channels/provider-events.ts';
import { DomainError } from '../../domain/errors.ts';
import { isUuid } from '../../lib/ids.ts';
import { MAX_NESTING_DEPTH, toStorableJson } from '../../lib/text.ts';
import { constantTimeEqual } from '../../lib/crypto.ts';
import { EVENT_ID_HEADER, normalizeGatewayCallback, SIGNATURE_HEADER as GATEWAY_SIGNATURE, verifyGatewaySignature } from '../../providers/gateway/inbound.ts';
import { normalizeOfficialWebhook, SIGNATURE_HEADER as OFFICIAL_SIGNATURE, verifyOfficialSignature } from '../../providers/official/inbound.ts';
import type { App } from '../app.ts';
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

export async function registerProviderWebhookRoutes(app: App, container: Container) {
  const { config, logger } = container;
  const db = container.database.db;

  const installationSecrets = (): string[] =>
    [config.official.appSecret, container.sandbox?.officialAppSecret].filter((s): s is string => Boolean(s));
  const installationVerifyTokens = (): string[] =>
    [config.official.verifyToken, container.sandbox?.officialVerifyToken].filter((s): s is string => Boolean(s));

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
    (channel ? connectionOf(channel, container.sealer).credentials[name] : undefined) || unknownChannelSecret;

  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<ZodTypeProvider>();
    // Raw bodies: signatures are over the exact bytes received.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    const challenge = async (query: Record<string, string | undefined>, tokens: string[]) => {
      const ok = query['hub.mode'] === 'subscribe' && typeof query['hub.verify_token'] === 'string' && tokens.some((t) => constantTimeEqual(t, query['hub.verify_token']!));
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
          description: 'Answers `hub.challenge` as plain text when `hub.verify_token` matches OFFICIAL_VERIFY_TOKEN (or the sandbox\'s); 403 otherwise.',
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
          response: { 200: { description: 'hub.challenge', content: { 'text/plain': { schema: z.string() } } }, ...errorResponses([403, 404]) },
        },
      },
      async (request, reply) => {
        const channel = await channelFromPath(request.params.channelID);
        return reply.type('text/plain').send(await challenge(request.query, [channelCredential(channel, 'verify_token')]));
      },
    );

    /** `only`: the channel of a per-channel path (null when that channel is unknown); undefined on the bare path. */
    const officialPost = async (raw: unknown, signature: string | undefined, secrets: string[], only?: ChannelRow | null) => {
      if (!Buffer.isBuffer(raw) || !verifyOfficialSignature(raw, signature, secrets) || only === null) {
        throw new DomainError('unauthenticated', 'invalid or missing X-Hub-Signature-256');
      }
      const payload = parseJson(raw);
      const targets = new Map<string, ChannelRow>();
      const seen = new Set<string>();
      for (const event of normalizeOfficialWebhook(payload)) {
        if (seen.has(`${event.kind === 'template.status'}:${event.ref}`)) continue;
        seen.add(`${event.kind === 'template.status'}:${event.ref}`);
        const found = only
          ? [only]
          : event.kind === 'template.status'
            ? await findChannelsByWaba(db, event.ref)
            : [await findChannelByRef(db, 'chatapp_official', event.ref)].filter((c): c is ChannelRow => c !== undefined);
        if (found.length === 0) logger.warn({ ref: event.ref, kind: event.kind }, 'provider webhook for an unknown number');
        for (const channel of found) targets.set(channel.id, channel);
      }
      for (const channel of targets.values()) await acceptProviderDelivery({ db, queue: container.queue, clock: container.clock }, channel, payload, undefined);
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
            'The provider POSTs message, status and template events here. `X-Hub-Signature-256` (HMAC-SHA256 of the raw body with the app secret) is checked before the body is parsed; 401 when it does not match. Answers 200 once the delivery is stored.',
          security: [],
          response: { 200: ACK, ...errorResponses([400, 401]) },
        },
      },
      async (request) => officialPost(request.body, header(request.headers[OFFICIAL_SIGNATURE]), installationSecrets()),
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
        return officialPost(request.body, header(request.headers[OFFICIAL_SIGNATURE]), [channelCredential(channel, 'app_secret')], channel ?? null);
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
        const secret = channelCredential(channel, 'callback_secret');
        const raw = request.body;
        if (!channel || !Buffer.isBuffer(raw) || !verifyGatewaySignature(raw, header(request.headers[GATEWAY_SIGNATURE]), secret)) {
          throw new DomainError('unauthenticated', 'invalid or missing X-Gateway-Signature');
        }
        const payload = parseJson(raw);
        if (normalizeGatewayCallback(payload).some((e) => e.ref !== channel.providerRef)) {
          throw new DomainError('invalid', 'callback is for another session');
        }
        await acceptProviderDelivery({ db, queue: container.queue, clock: container.clock }, channel, payload, header(request.headers[EVENT_ID_HEADER]));
        return { received: true };
      },
    );
  });
}
