/** The bot routes' records (bots.ts), typed from the response schemas. */
import type { z } from 'zod';
import type { BotRow, BotTriggerOperator, BotTriggerType } from '../../domain/bots/bots.ts';
import type { ConversationOwner } from '../../domain/bots/handoff.ts';
import type { BotSchema, ConversationOwnerSchema } from './bots.ts';

export type BotRecord = z.infer<typeof BotSchema>;
export type ConversationOwnerRecord = z.infer<typeof ConversationOwnerSchema>;

export function presentBot(row: BotRow): BotRecord {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    channel_ids: row.channelIds,
    trigger:
      row.triggerType === 'all'
        ? { type: 'all' }
        : { type: row.triggerType as BotTriggerType, operator: row.triggerOperator as BotTriggerOperator, keywords: row.triggerValues },
    expire_minutes: row.expireMinutes,
    stop_keyword: row.stopKeyword,
    debounce_ms: row.debounceMs,
    keep_open: row.keepOpen,
    enabled: row.enabled,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function presentOwner(owner: ConversationOwner): ConversationOwnerRecord {
  return {
    conversation_id: owner.conversationId,
    owner: owner.owner,
    bot_id: owner.botId,
    session: owner.session && {
      id: owner.session.id,
      bot_id: owner.session.botId,
      started_at: owner.session.startedAt.toISOString(),
      expires_at: owner.session.expiresAt?.toISOString() ?? null,
    },
  };
}
