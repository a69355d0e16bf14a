/** Rejects a call as it rings, where the channel's reject_calls setting says so (domain/calls/reject.ts). */
import { rejectRingingCall, type CallRejectDeps } from '../../domain/calls/reject.ts';

export function callRejectHandler(deps: CallRejectDeps) {
  return async ({ message_id }: { message_id: string }) => rejectRingingCall(deps, { messageId: message_id });
}
