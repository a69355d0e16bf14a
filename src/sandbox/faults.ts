/**
 * Faults the sandbox injects into the sends it receives, switched by tests through /sandbox/faults
 * (only served with SANDBOX_FAULT_INJECTION): the provider failures Parley must survive without
 * losing a message or sending one twice. Held in the memory of the process that serves /sandbox.
 */
import { NAMED_OFFICIAL_ERRORS, type NamedOfficialError } from './errors.ts';

export const SEND_FAULTS = ['error', 'rate_limit', 'hang', 'lose_answer', 'reset', 'provider_error'] as const;
/**
 * - error: 500, nothing recorded (a provider fault; retryable);
 * - rate_limit: 429 with Retry-After, nothing recorded;
 * - hang: no answer and nothing recorded, until the caller gives up (a timeout before the provider got it);
 * - lose_answer: the send is accepted and recorded, then no answer (a timeout after the provider got it);
 * - reset: the connection is cut before anything is recorded;
 * - provider_error: the rule's `answer` (status, the protocol's error object, Retry-After), or the
 *   provider's own answer for an official code it names; nothing recorded.
 */
export type SendFault = (typeof SEND_FAULTS)[number];

/**
 * What a `provider_error` fault answers: the HTTP status, the body's `error` object as the protocol
 * writes it, and a Retry-After header; or (`code`) the official provider's own answer for that code,
 * as the sandbox writes it (sandbox/errors.ts), at its status unless `status` says otherwise, with
 * `error_subcode` where `subcode` is given and a Retry-After header only where `retry_after` is.
 * A named answer hits official sends only.
 */
export type FaultAnswer =
  | { status: number; error: Record<string, unknown>; retry_after?: string }
  | { code: NamedOfficialError; status?: number; subcode?: number; retry_after?: string };

/** What a rule hits: sends (the default), or downloads of media at the sandbox's media URLs. */
export type FaultTarget = 'send' | 'media';

export type FaultRule = {
  fault: SendFault;
  /** Sends (default) or media downloads. */
  on?: FaultTarget;
  /** Only sends of this number (phone_number_id) or session; every account when unset. */
  account?: string;
  /** Only sends to this recipient (the body's `to`); every recipient when unset. */
  to?: string;
  /** With `provider_error`: the answer. */
  answer?: FaultAnswer;
  /** How many sends it hits, then it stays off; unlimited when unset. */
  times?: number;
};

export type FaultSwitch = {
  set(rules: FaultRule[]): void;
  list(): Array<FaultRule & { hits: number }>;
  /** No rule is switched on: nothing to take for any send. */
  idle(): boolean;
  /**
   * The rule for this send of `account` to `to` (or this media download of `account`), counting the
   * hit; undefined when none applies. `official`: a send of the official API (rules naming its codes apply).
   */
  take(account: string, to?: string, on?: FaultTarget, official?: boolean): FaultRule | undefined;
};

export function createFaultSwitch(): FaultSwitch {
  let rules: Array<FaultRule & { hits: number }> = [];
  return {
    set(next) {
      rules = next.map((rule) => ({ ...rule, hits: 0 }));
    },
    list: () => rules.map((rule) => ({ ...rule })),
    idle: () => rules.length === 0,
    take(account, to, on = 'send', official = false) {
      const rule = rules.find(
        (r) =>
          (r.on ?? 'send') === on &&
          (official || r.answer === undefined || !('code' in r.answer)) &&
          (r.account === undefined || r.account === account) &&
          (r.to === undefined || r.to === to) &&
          (r.times === undefined || r.hits < r.times),
      );
      if (!rule) return undefined;
      rule.hits++;
      const { hits: _hits, ...taken } = rule;
      return taken;
    },
  };
}

