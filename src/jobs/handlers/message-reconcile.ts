import { reconcileMessage, type DispatchDeps } from '../../domain/messages/dispatch.ts';

/** Fails a message whose send answer was lost and that no status webhook has named since. (Sending is the dispatcher's: domain/messages/dispatcher.ts.) */
export function messageReconcileHandler(deps: DispatchDeps) {
  return async ({ message_id }: { message_id: string }) => reconcileMessage(deps, message_id);
}
