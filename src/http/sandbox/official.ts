/**
 * The sandbox's business cloud API under /sandbox/official/{version}/... (docs/sandbox.md), with the
 * provider's bearer-token check and native error bodies.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Executor } from '../../db/client.ts';
import { official, type OfficialResult } from '../../sandbox/errors.ts';
import type { AccountRow } from '../../sandbox/context.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { sendWithFaults } from './faults.ts';
import { answerOfficial, bearerToken, officialFaults, sendOfficialError } from './replies.ts';
import { UPLOAD_BODY_MAX, type UploadForm } from '../../sandbox/official/upload-media.ts';
import { MultipartError, readMultipart } from '../multipart.ts';

type Json = Record<string, unknown>;
type IdParams = { version: string; id: string };

const VERSION = /^v\d+\.\d+$/;
const ROUTE = { config: { auth: { public: true as const } }, schema: { hide: true } };

/** An upload's form as the provider reads it, or its refusal of a body that is not one (code 100). */
async function uploadFormOf(request: FastifyRequest): Promise<OfficialResult<UploadForm>> {
  try {
    const form = await readMultipart(request.body, request.headers, UPLOAD_BODY_MAX);
    const field = (name: string) => {
      const value = form.get(name);
      return typeof value === 'string' ? value : undefined;
    };
    const file = form.get('file');
    return {
      ok: true,
      value: {
        messagingProduct: field('messaging_product'),
        type: field('type'),
        ...(file instanceof File ? { file: { bytes: new Uint8Array(await file.arrayBuffer()) } } : {}),
      },
    };
  } catch (err) {
    if (!(err instanceof MultipartError)) throw err;
    return {
      ok: false,
      error: official.invalidParameter(
        err.reason === 'too_large'
          ? `Param file must be at most ${UPLOAD_BODY_MAX} bytes.`
          : 'Param file must be a file upload (multipart/form-data).',
      ),
    };
  }
}

export async function registerOfficialRoutes(scope: FastifyInstance, sandbox: Sandbox, db: Executor) {
  const api = sandbox.official;
  officialFaults(scope);
  // Uploads are read by their route (the provider's multipart form).
  scope.addContentTypeParser('multipart/form-data', (_request, payload, done) => done(null, payload));
  scope.setNotFoundHandler((request, reply) => sendOfficialError(reply, official.unknownPath(request.url.split('?')[0] ?? '/')));

  /** Checks the version and the bearer token, then runs `fn` with the token's account. */
  const authed =
    (fn: (account: AccountRow, params: IdParams, request: FastifyRequest) => Promise<OfficialResult<unknown>> | OfficialResult<unknown>) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const params = request.params as IdParams;
      if (!VERSION.test(params.version)) return sendOfficialError(reply, official.unknownPath(`/${params.version}`));
      const account = await api.authenticate(db, bearerToken(request, true));
      if (!account.ok) return sendOfficialError(reply, account.error);
      return answerOfficial(reply, await fn(account.value, params, request));
    };

  scope.post('/signup', ROUTE, async (request, reply) => answerOfficial(reply, await api.signup(db, request.body)));

  scope.get('/:version/oauth/access_token', ROUTE, async (request, reply) => {
    const { version } = request.params as { version: string };
    if (!VERSION.test(version)) return sendOfficialError(reply, official.unknownPath(`/${version}`));
    return answerOfficial(reply, await api.exchangeCode(db, request.query as Json));
  });

  scope.get('/:version/debug_token', ROUTE, async (request, reply) => {
    const { version } = request.params as { version: string };
    if (!VERSION.test(version)) return sendOfficialError(reply, official.unknownPath(`/${version}`));
    return answerOfficial(reply, await api.debugToken(db, bearerToken(request, true), (request.query as Json).input_token));
  });

  scope.get(
    '/:version/:id',
    ROUTE,
    authed((account, { id }) => api.getObject(db, account, id)),
  );
  scope.post('/:version/:id/messages', ROUTE, async (request, reply) => {
    const params = request.params as IdParams;
    if (!VERSION.test(params.version)) return sendOfficialError(reply, official.unknownPath(`/${params.version}`));
    const account = await api.authenticate(db, bearerToken(request, true));
    if (!account.ok) return sendOfficialError(reply, account.error);
    return sendWithFaults(sandbox, params.id, request, reply, {
      official: true,
      refuse: (fault) => sendOfficialError(reply, fault === 'error' ? official.internal() : official.throughput()),
      process: () => api.send(db, account.value, params.id, request.body),
      answer: (result) => answerOfficial(reply, result),
    });
  });
  scope.post(
    '/:version/:id/media',
    { ...ROUTE, bodyLimit: UPLOAD_BODY_MAX },
    authed(async (account, { id }, request) => {
      const form = await uploadFormOf(request);
      return form.ok ? api.uploadMedia(db, account, id, form.value) : form;
    }),
  );
  scope.post(
    '/:version/:id/register',
    ROUTE,
    authed((account, { id }, request) => api.register(db, account, id, request.body)),
  );
  scope.get(
    '/:version/:id/message_templates',
    ROUTE,
    authed((account, { id }, request) => api.listTemplates(db, account, id, request.query as Json)),
  );
  scope.post(
    '/:version/:id/message_templates',
    ROUTE,
    authed((account, { id }, request) => api.submitTemplate(db, account, id, request.body)),
  );
  scope.get(
    '/:version/:id/phone_numbers',
    ROUTE,
    authed((account, { id }) => api.listPhoneNumbers(db, account, id)),
  );
  scope.post(
    '/:version/:id/subscribed_apps',
    ROUTE,
    authed((account, { id }) => api.subscribeApp(db, account, id)),
  );
}
