/**
 * What ends a command, as an exit code and a message: the SDK's typed errors (the problem body's
 * title and detail, the fields it names), the argument parser's, and the CLI's own.
 */
import { CommanderError } from 'commander';
import { AuthenticationError, ConnectionError, ParleyError } from '@parley/sdk';
import { EXIT, type ExitCode } from './exit-codes.ts';

/** A failure the CLI reports as it is: a message for people, an exit code, and what --json prints. */
export class CliError extends Error {
  readonly exitCode: ExitCode;
  readonly details: Record<string, unknown> | undefined;
  /** The command printed its result already (--json: its one document), so only the message is added, on stderr. */
  readonly resultPrinted: boolean;

  constructor(message: string, exitCode: ExitCode, details?: Record<string, unknown>, options: { resultPrinted?: boolean } = {}) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
    this.details = details;
    this.resultPrinted = options.resultPrinted ?? false;
  }
}

export function usageError(message: string): CliError {
  return new CliError(message, EXIT.usage);
}

export function notLoggedIn(message: string): CliError {
  return new CliError(message, EXIT.auth);
}

type Problem = { title?: string; detail?: string; errors?: Array<{ pointer?: string; message?: string }>; [key: string]: unknown };

/** The problem body's words: detail (or title), then each field it names. */
function describeProblem(status: number, problem: Problem | undefined, fallback: string): string {
  const head = problem?.detail ?? problem?.title ?? fallback;
  const fields = (problem?.errors ?? [])
    .filter((e) => e.pointer || e.message)
    .map((e) => `  ${e.pointer ?? ''} ${e.message ?? ''}`.trimEnd());
  return [`${head} (HTTP ${status})`, ...fields].join('\n');
}

/** Any thrown value as the CliError the CLI reports. */
export function toCliError(err: unknown): CliError {
  if (err instanceof CliError) return err;
  if (err instanceof CommanderError) {
    // --help and --version end the parse with exit code 0.
    return new CliError(err.message.replace(/^error: /, ''), err.exitCode === 0 ? EXIT.ok : EXIT.usage, { code: err.code });
  }
  if (err instanceof ConnectionError) {
    return new CliError(`cannot reach the service: ${err.message}`, EXIT.network, { error: 'connection_error' });
  }
  if (err instanceof ParleyError) {
    const problem = err.problem as Problem | undefined;
    const details = { status: err.status, problem: problem ?? null, request_id: err.requestId ?? null };
    if (err instanceof AuthenticationError) {
      return new CliError(
        `${describeProblem(err.status, problem, 'the credential was refused')}\nLog in again with \`parley login\`, or check the API key.`,
        EXIT.auth,
        details,
      );
    }
    return new CliError(describeProblem(err.status, problem, err.message), EXIT.api, details);
  }
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) {
    return new CliError('interrupted', EXIT.interrupted);
  }
  // A fetch that never got an answer (outside the SDK: the login's own requests, a forward target).
  if (err instanceof TypeError && err.message === 'fetch failed') {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return new CliError(`cannot reach the service: ${cause?.code ?? cause?.message ?? err.message}`, EXIT.network, {
      error: 'connection_error',
    });
  }
  return new CliError(err instanceof Error ? err.message : String(err), EXIT.api);
}
