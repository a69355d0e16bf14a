/**
 * The gateway's names for what Parley keeps, read by the platform's module (a health check's or
 * pairing answer's session state, for both engines: the embedded one names its states the HTTP
 * gateway's way, embedded/sessions.ts) and by its inbound half (session.status callbacks).
 */

/** Gateway session status -> Parley channel status. */
export function channelStatusOf(sessionStatus: string): 'connected' | 'pairing' | 'disconnected' | 'error' {
  switch (sessionStatus) {
    case 'WORKING':
      return 'connected';
    case 'SCAN_QR':
    case 'STARTING':
      return 'pairing';
    case 'FAILED':
      return 'error';
    default:
      return 'disconnected';
  }
}
