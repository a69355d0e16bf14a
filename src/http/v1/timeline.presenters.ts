/** The timelines' items (timeline.ts) as the API answers them: one object named after each item's kind. */
import type { z } from 'zod';
import type { TimelineItem } from '../../domain/crm/timeline.ts';
import type { TimelineItemSchema } from './timeline.ts';

export type TimelineItemRecord = z.infer<typeof TimelineItemSchema>;

const iso = (v: unknown) => (v === null || v === undefined ? null : new Date(String(v)).toISOString());

function messagePreview(data: Record<string, any>): string {
  if (typeof data.preview === 'string' && data.preview) return data.preview;
  if (data.type === 'template') return `[template ${data.template ?? ''}]`;
  return `[${String(data.type)}]`;
}

export function presentTimelineItem(item: TimelineItem): TimelineItemRecord {
  const base = { kind: item.kind, action: item.action, id: item.id, at: item.at.toISOString() };
  const d = item.data;
  switch (item.kind) {
    case 'message':
      return {
        ...base,
        message: {
          conversation_id: d.conversation_id,
          channel_id: d.channel_id,
          direction: d.direction,
          type: d.type,
          status: d.status,
          preview: messagePreview(d),
          deleted: d.deleted === true,
        },
      };
    case 'comment':
      return {
        ...base,
        comment: {
          body: d.body,
          truncated: d.truncated === true,
          record: { kind: d.record_kind, id: d.record_id },
          author: d.author,
          edited_at: iso(d.edited_at),
        },
      };
    case 'task':
      return {
        ...base,
        task: {
          title: d.title,
          status: d.status,
          due_at: iso(d.due_at),
          priority: d.priority ?? null,
          assignee_user_id: d.assignee_user_id ?? null,
          created_by: d.created_by,
          completed_by: d.completed_by ?? null,
        },
      };
    case 'deal_stage':
      return {
        ...base,
        deal_stage: {
          deal_id: d.deal_id,
          deal_name: d.deal_name,
          pipeline_id: d.pipeline_id,
          from_stage: d.from_stage ?? null,
          to_stage: d.to_stage,
          changed_by: d.changed_by,
        },
      };
    case 'consent':
      return { ...base, consent: { channel: d.channel, source: d.source ?? null } };
    case 'suppression':
      return { ...base, suppression: { channel: d.channel, reason: d.reason, expires_at: iso(d.expires_at) } };
    default:
      return item.kind satisfies never;
  }
}
