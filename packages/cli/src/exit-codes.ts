/**
 * The exit codes of `parley`, documented in docs/cli.md. Scripts branch on them, so they only grow:
 * a code never changes its meaning.
 */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** The service refused the request (a 4xx other than 401, or a 5xx): the problem is printed. */
  api: 1,
  /** The command line is wrong: an unknown command or option, a missing or malformed value. */
  usage: 2,
  /** Not signed in, or the credential was refused (401), or a login was denied or expired. */
  auth: 3,
  /** The service could not be reached (connection refused, DNS, timeout). */
  network: 4,
  /** The command ran, and what it watched or tried failed: a watched message `failed`, a test delivery not answered 2xx. */
  failed: 5,
  /** Interrupted (Ctrl-C), as shells report a SIGINT. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
