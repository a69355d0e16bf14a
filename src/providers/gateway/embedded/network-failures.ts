/**
 * A linked-device connection that could not reach the service. The library surfaces the WebSocket's
 * error as a Boom (its socket.js mapWebSocketError) whose `data` is Node's own error, with the status
 * code its getCodeFromWSError gives: 408 for Node's `E…` codes and timeouts (the code of the QRs
 * running out too) and 500 for the rest, such as a certificate the TLS layer refused (the code of
 * refused credentials too). The status code cannot tell these apart; Node's error can, so the engine
 * reads it here before it reads the status code (engine/close.ts).
 */

/** What kept the connection from the service, as the channel's reason code names it. */
export type NetworkCause =
  | 'dns_failure'
  | 'network_unreachable'
  | 'connection_refused'
  | 'connection_reset'
  | 'connection_timed_out'
  | 'tls_failure';

export type NetworkFailure = { cause: NetworkCause; explanation: string };

/** The words every explanation starts with. */
export const UNREACHABLE = 'cannot reach the chat network';

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA', 'EAI_ADDRFAMILY']);
const UNREACHABLE_CODES = new Set(['ENETUNREACH', 'EHOSTUNREACH', 'ENETDOWN', 'EHOSTDOWN', 'EADDRNOTAVAIL']);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT']);
/** Node's TLS errors: OpenSSL's certificate verdicts (no `E` prefix) and Node's own TLS and SSL codes. */
const TLS_CODE =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$|INVALID_CA$|INVALID_PURPOSE$)/;

type NodeError = { code?: unknown; message?: unknown; hostname?: unknown; address?: unknown; port?: unknown; errors?: unknown };

/** Node's error inside the library's: its `data` (or `cause`); an AggregateError (every address failed) by its first error. */
function nodeErrorOf(error: unknown): NodeError | undefined {
  if (!error || typeof error !== 'object') return undefined;
  const e = error as { data?: unknown; cause?: unknown };
  for (const inner of [e.data, e.cause]) {
    if (!inner || typeof inner !== 'object') continue;
    const n = inner as NodeError;
    if (typeof n.code !== 'string' && typeof n.message !== 'string') continue;
    if (typeof n.code !== 'string' && Array.isArray(n.errors) && n.errors[0] && typeof n.errors[0] === 'object')
      return { ...(n.errors[0] as NodeError), message: n.message };
    return n;
  }
  return undefined;
}

/** The cause and its explanation when the library's error is a connection the network refused; undefined for anything else. */
export function networkFailureOf(error: unknown): NetworkFailure | undefined {
  const n = nodeErrorOf(error);
  if (!n) return undefined;
  const code = typeof n.code === 'string' ? n.code : undefined;
  const message = typeof n.message === 'string' ? n.message : '';
  const where = typeof n.address === 'string' ? `${n.address}${typeof n.port === 'number' ? `:${n.port}` : ''}` : undefined;
  const host = typeof n.hostname === 'string' ? n.hostname : "the service's address";
  const failure = (cause: NetworkCause, detail: string): NetworkFailure => ({ cause, explanation: `${UNREACHABLE}: ${detail}` });
  if (code && DNS_CODES.has(code)) return failure('dns_failure', `the DNS lookup of ${host} failed (${code})`);
  if (code && UNREACHABLE_CODES.has(code))
    return failure('network_unreachable', `no route to it from this machine (${code}${where ? `, ${where}` : ''})`);
  if (code === 'ECONNREFUSED') return failure('connection_refused', `${where ?? 'its server'} refused the connection (ECONNREFUSED)`);
  if (code && RESET_CODES.has(code)) return failure('connection_reset', `the connection was cut (${code})`);
  if ((code && TLS_CODE.test(code)) || /SSL routines|certificate|\bTLS\b/i.test(message))
    return failure(
      'tls_failure',
      `the TLS handshake failed (${code ?? 'TLS'}: ${message.split('\n')[0]}); a proxy or firewall may be intercepting the connection`,
    );
  if ((code && TIMEOUT_CODES.has(code)) || /timed out/i.test(message))
    return failure('connection_timed_out', `the service did not answer in time (${code ?? message})`);
  // Any other Node error with a system code is the network's too.
  if (code?.startsWith('E')) return failure('network_unreachable', `the connection failed (${code}: ${message.split('\n')[0]})`);
  return undefined;
}
