/** The label and status routes' records (labels.ts), typed from their response schemas. */
import type { z } from 'zod';
import { presentChat, type Label } from '../../domain/channels/labels.ts';
import type { LabelSchema, StatusPostSchema } from './labels.ts';

export type ChatLabelRecord = z.infer<typeof LabelSchema>;
export type StatusPostRecord = z.infer<typeof StatusPostSchema>;

export function presentLabel(channelId: string, label: Label): ChatLabelRecord {
  return {
    id: label.id,
    channel_id: channelId,
    name: label.name,
    color: label.color,
    chats: label.chats.map(presentChat),
    updated_at: label.updatedAt.toISOString(),
  };
}

export function presentStatusPost(
  channelId: string,
  type: StatusPostRecord['type'],
  posted: { id: string; recipients: string[] },
): StatusPostRecord {
  return { id: posted.id, channel_id: channelId, type, recipients: posted.recipients };
}