/** The rules of a PUT /sandbox/faults body, or the problem with it. */
export function parseFaultRules(body: unknown): { ok: true; rules: FaultRule[] } | { ok: false; message: string } {
  const rules = (body as { rules?: unknown } | undefined)?.rules;
  if (!Array.isArray(rules) || rules.length > 100)
    return { ok: false, message: 'rules must be an array of at most 100 {fault, on?, account?, to?, times?, answer?}' };
  const parsed: FaultRule[] = [];
  for (const [i, rule] of rules.entries()) {
    const r = rule as Record<string, unknown> | null;
    if (!r || typeof r !== 'object' || !SEND_FAULTS.includes(r.fault as SendFault))
      return { ok: false, message: `rules[${i}].fault must be one of ${SEND_FAULTS.join(', ')}` };
    if (r.account !== undefined && (typeof r.account !== 'string' || r.account === '' || r.account.length > 200))
      return { ok: false, message: `rules[${i}].account must be a phone_number_id or a session` };
    if (r.times !== undefined && (!Number.isInteger(r.times) || (r.times as number) < 1))
      return { ok: false, message: `rules[${i}].times must be a positive integer` };
    if (r.to !== undefined && (typeof r.to !== 'string' || !/^\d{1,20}$/.test(r.to)))
      return { ok: false, message: `rules[${i}].to must be a recipient's digits` };
    if (r.on !== undefined && r.on !== 'send' && r.on !== 'media') return { ok: false, message: `rules[${i}].on must be send or media` };
    if (r.on === 'media' && r.to !== undefined) return { ok: false, message: `rules[${i}].to is for sends only` };
    if (r.on === 'media' && (r.answer as { code?: unknown } | undefined)?.code !== undefined)
      return { ok: false, message: `rules[${i}].answer.code is for sends only` };
    let answer: FaultAnswer | undefined;
    if (r.fault === 'provider_error') {
      const parsedAnswer = parseAnswer(r.answer);
      if (typeof parsedAnswer === 'string') return { ok: false, message: `rules[${i}].answer${parsedAnswer}` };
      answer = parsedAnswer;
    } else if (r.answer !== undefined) {
      return { ok: false, message: `rules[${i}].answer is only for the provider_error fault` };
    }
    parsed.push({
      fault: r.fault as SendFault,
      ...(r.on !== undefined ? { on: r.on as FaultTarget } : {}),
      ...(r.account !== undefined ? { account: r.account as string } : {}),
      ...(r.to !== undefined ? { to: r.to as string } : {}),
      ...(r.times !== undefined ? { times: r.times as number } : {}),
      ...(answer ? { answer } : {}),
    });
  }
  return { ok: true, rules: parsed };
}

const MAX_ANSWER_BYTES = 4096;

const isErrorStatus = (status: unknown) => Number.isInteger(status) && (status as number) >= 400 && (status as number) <= 599;

/** A provider_error answer, or what is wrong with it (appended to the rule's `answer`). */
function parseAnswer(value: unknown): FaultAnswer | string {
  const a = value as Record<string, unknown> | null | undefined;
  if (!a || typeof a !== 'object' || Array.isArray(a))
    return ' must be {status, error, retry_after?} or {code, status?, subcode?, retry_after?}';
  const retryAfter = a.retry_after;
  if (retryAfter !== undefined && !(typeof retryAfter === 'string' && /^[\x20-\x7e]{1,100}$/.test(retryAfter)))
    return '.retry_after must be a header value (seconds or an HTTP date)';
  const header = retryAfter !== undefined ? { retry_after: retryAfter as string } : {};
  if (a.code !== undefined) {
    if (!NAMED_OFFICIAL_ERRORS.includes(a.code as NamedOfficialError))
      return `.code must be one of the official codes the sandbox answers: ${NAMED_OFFICIAL_ERRORS.join(', ')}`;
    if (a.error !== undefined) return '.code and .error cannot both be given';
    if (a.status !== undefined && !isErrorStatus(a.status)) return '.status must be an HTTP error status (400-599)';
    if (a.subcode !== undefined && !(Number.isInteger(a.subcode) && (a.subcode as number) > 0))
      return '.subcode must be a positive integer';
    return {
      code: a.code as NamedOfficialError,
      ...(a.status !== undefined ? { status: a.status as number } : {}),
      ...(a.subcode !== undefined ? { subcode: a.subcode as number } : {}),
      ...header,
    };
  }
  if (!isErrorStatus(a.status)) return '.status must be an HTTP error status (400-599)';
  if (!a.error || typeof a.error !== 'object' || Array.isArray(a.error)) return ".error must be the protocol's error object";
  if (JSON.stringify(a.error).length > MAX_ANSWER_BYTES) return `.error must be at most ${MAX_ANSWER_BYTES} bytes of JSON`;
  return { status: a.status as number, error: a.error as Record<string, unknown>, ...header };
}
