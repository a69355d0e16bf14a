/**
 * Parley's types to the gateway's, for both engines of unofficial channels. A channel naming a
 * `gateway_base` speaks the HTTP gateway protocol (docs/gateway-protocol.md): the gateway takes Parley's
 * own message types and content shapes, so sending passes them through with Parley's message id as the
 * idempotency key. A channel without one runs on the embedded engine (embedded/engine.ts): a
 * linked-device session inside Parley, held by one worker process.
 */
import type { AdapterCalls, AdapterOptions, SendGuarantees } from '../provider.ts';
import { downloadStream } from '../http.ts';
import { engineOf, gatewayAccess, NO_ENGINE, type GatewaySettings } from './access.ts';
import { createGatewayCalls } from './calls.ts';
import { downloadEmbeddedMedia } from './embedded/media.ts';
import { sendThroughSocket } from './embedded/outbound.ts';
import { createChatCalls } from './chats.ts';
import { createGroupCalls, gatewaySettingsOf } from './groups.ts';
import { createLabelCalls } from './labels.ts';
import { createGatewayProfiles } from './profiles.ts';

export { engineOf, type GatewaySettings };

/** The HTTP protocol deduplicates on idempotency_key and can be asked about one (docs/gateway-protocol.md). */
export const HTTP_GATEWAY_SENDS: SendGuarantees = { idempotentResend: true };

/**
 * The embedded engine cannot be asked about a send, and a repeat would be a second message; a lost
 * answer is settled by the acks, which name Parley's message (embedded/ids.ts).
 */
const EMBEDDED_SENDS: SendGuarantees = { idempotentResend: false, askable: false };

