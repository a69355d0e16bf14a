/**
 * Injected send faults (src/sandbox/faults.ts) on the wire: the control routes under /sandbox/faults,
 * and how a faulty send is answered (an error, no answer, a cut connection).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseFaultRules, type FaultAnswer } from '../../sandbox/faults.ts';
import { namedOfficialError } from '../../sandbox/errors.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import { sendGatewayError, sendOfficialError } from './replies.ts';

const ROUTE = { config: { auth: { public: true as const } }, schema: { hide: true } };
/** A held request is cut after this long at most, whatever the caller's timeout. */
const HOLD_MS = 120_000;

export async function registerFaultRoutes(scope: FastifyInstance, sandbox: Sandbox) {
  scope.put('/faults', ROUTE, async (request, reply) => {
    const parsed = parseFaultRules(request.body);
    if (!parsed.ok) return sendGatewayError(reply, { status: 400, code: 'invalid_request', message: parsed.message, retryable: false });
    sandbox.faults.set(parsed.rules);
    return reply.send({ rules: sandbox.faults.list() });
  });
  scope.get('/faults', ROUTE, async (_request, reply) => reply.send({ rules: sandbox.faults.list() }));
  scope.delete('/faults', ROUTE, async (_request, reply) => {
    sandbox.faults.set([]);
    return reply.code(204).send();
  });
}

/** Takes the request from the framework and holds it unanswered until the caller gives up, then cuts it. */
async function holdOpen(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.hijack();
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, HOLD_MS);
    timer.unref();
    reply.raw.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  request.raw.socket?.destroy();
}

/**
 * Serves one media download under the fault the switch has for its account (rules with `on:
 * "media"`): error 500 and rate_limit 429 in the gateway's error shape, reset, hang, and
 * provider_error's answer; lose_answer sends the first bytes and then cuts the connection.
 */
export async function downloadWithFaults(
  sandbox: Sandbox,
  account: string,
  request: FastifyRequest,
  reply: FastifyReply,
  serve: () => unknown,
): Promise<unknown> {
  const rule = sandbox.faults.take(account, undefined, 'media');
  const fault = rule?.fault;
  switch (fault) {
    case undefined:
      return serve();
    case 'error':
      return sendGatewayError(reply, { status: 500, code: 'internal', message: 'the media could not be read; try again', retryable: true });
    case 'rate_limit':
      return sendGatewayError(reply, { status: 429, code: 'rate_limited', message: 'too many media downloads', retryable: true });
    case 'reset':
      reply.hijack();
      request.raw.socket?.destroy();
      return;
    case 'hang':
      return holdOpen(request, reply);
    case 'lose_answer':
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': '1048576' });
      reply.raw.write(Buffer.alloc(1024));
      request.raw.socket?.destroy();
      return;
    case 'provider_error':
      return answerAs(reply, rule!.answer!, request.body);
    default:
      return fault satisfies never;
  }
}

/**
 * A provider_error fault's answer: as the test wrote it in the protocol's shape, or the official
 * provider's own answer for the code it names, refusing this request's body.
 */
function answerAs(reply: FastifyReply, answer: FaultAnswer, body: unknown) {
  if ('code' in answer) {
    const error = namedOfficialError(answer.code, body);
    return sendOfficialError(
      reply,
      { ...error, status: answer.status ?? error.status, ...(answer.subcode !== undefined ? { subcode: answer.subcode } : {}) },
      { retryAfter: answer.retry_after ?? null },
    );
  }
  if (answer.retry_after !== undefined) void reply.header('retry-after', answer.retry_after);
  return reply.code(answer.status).send({ error: answer.error });
}

/**
 * Runs one send under the fault the switch has for its account: `refuse` answers error and
 * rate_limit in the protocol's shape; `process` does the send; `answer` writes its result.
 * `official`: a send of the official API, which rules naming its error codes hit.
 */
export async function sendWithFaults<T>(
  sandbox: Sandbox,
  account: string,
  request: FastifyRequest,
  reply: FastifyReply,
  io: { official: boolean; refuse(fault: 'error' | 'rate_limit'): unknown; process(): Promise<T>; answer(result: T): unknown },
): Promise<unknown> {
  const to = (request.body as { to?: unknown } | null | undefined)?.to;
  const rule = sandbox.faults.take(account, typeof to === 'string' ? to : undefined, 'send', io.official);
  const fault = rule?.fault;
  switch (fault) {
    case undefined:
      return io.answer(await sandbox.inFlight.track(account, io.process));
    case 'error':
    case 'rate_limit':
      return io.refuse(fault);
    case 'reset':
      reply.hijack();
      request.raw.socket?.destroy();
      return;
    case 'hang':
      return holdOpen(request, reply);
    case 'lose_answer':
      await sandbox.inFlight.track(account, io.process);
      return holdOpen(request, reply);
    case 'provider_error':
      return answerAs(reply, rule!.answer!, request.body);
    default:
      return fault satisfies never;
  }
}
