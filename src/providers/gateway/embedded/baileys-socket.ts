/**
 * The real socket factory: a linked-device connection through the library (baileys 7). Loaded only
 * by a worker that holds sessions. The library's own log goes to ours at warn and above (its debug
 * output carries message contents and key material).
 */
import { Browsers, makeCacheableSignalKeyStore, makeWASocket } from 'baileys';
import type { Logger } from '../../../lib/logger.ts';
import type { EngineSocket, SocketFactory } from './socket.ts';

export function createBaileysSocketFactory(options: { logger: Logger }): SocketFactory {
  return ({ channelId, auth }) => {
    const logger = options.logger.child({ channel_id: channelId, component: 'linked-device library' }, { level: 'warn' });
    const socket = makeWASocket({
      auth: { creds: auth.creds, keys: makeCacheableSignalKeyStore(auth.keys, logger) },
      logger,
      browser: Browsers.ubuntu('Parley'),
      // The phone keeps its notifications: Parley is not a person reading messages.
      markOnlineOnConnect: false,
      syncFullHistory: false,
      shouldSyncHistoryMessage: () => false,
      // Messages are not kept in the library's form, so a recipient's retry request cannot be re-encrypted.
      getMessage: async () => undefined,
    });
    const phoneJidOfLid = async (lidJid: string) => (await socket.signalRepository.lidMapping.getPNForLID(lidJid)) ?? undefined;
    return Object.assign(socket, { phoneJidOfLid }) satisfies EngineSocket;
  };
}
