import { reconcileMessage, type DispatchDeps } from '../../domain/messages/dispatch.ts';

/**
 * Ends the wait for a status naming a send whose answer was lost, where the provider cannot be asked
 * (settling by asking is the dispatcher's: domain/messages/dispatch.ts).
 */
export function messageReconcileHandler(deps: DispatchDeps) {
  return async ({ message_id }: { message_id: string }) => reconcileMessage(deps, message_id);
}
