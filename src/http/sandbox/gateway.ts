/** The sandbox gateway under /sandbox/gateway (docs/gateway-protocol.md), API-key checked per session. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Executor } from '../../db/client.ts';
import type { AccountRow } from '../../sandbox/context.ts';
import type { GatewayResult } from '../../sandbox/errors.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { gateway } from '../../sandbox/errors.ts';
import { SAMPLE_PNG_BASE64 } from '../../sandbox/media.ts';
import { sendWithFaults } from './faults.ts';
import { answerGateway, bearerToken, gatewayFaults, sendGatewayError } from './replies.ts';

type SessionParams = { session: string } & Record<string, string>;

const ROUTE = { config: { auth: { public: true as const } }, schema: { hide: true } };

export async function registerGatewayRoutes(scope: FastifyInstance, sandbox: Sandbox, db: Executor) {
  const api = sandbox.gateway;
  gatewayFaults(scope);
  scope.setNotFoundHandler((request, reply) =>
    sendGatewayError(reply, {
      status: 404,
      code: 'not_found',
      message: `no route ${request.method} ${request.url.split('?')[0]}`,
      retryable: false,
    }),
  );

  /** Checks the API key against the session in the path, then runs `fn` with the session. */
  const authed =
    (fn: (account: AccountRow, params: SessionParams, request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const params = request.params as SessionParams;
      const account = await api.authenticate(db, params.session, bearerToken(request));
      if (!account.ok) return sendGatewayError(reply, account.error);
      return fn(account.value, params, request, reply);
    };
  const answer = (reply: FastifyReply, result: GatewayResult<unknown>) => answerGateway(reply, result);

  scope.post('/scan', ROUTE, async (request, reply) => answer(reply, await api.scan(db, request.body)));
  scope.post('/link', ROUTE, async (request, reply) => answer(reply, await api.link(db, request.body)));

  scope.put(
    '/sessions/:session',
    ROUTE,
    authed(async (account, _p, request, reply) => answer(reply, await api.configure(db, account, request.body))),
  );
  scope.get(
    '/sessions/:session',
    ROUTE,
    authed(async (account, _p, _r, reply) => reply.send(api.describe(account))),
  );
  scope.post(
    '/sessions/:session/start',
    ROUTE,
    authed(async (account, _p, _r, reply) => answer(reply, await api.start(db, account))),
  );
  scope.get(
    '/sessions/:session/qr',
    ROUTE,
    authed(async (account, _p, _r, reply) => answer(reply, await api.qr(db, account))),
  );
  scope.post(
    '/sessions/:session/pairing-code',
    ROUTE,
    authed(async (account, _p, request, reply) => answer(reply, await api.pairingCode(db, account, request.body))),
  );
  scope.post(
    '/sessions/:session/logout',
    ROUTE,
    authed(async (account, _p, _r, reply) => answer(reply, await api.logout(db, account))),
  );
  const send = (triedNew: boolean) =>
    authed(async (account, _p, request, reply) =>
      sendWithFaults(sandbox, account.id, request, reply, {
        official: false,
        refuse: (fault) => sendGatewayError(reply, fault === 'error' ? gateway.internal() : gateway.rateLimited()),
        process: () => api.send(db, account, request.body, { triedNew }),
        answer: (result) =>
          result.ok ? reply.code(result.value.created ? 201 : 200).send({ id: result.value.id }) : sendGatewayError(reply, result.error),
      }),
    );
  const [sendAfterTry, sendOnly] = [send(true), send(false)];
  scope.post('/sessions/:session/messages', ROUTE, async (request, reply) => {
    // The common send, while no fault is switched on: its insert checks the session and the key (one
    // statement for the sends of the moment, no lookup first); anything else takes the full path.
    const apiKey = bearerToken(request);
    if (apiKey && sandbox.faults.idle()) {
      const session = (request.params as SessionParams).session;
      const id = await sandbox.inFlight.track(session, () => api.sendNew(db, session, apiKey, request.body));
      if (id) return reply.code(201).send({ id });
      return sendAfterTry(request, reply);
    }
    return sendOnly(request, reply);
  });
  scope.get(
    '/sessions/:session/idempotency-keys/:key',
    ROUTE,
    authed(async (account, params, _r, reply) => answer(reply, await api.findByKey(db, account, params.key!))),
  );
  scope.get(
    '/sessions/:session/contacts/:phone',
    ROUTE,
    authed(async (_a, params, _r, reply) => answer(reply, api.lookupContact(params.phone!))),
  );
  // Chats (docs/gateway-protocol.md, "Chats").
  const chats = api.chats;
  scope.patch(
    '/sessions/:session/chats/:chat',
    ROUTE,
    authed(async (account, params, request, reply) => answer(reply, await chats.modify(db, account, params.chat!, request.body))),
  );
  scope.delete(
    '/sessions/:session/chats/:chat',
    ROUTE,
    authed(async (account, params, _r, reply) => answer(reply, await chats.remove(db, account, params.chat!))),
  );
  scope.post(
    '/sessions/:session/chats/:chat/history',
    ROUTE,
    authed(async (account, params, request, reply) => answer(reply, await chats.history(db, account, params.chat!, request.body))),
  );
  for (const action of ['star', 'pin'] as const)
    scope.post(
      `/sessions/:session/chats/:chat/messages/:id/${action}`,
      ROUTE,
      authed(async (account, params, request, reply) =>
        answer(reply, await chats.message(db, account, params.chat!, params.id!, action, request.body)),
      ),
    );
  // Groups, presence and settings (docs/gateway-protocol.md, "Groups").
  const groups = api.groups;
  scope.put(
    '/sessions/:session/settings',
    ROUTE,
    authed(async (account, _p, request, reply) => answer(reply, await groups.settings(db, account, request.body))),
  );
  scope.post(
    '/sessions/:session/presence/subscribe',
    ROUTE,
    authed(async (account, _p, request, reply) => answer(reply, await groups.subscribePresence(db, account, request.body))),
  );
  scope.get(
    '/sessions/:session/groups',
    ROUTE,
    authed(async (account, _p, _r, reply) => answer(reply, await groups.list(db, account))),
  );
  scope.post(
    '/sessions/:session/groups',
    ROUTE,
    authed(async (account, _p, request, reply) => answerGateway(reply, await groups.create(db, account, request.body), 201)),
  );
  scope.post(
    '/sessions/:session/groups/join',
    ROUTE,
    authed(async (account, _p, request, reply) => answer(reply, await groups.join(db, account, request.body))),
  );
  scope.get(
    '/sessions/:session/groups/:group',
    ROUTE,
    authed(async (account, params, _r, reply) => answer(reply, await groups.get(db, account, params.group!))),
  );
  scope.patch(
    '/sessions/:session/groups/:group',
    ROUTE,
    authed(async (account, params, request, reply) => answer(reply, await groups.update(db, account, params.group!, request.body))),
  );
  scope.put(
    '/sessions/:session/groups/:group/picture',
    ROUTE,
    authed(async (account, params, request, reply) =>
      answer(reply, await groups.picture(db, account, params.group!, (request.body as { url?: unknown } | undefined)?.url ?? '')),
    ),
  );
  scope.delete(
    '/sessions/:session/groups/:group/picture',
    ROUTE,
    authed(async (account, params, _r, reply) => answer(reply, await groups.picture(db, account, params.group!, null))),
  );
  scope.post(
    '/sessions/:session/groups/:group/participants',
    ROUTE,
    authed(async (account, params, request, reply) => answer(reply, await groups.participants(db, account, params.group!, request.body))),
  );
  scope.get(
    '/sessions/:session/groups/:group/invite',
    ROUTE,
    authed(async (account, params, _r, reply) => answer(reply, await groups.invite(db, account, params.group!, false))),
  );
  scope.post(
    '/sessions/:session/groups/:group/invite/revoke',
    ROUTE,
    authed(async (account, params, _r, reply) => answer(reply, await groups.invite(db, account, params.group!, true))),
  );
  scope.post(
    '/sessions/:session/groups/:group/leave',
    ROUTE,
    authed(async (account, params, _r, reply) => answer(reply, await groups.leave(db, account, params.group!))),
  );
  // Business labels and status posts (docs/gateway-protocol.md, "Labels" and "Status").
  const labels = api.labels;
  scope.get(
    '/sessions/:session/labels',
    ROUTE,
    authed(async (account, _p, _r, reply) => answer(reply, await labels.list(db, account))),
  );
  scope.put(
    '/sessions/:session/labels/:label',
    ROUTE,
    authed(async (account, params, request, reply) => answer(reply, await labels.save(db, account, params.label!, request.body))),
  );
  scope.delete(
    '/sessions/:session/labels/:label',
    ROUTE,
    authed(async (account, params, _r, reply) => answer(reply, await labels.remove(db, account, params.label!))),
  );
  scope.post(
    '/sessions/:session/labels/:label/chats',
    ROUTE,
    authed(async (account, params, request, reply) => answer(reply, await labels.associate(db, account, params.label!, request.body))),
  );
  scope.post(
    '/sessions/:session/status',
    ROUTE,
    authed(async (account, _p, request, reply) => answerGateway(reply, await labels.postStatus(db, account, request.body), 201)),
  );
  // Contacts and profiles, calls (sandbox/gateway/profiles.ts, calls.ts).
  scope.get(
    '/sessions/:session/profiles/:phone',
    ROUTE,
    authed(async (account, params, _r, reply) => answer(reply, api.numberProfile(account, params.phone!))),
  );
  scope.get(
    '/sessions/:session/profile',
    ROUTE,
    authed(async (account, _p, _r, reply) => answer(reply, await api.ownProfile(db, account))),
  );
  scope.patch(
    '/sessions/:session/profile',
    ROUTE,
    authed(async (account, _p, request, reply) => answer(reply, await api.updateProfile(db, account, request.body))),
  );
  scope.put(
    '/sessions/:session/profile/picture',
    { ...ROUTE, bodyLimit: 8 * 1024 * 1024 },
    authed(async (account, _p, request, reply) => answer(reply, await api.setPicture(db, account, request.body))),
  );
  scope.delete(
    '/sessions/:session/profile/picture',
    ROUTE,
    authed(async (account, _p, _r, reply) => answer(reply, await api.removePicture(db, account))),
  );
  scope.get(
    '/sessions/:session/blocklist',
    ROUTE,
    authed(async (account, _p, _r, reply) => answer(reply, await api.blocklist(db, account))),
  );
  scope.put(
    '/sessions/:session/blocklist/:phone',
    ROUTE,
    authed(async (account, params, _r, reply) => answer(reply, await api.setBlocked(db, account, params.phone!, true))),
  );
  scope.delete(
    '/sessions/:session/blocklist/:phone',
    ROUTE,
    authed(async (account, params, _r, reply) => answer(reply, await api.setBlocked(db, account, params.phone!, false))),
  );
  scope.get(
    '/sessions/:session/privacy',
    ROUTE,
    authed(async (account, _p, _r, reply) => answer(reply, await api.privacy(db, account))),
  );
  scope.patch(
    '/sessions/:session/privacy',
    ROUTE,
    authed(async (account, _p, request, reply) => answer(reply, await api.updatePrivacy(db, account, request.body))),
  );
  scope.get(
    '/sessions/:session/lids/pn/:phone',
    ROUTE,
    authed(async (account, params, _r, reply) => answer(reply, api.lidOfNumber(account, params.phone!))),
  );
  scope.get(
    '/sessions/:session/lids/:lid',
    ROUTE,
    authed(async (account, params, _r, reply) => answer(reply, api.numberOfLid(account, params.lid!))),
  );
  scope.post(
    '/sessions/:session/calls/:callId/reject',
    ROUTE,
    authed(async (account, params, request, reply) => answer(reply, await api.rejectCall(db, account, params.callId!, request.body))),
  );
  // The pictures of other numbers' profiles (profiles.ts numberProfile): the sample image, for anyone.
  scope.get('/pictures/:name', ROUTE, async (_request, reply) =>
    reply.code(200).type('image/png').header('cache-control', 'public, max-age=3600').send(Buffer.from(SAMPLE_PNG_BASE64, 'base64')),
  );
  scope.get(
    '/sessions/:session/media/:mediaId',
    ROUTE,
    authed(async (account, params, _r, reply) => answer(reply, await api.media(db, account, params.mediaId!))),
  );
}
