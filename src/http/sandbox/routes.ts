/**
 * The built-in sandbox provider's HTTP side, under /sandbox: the official provider's API, the
 * gateway protocol, and the outside world's doors (a customer writing in, media downloads). Public
 * to Parley's own auth (each protocol checks its own bearer token and answers in its own shapes),
 * except /inbound, /echo, /edit, /delete and /template-event, which act on a channel of the caller's
 * organization.
 */
import type { FastifyInstance } from 'fastify';
import type { Container } from '../../container.ts';
import { actorOf } from '../auth/actor.ts';
import type { App } from '../types.ts';
import { Readable } from 'node:stream';
import { downloadWithFaults, registerFaultRoutes } from './faults.ts';
import { registerGatewayRoutes } from './gateway.ts';
import { registerOfficialRoutes } from './official.ts';
import { answerGateway, gatewayFaults, sendGatewayError, UNSTORABLE_BODY } from './replies.ts';
import { findUnstorableInput, toPointer } from '../../lib/text.ts';

const ROUTE = { config: { auth: { public: true as const } }, schema: { hide: true } };
const INBOUND_ROUTE = { config: { auth: { permission: 'messages:send' as const } }, schema: { hide: true } };
const TEMPLATE_ROUTE = { config: { auth: { permission: 'templates:write' as const } }, schema: { hide: true } };

/**
 * JSON bodies as usual, but an empty body (POST .../start, .../subscribed_apps) is no body rather
 * than an error, and a body with text the database cannot store (NUL, a lone surrogate) or nested
 * too deep is a 400, as on Parley's own routes.
 */
function lenientJson(scope: FastifyInstance) {
  const parse = scope.getDefaultJsonParser('error', 'error');
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
    return parse(request, body as string, (err, value) => {
      if (err) return done(err, undefined);
      const bad = findUnstorableInput(value);
      if (bad)
        return done(
          Object.assign(new Error(`${toPointer(bad.path)} ${bad.message}`), { statusCode: 400, code: UNSTORABLE_BODY }),
          undefined,
        );
      return done(null, value);
    });
  });
}

export async function registerSandboxRoutes(app: App, container: Container) {
  const sandbox = container.sandbox;
  if (!sandbox) return;
  const db = container.database.db;

  await app.register(
    async (scope: FastifyInstance) => {
      lenientJson(scope);
      gatewayFaults(scope);
      scope.setNotFoundHandler((request, reply) =>
        sendGatewayError(reply, {
          status: 404,
          code: 'not_found',
          message: `no route ${request.method} ${request.url.split('?')[0]}`,
          retryable: false,
        }),
      );

      // Playing a customer needs a credential of the channel's organization: a channel of another one
      // answers as an unknown id, so the door tells nobody which channels exist.
      scope.post('/inbound', INBOUND_ROUTE, async (request, reply) =>
        answerGateway(reply, await sandbox.inbound.deliver(db, actorOf(request).organizationId, request.body), 202),
      );

      // The business's phone and the senders (gateway channels): an echo, an edit, a deletion.
      scope.post('/echo', INBOUND_ROUTE, async (request, reply) =>
        answerGateway(reply, await sandbox.phone.echo(db, actorOf(request).organizationId, request.body), 202),
      );
      scope.post('/edit', INBOUND_ROUTE, async (request, reply) =>
        answerGateway(reply, await sandbox.phone.edit(db, actorOf(request).organizationId, request.body), 202),
      );
      // A group someone else made with the channel's number in it (or one to join by its invite code).
      scope.post('/groups', INBOUND_ROUTE, async (request, reply) =>
        answerGateway(reply, await sandbox.phone.group(db, actorOf(request).organizationId, request.body), 201),
      );
      // The business's phone makes, changes or deletes a label, or labels a chat (gateway channels).
      scope.post('/labels', INBOUND_ROUTE, async (request, reply) =>
        answerGateway(reply, await sandbox.gateway.labels.phone(db, actorOf(request).organizationId, request.body), 202),
      );
      // The phone changes a chat itself: archived, pinned, muted, read or unread, deleted (a chat.update callback).
      scope.post('/chat', INBOUND_ROUTE, async (request, reply) =>
        answerGateway(reply, await sandbox.phone.chat(db, actorOf(request).organizationId, request.body), 202),
      );
      scope.post('/delete', INBOUND_ROUTE, async (request, reply) =>
        answerGateway(reply, await sandbox.phone.remove(db, actorOf(request).organizationId, request.body), 202),
      );

      // A customer calls a gateway channel: it rings, then ends (sandbox/calls.ts).
      scope.post('/call', INBOUND_ROUTE, async (request, reply) =>
        answerGateway(reply, await sandbox.calls.ring(db, actorOf(request).organizationId, request.body), 202),
      );
      scope.post('/call/end', INBOUND_ROUTE, async (request, reply) =>
        answerGateway(reply, await sandbox.calls.end(db, actorOf(request).organizationId, request.body), 202),
      );

      // The provider's later word on a template of an official channel: flagged, paused, reinstated, archived, ...
      scope.post('/template-event', TEMPLATE_ROUTE, async (request, reply) =>
        answerGateway(reply, await sandbox.templateEvents.report(db, actorOf(request).organizationId, request.body), 202),
      );

      scope.get('/media/:id', ROUTE, async (request, reply) => {
        const { id } = request.params as { id: string };
        const query = request.query as Record<string, string | undefined>;
        const media = await sandbox.downloadMedia(db, id, query.expires, query.signature);
        if (!media)
          return sendGatewayError(reply, {
            status: 404,
            code: 'not_found',
            message: 'media not found, or its URL lapsed',
            retryable: false,
          });
        const serve = () =>
          reply
            .code(200)
            .type(media.mimeType)
            .header('content-length', String(media.size))
            .header('cache-control', 'private, max-age=300')
            .send(Readable.from(media.body, { objectMode: false }));
        if (!container.config.sandbox.faultInjection) return serve();
        return downloadWithFaults(sandbox, media.account, request, reply, serve);
      });

      if (container.config.sandbox.faultInjection) await registerFaultRoutes(scope, sandbox);
      await scope.register(async (official: FastifyInstance) => registerOfficialRoutes(official, sandbox, db), { prefix: '/official' });
      await scope.register(async (gateway: FastifyInstance) => registerGatewayRoutes(gateway, sandbox, db), { prefix: '/gateway' });
    },
    { prefix: '/sandbox' },
  );
}
