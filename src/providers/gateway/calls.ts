/**
 * Calls on both engines of unofficial channels: rejecting a ringing call through the HTTP gateway
 * protocol (`POST …/calls/{call_id}/reject`), or on the embedded engine's session.
 */
import type { CallCalls } from '../profiles.ts';
import { NO_ENGINE, type GatewayAccess } from './access.ts';

export function createGatewayCalls(access: GatewayAccess): CallCalls {
  return {
    async rejectCall(connection, call) {
      const engine = access.embedded(connection);
      if (engine === null) return { ok: false, error: NO_ENGINE };
      if (engine) return engine.profiles(connection.channelId, 'reject_call', call);
      const result = await access
        .client(connection)
        .call('POST', `sessions/${access.session(connection)}/calls/${encodeURIComponent(call.id)}/reject`, { from: call.from });
      if (!result.ok) return result;
      return { ok: true, value: {} };
    },
  };
}
