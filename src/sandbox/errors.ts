/**
 * The providers' own error vocabularies, as typed results. The HTTP layer writes them in each
 * protocol's native body shape; nothing here knows about HTTP beyond the status number.
 */

/** An official (Graph-style) error: `{error: {message, type, code, error_subcode, error_data, fbtrace_id}}`. */
export type OfficialError = {
  status: number;
  code: number;
  message: string;
  subcode?: number;
  /** Goes to error_data.details. */
  details?: string;
  type?: string;
  transient?: boolean;
};

/** A gateway error: `{error: {code, message, retryable, participants?}}`. */
export type GatewayError = { status: number; code: string; message: string; retryable: boolean; participants?: string[] };

export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };
export type OfficialResult<T> = Result<T, OfficialError>;
export type GatewayResult<T> = Result<T, GatewayError>;

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function fail<E>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}

export const official = {
  /** 400, code 100: a parameter the provider would refuse. */
  invalidParameter: (details: string): OfficialError => ({ status: 400, code: 100, message: `(#100) ${details}`, details }),
  /** 400, code 131008: a parameter the send needs is absent. */
  missingParameter: (details: string): OfficialError => ({
    status: 400,
    code: 131008,
    message: '(#131008) Required parameter is missing',
    details,
  }),
  /** 400, code 131009: a parameter's value is not one the provider accepts. */
  invalidValue: (details: string): OfficialError => ({
    status: 400,
    code: 131009,
    message: '(#131009) Parameter value is not valid',
    details,
  }),
  /** 401, code 190: the access token is missing, malformed, expired or revoked. */
  invalidToken: (message = 'Invalid OAuth access token - Cannot parse access token'): OfficialError => ({
    status: 401,
    code: 190,
    message,
  }),
  /** 400, code 100 subcode 33: an id the token may not see (or that does not exist). */
  unknownObject: (method: string, id: string): OfficialError => ({
    status: 400,
    code: 100,
    subcode: 33,
    message: `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
  }),
  unknownPath: (path: string): OfficialError => ({ status: 400, code: 2500, message: `Unknown path components: ${path}` }),
  reengagement: (): OfficialError => ({
    status: 400,
    code: 131047,
    message: '(#131047) Re-engagement message',
    details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
  }),
  throughput: (): OfficialError => ({
    status: 429,
    code: 130429,
    message: '(#130429) Rate limit hit',
    details: 'Cloud API message throughput has been reached.',
    transient: true,
  }),
  /** 400, code 131056: too many messages from the number to one recipient in a short time (the pair rate). */
  pairRateLimit: (): OfficialError => ({
    status: 400,
    code: 131056,
    message: '(#131056) (Business Account, Consumer Account) pair rate limit hit',
    details:
      'Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time.',
  }),
  /** 400, code 80007: the business account's rate limit. */
  accountRateLimit: (): OfficialError => ({
    status: 400,
    code: 80007,
    message: '(#80007) Rate limit issues',
    details: 'The WhatsApp Business Account has reached its rate limit.',
  }),
  /** 500, code 131057: the business account is in maintenance mode (a throughput upgrade, say). */
  maintenance: (): OfficialError => ({
    status: 500,
    code: 131057,
    message: '(#131057) Account in maintenance mode',
    details: 'Business account is in maintenance mode',
  }),
  /** 400, code 131049: the recipient had enough marketing messages for now (the provider's per-user marketing limit). */
  marketingLimit: (): OfficialError => ({
    status: 400,
    code: 131049,
    message: '(#131049) This message was not delivered to maintain healthy ecosystem engagement.',
    details: 'In order to maintain a healthy ecosystem engagement, the message failed to be delivered.',
  }),
  /** 400, code 132015 or 132016: the template was paused or disabled for its quality. */
  templateHeld: (code: 132015 | 132016, name: string): OfficialError => ({
    status: 400,
    code,
    message: code === 132015 ? '(#132015) Template is paused' : '(#132016) Template is disabled',
    details:
      code === 132015
        ? `Template ${name} is paused due to low quality so it cannot be sent in a template message.`
        : `Template ${name} has been paused too many times due to low quality and is now permanently disabled.`,
  }),
  notRegistered: (): OfficialError => ({
    status: 400,
    code: 133010,
    message: '(#133010) Account not registered',
    details: 'The phone number is not registered: call POST /{phone_number_id}/register first.',
  }),
  templateMissing: (name: string, language: string): OfficialError => ({
    status: 400,
    code: 132001,
    message: '(#132001) Template name does not exist in the translation',
    details: `template name (${name}) does not exist in ${language}`,
  }),
  templateParams: (expected: number, got: number): OfficialError => ({
    status: 400,
    code: 132000,
    message: '(#132000) Number of parameters does not match the expected number of params',
    details: `body: number of localizable_params (${got}) does not match the expected number of params (${expected})`,
  }),
  badClientSecret: (): OfficialError => ({ status: 400, code: 1, message: 'Error validating client secret.' }),
  badCode: (): OfficialError => ({ status: 400, code: 100, subcode: 36007, message: 'Invalid verification code format.' }),
  internal: (): OfficialError => ({
    status: 500,
    code: 2,
    message: 'An unexpected error has occurred. Please retry your request later.',
    transient: true,
  }),
};

/** The official codes a fault rule may name (sandbox/faults.ts): their answers as the provider writes them. */
export const NAMED_OFFICIAL_ERRORS = [130429, 131056, 80007, 131057, 132001, 131049, 132015, 132016] as const;
export type NamedOfficialError = (typeof NAMED_OFFICIAL_ERRORS)[number];

/** The provider's answer for a named code, refusing this send body (a missing template names the body's template). */
export function namedOfficialError(code: NamedOfficialError, body: unknown): OfficialError {
  switch (code) {
    case 130429:
      return official.throughput();
    case 131056:
      return official.pairRateLimit();
    case 80007:
      return official.accountRateLimit();
    case 131057:
      return official.maintenance();
    case 131049:
      return official.marketingLimit();
    case 132015:
    case 132016:
      return official.templateHeld(code, String((body as { template?: { name?: unknown } } | null | undefined)?.template?.name ?? ''));
    case 132001: {
      const template = (body as { template?: { name?: unknown; language?: { code?: unknown } } } | null | undefined)?.template;
      return official.templateMissing(String(template?.name ?? ''), String(template?.language?.code ?? ''));
    }
    default:
      return code satisfies never;
  }
}

export const gateway = {
  unauthorized: (): GatewayError => ({ status: 401, code: 'unauthorized', message: 'invalid or missing API key', retryable: false }),
  notFound: (what: string): GatewayError => ({ status: 404, code: 'not_found', message: `${what} not found`, retryable: false }),
  invalid: (message: string): GatewayError => ({ status: 400, code: 'invalid_request', message, retryable: false }),
  conflict: (code: string, message: string, retryable = false): GatewayError => ({ status: 409, code, message, retryable }),
  invalidRecipient: (to: string): GatewayError => ({
    status: 400,
    code: 'invalid_recipient',
    message: `${to} is not on the chat app`,
    retryable: false,
  }),
  rateLimited: (): GatewayError => ({
    status: 429,
    code: 'rate_limited',
    message: 'too many messages; try again shortly',
    retryable: true,
  }),
  internal: (): GatewayError => ({ status: 500, code: 'internal', message: 'the gateway failed; try again', retryable: true }),
};