export function createGatewayAdapter(options: AdapterOptions): AdapterCalls {
  const access = gatewayAccess(options);
  const { client, session, embedded } = access;

  const { postStatus, ...labels } = createLabelCalls({ ...access, targets: options.targets });

  return {
    groups: createGroupCalls({ ...access, targets: options.targets }),
    labels,
    postStatus,

    async subscribePresence(connection, phone) {
      const engine = embedded(connection);
      if (engine === null) return { ok: false, error: NO_ENGINE };
      if (engine) return engine.subscribePresence(connection.channelId, phone);
      const result = await client(connection).call('POST', `sessions/${session(connection)}/presence/subscribe`, { phone });
      return result.ok ? { ok: true, value: { subscribed: true } } : result;
    },

    async applySettings(connection) {
      const engine = embedded(connection);
      if (engine === null) return { ok: false, error: NO_ENGINE };
      if (engine) {
        await engine.settingsChanged(connection.channelId);
        return { ok: true, value: { applied: true } };
      }
      const result = await client(connection).call(
        'PUT',
        `sessions/${session(connection)}/settings`,
        gatewaySettingsOf(connection.settings),
      );
      return result.ok ? { ok: true, value: { applied: true } } : result;
    },

    profiles: createGatewayProfiles(access),
    calls: createGatewayCalls(access),
    chats: createChatCalls(access),
    sendsOf: (connection) => (engineOf(connection) === 'embedded' ? EMBEDDED_SENDS : HTTP_GATEWAY_SENDS),

    async send(connection, message) {
      const engine = embedded(connection);
      if (engine === null) return { ok: false, error: NO_ENGINE };
      if (engine) {
        const socket = engine.socketOf(connection.channelId);
        // Sends run where the socket is (the dispatcher claims a channel's messages only there).
        if (!socket)
          return {
            ok: false,
            error: { code: 'session_not_running', title: "this process does not hold the channel's session", retryable: true },
          };
        return sendThroughSocket(socket, message, { targets: options.targets, ...engine.sendContextOf(connection.channelId) });
      }
      const result = await client(connection).call<{ id: string }>('POST', `sessions/${session(connection)}/messages`, {
        to: message.to,
        type: message.type,
        content: message.content,
        idempotency_key: message.id,
      });
      if (!result.ok) return result;
      return { ok: true, value: { providerMessageId: result.value.id } };
    },

    async findSend(connection, messageId) {
      if (embedded(connection) !== undefined)
        return { ok: false, error: { code: 'not_askable', title: 'the embedded engine cannot be asked about a send', retryable: false } };
      const result = await client(connection).call<{ id: string }>(
        'GET',
        `sessions/${session(connection)}/idempotency-keys/${encodeURIComponent(messageId)}`,
      );
      if (result.ok) return { ok: true, value: { found: true, providerMessageId: result.value.id } };
      // The session answered, and it never accepted a send with this key.
      if (result.status === 404 && result.error.code === 'not_found') return { ok: true, value: { found: false } };
      return result;
    },

    async fetchMedia(connection, mediaId) {
      if (embedded(connection) !== undefined)
        return {
          ok: false,
          error: { code: 'unsupported', title: 'embedded channels download media with the message (downloadMedia)', retryable: false },
        };
      const result = await client(connection).call<{ url: string; mime_type: string }>(
        'GET',
        `sessions/${session(connection)}/media/${encodeURIComponent(mediaId)}`,
      );
      if (!result.ok) return result;
      return { ok: true, value: { url: result.value.url, mimeType: result.value.mime_type } };
    },

    /**
     * Embedded: the library's encrypted media, decrypted. HTTP gateway: the protocol's media call for
     * its URL, then that URL (with the API key only when it is the gateway's own).
     */
    async downloadMedia(connection, source) {
      const engine = embedded(connection);
      if (engine === null) return { ok: false, error: NO_ENGINE };
      if (engine) return downloadEmbeddedMedia(source, options.targets);
      const mediaId = typeof source.media_id === 'string' ? source.media_id : undefined;
      if (!mediaId)
        return { ok: false, error: { code: 'bad_media_source', title: 'the inbound media names no media id', retryable: false } };
      const found = await client(connection).call<{ url?: string; mime_type?: string }>(
        'GET',
        `sessions/${session(connection)}/media/${encodeURIComponent(mediaId)}`,
      );
      if (!found.ok) return found;
      if (typeof found.value.url !== 'string')
        return { ok: false, error: { code: 'bad_response', title: 'the gateway answered without a media URL', retryable: false } };
      const settings = connection.settings as unknown as GatewaySettings;
      let url: URL;
      try {
        url = new URL(found.value.url, settings.gateway_base);
      } catch {
        return {
          ok: false,
          error: { code: 'bad_response', title: 'the gateway answered with a media URL that does not parse', retryable: false },
        };
      }
      const own = new URL(settings.gateway_base).origin;
      const bearer = { authorization: `Bearer ${connection.credentials.api_key ?? ''}` };
      const download = await downloadStream({
        url: url.href,
        headersFor: (u) => (u.origin === own ? bearer : {}),
        timeoutMs: options.timeoutMs ?? 15_000,
        policy: options.targets,
      });
      if (!download.ok) return download;
      return { ok: true, value: { ...download.value, mimeType: download.value.mimeType ?? found.value.mime_type } };
    },

    async lookupProfile(connection, phone) {
      const engine = embedded(connection);
      if (engine === null) return { ok: false, error: NO_ENGINE };
      if (engine) return engine.lookupProfile(connection.channelId, phone);
      const result = await client(connection).call<{ exists: boolean; id?: string; name?: string }>(
        'GET',
        `sessions/${session(connection)}/contacts/${encodeURIComponent(phone)}`,
      );
      if (!result.ok) return result;
      return { ok: true, value: { exists: result.value.exists === true, chatappId: result.value.id, name: result.value.name } };
    },

    async checkHealth(connection) {
      const engine = embedded(connection);
      if (engine === null) return { ok: false, error: NO_ENGINE };
      if (engine) return engine.checkHealth(connection.channelId);
      const result = await client(connection).call<{ status: string }>('GET', `sessions/${session(connection)}`);
      if (!result.ok) return result;
      return { ok: true, status: result.value.status };
    },

    async startPairing(connection, callback) {
      const engine = embedded(connection);
      if (engine === null) return { ok: false, error: NO_ENGINE };
      if (engine) return engine.startPairing(connection.channelId);
      const put = await client(connection).call<{ status: string }>('PUT', `sessions/${session(connection)}`, {
        callback_url: callback.url,
        callback_secret: callback.secret,
      });
      if (!put.ok) return put;
      // The settings the gateway honours, before the session starts (changed later, they are sent again: applySettings).
      // A gateway without the call (404) takes no settings; pairing goes on.
      const settings = await client(connection).call(
        'PUT',
        `sessions/${session(connection)}/settings`,
        gatewaySettingsOf(connection.settings),
      );
      if (!settings.ok && settings.status !== 404) return settings;
      const started = await client(connection).call<{ status: string }>('POST', `sessions/${session(connection)}/start`);
      if (!started.ok) return started;
      return { ok: true, value: { status: started.value.status } };
    },

    async getQr(connection) {
      const engine = embedded(connection);
      if (engine === null) return { ok: false, error: NO_ENGINE };
      if (engine) return engine.getQr(connection.channelId);
      const result = await client(connection).call<{ qr: string; expires_at: string }>('GET', `sessions/${session(connection)}/qr`);
      if (!result.ok) return result;
      return { ok: true, value: { qr: result.value.qr, expiresAt: new Date(result.value.expires_at) } };
    },

    async requestPairingCode(connection, phone) {
      const engine = embedded(connection);
      if (engine === null) return { ok: false, error: NO_ENGINE };
      if (engine) return engine.requestPairingCode(connection.channelId, phone);
      const result = await client(connection).call<{ code: string; expires_at: string }>(
        'POST',
        `sessions/${session(connection)}/pairing-code`,
        { phone },
      );
      if (!result.ok) return result;
      return { ok: true, value: { code: result.value.code, expiresAt: new Date(result.value.expires_at) } };
    },

    async logout(connection) {
      const engine = embedded(connection);
      if (engine === null) return { ok: false, error: NO_ENGINE };
      if (engine) return engine.logout(connection.channelId);
      const result = await client(connection).call<{ status: string }>('POST', `sessions/${session(connection)}/logout`);
      if (!result.ok) return result;
      return { ok: true, value: { status: result.value.status } };
    },
  };
}
