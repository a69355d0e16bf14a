import { dispatchMessage, reconcileMessage, type DispatchDeps } from '../../domain/messages/dispatch.ts';

/** Sends one accepted message through its channel's adapter. */
export function messageDispatchHandler(deps: DispatchDeps) {
  return async ({ message_id }: { message_id: string }) => dispatchMessage(deps, message_id);
}

/** Fails a message whose send answer was lost and that no status webhook has named since. */
export function messageReconcileHandler(deps: DispatchDeps) {
  return async ({ message_id }: { message_id: string }) => reconcileMessage(deps, message_id);
}
