/** The 24-hour customer-service window, as the composer sees it. */
import type { Conversation } from './api.ts';

export const WINDOW_CLOSED_REASON =
  'The customer last wrote more than 24 hours ago: only an approved template can start the conversation again.';

/**
 * Whether only templates may be sent now: the channel has a window (`windowHours` from its capabilities;
 * null when it has none, undefined while unknown) and it is closed, or was never opened.
 */
export function windowClosed(
  conversation: Pick<Conversation, 'window_expires_at'>,
  windowHours: number | null | undefined,
  now = Date.now(),
): boolean {
  if (windowHours === null || windowHours === undefined) return false;
  return conversation.window_expires_at === null || Date.parse(conversation.window_expires_at) <= now;
}
