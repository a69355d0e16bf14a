/**
 * The real socket factory: a linked-device connection through the library (baileys 7). Loaded only
 * by a worker that holds sessions. The library's own log goes to ours at warn and above (its debug
 * output carries message contents and key material).
 */
import { Browsers, makeCacheableSignalKeyStore, makeWASocket, type UserFacingSocketConfig } from 'baileys';
import type { Logger } from '../../../lib/logger.ts';
import type { EngineSocket, SocketFactory, SocketInput } from './socket.ts';

export function createBaileysSocketFactory(options: { logger: Logger }): SocketFactory {
  return ({ channelId, auth, getMessage, cachedGroupMetadata, shouldSyncHistoryMessage, markOnlineOnConnect }) => {
    const logger = options.logger.child({ channel_id: channelId, component: 'linked-device library' }, { level: 'warn' });
    const socket = makeWASocket(
      socketConfig({ auth, logger, getMessage, cachedGroupMetadata, shouldSyncHistoryMessage, markOnlineOnConnect }),
    );
    const phoneJidOfLid = async (lidJid: string) => (await socket.signalRepository.lidMapping.getPNForLID(lidJid)) ?? undefined;
    // From the store, else asked of the service (the library's own lookup).
    const lidOfPhoneJid = async (phoneJid: string) => (await socket.signalRepository.lidMapping.getLIDForPN(phoneJid)) ?? undefined;
    return Object.assign(socket, { phoneJidOfLid, lidOfPhoneJid }) satisfies EngineSocket;
  };
}

/** The library's socket config: what the engine asks of it, and what it answers the library with. */
export function socketConfig(
  input: Pick<SocketInput, 'auth' | 'getMessage' | 'cachedGroupMetadata' | 'shouldSyncHistoryMessage' | 'markOnlineOnConnect'> & {
    logger: NonNullable<UserFacingSocketConfig['logger']>;
  },
): UserFacingSocketConfig {
  return {
    auth: { creds: input.auth.creds, keys: makeCacheableSignalKeyStore(input.auth.keys, input.logger) },
    logger: input.logger,
    browser: Browsers.ubuntu('Parley'),
    // The phone keeps its notifications (Parley is not a person reading messages), unless the channel asks to show online.
    markOnlineOnConnect: input.markOnlineOnConnect === true,
    // The whole history is never asked for; the recent one the phone sends is processed (history.ts).
    syncFullHistory: false,
    shouldSyncHistoryMessage: input.shouldSyncHistoryMessage,
    // The content of what this session sent, for a recipient's retry (session-messages.ts).
    getMessage: input.getMessage,
    cachedGroupMetadata: input.cachedGroupMetadata,
  };
}
