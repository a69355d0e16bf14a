/** A history sync chunk of a held session (history.ts): contact profiles always, the old messages when the channel imports history. */
import { historyEvents } from '../history.ts';
import { library } from '../library.ts';
import { importsHistory } from '../sessions.ts';
import type { EngineSocket, SocketEvents } from '../socket.ts';
import type { EngineContext, Held } from './context.ts';
import { remember } from './remember.ts';
import { report } from './report.ts';
import { withSenderPhones } from './sender-phones.ts';

export async function onHistory(
  engine: EngineContext,
  held: Held,
  socket: EngineSocket,
  chunk: SocketEvents['messaging-history.set'],
): Promise<void> {
  // Read when the chunk comes, not when the session was claimed: the setting may be changed while the phone pairs.
  // A chunk the API asked for (chats.history: the phone's ON_DEMAND sync) is imported whatever the setting.
  const onDemand = chunk.syncType === library().proto.HistorySync.HistorySyncType.ON_DEMAND;
  const importHistory = onDemand || (await importsHistory(engine.db, held.channelId));
  if (importHistory) {
    // The chunk's own mappings first (the library stores them too, asked next for the others).
    const phones = new Map((chunk.lidPnMappings ?? []).map((m) => [m.lid, m.pn]));
    for (const { key } of chunk.messages) {
      if (key.remoteJid && !key.remoteJidAlt && phones.has(key.remoteJid)) key.remoteJidAlt = phones.get(key.remoteJid);
      if (key.participant && !key.participantAlt && phones.has(key.participant)) key.participantAlt = phones.get(key.participant);
    }
    await withSenderPhones(socket, chunk.messages);
    await remember(
      engine,
      held,
      chunk.messages.map((m) => ({ key: m.key })),
    );
  }
  engine.options.logger.info(
    {
      channel_id: held.channelId,
      sync_type: chunk.syncType,
      contacts: chunk.contacts.length,
      messages: chunk.messages.length,
      imported: importHistory,
    },
    'embedded engine: history sync chunk',
  );
  await report(
    engine,
    held,
    historyEvents(held.ref, chunk, {
      self: { phone: held.phone, lid: held.lid },
      groups: held.settings.groups,
      statuses: held.settings.statuses,
      pollKey: engine.options.pollKey,
      importHistory,
    }),
  );
}
