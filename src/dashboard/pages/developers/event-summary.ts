/**
 * An event's one-line summary for the event log, from its body (the webhook body: docs/webhooks.md).
 * Typed over every event type, so a new type does not compile until it is summarized here. A field a
 * body lacks (one recorded before the field existed) is left out of the sentence, never shown as
 * "undefined".
 */
import type { EventRecord } from './api.ts';

type Data = Record<string, unknown>;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);
const count = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
const direction = (data: Data) => (data.direction === 'outbound' ? 'Outbound' : 'Inbound');
/** What an import's object_kind says was imported. */
const IMPORTED: Record<string, string> = { contact: 'Contact import', company: 'Company import', deal: 'Deal import' };
const joined = (...parts: Array<string | undefined | false>) => parts.filter(Boolean).join(' ');

export function eventSummary(event: Pick<EventRecord, 'type' | 'data'>): string {
  const d = event.data;
  const type = event.type;
  switch (type) {
    case 'message.new': {
      const from = text(d.from_phone);
      return joined(d.direction === 'outbound' ? 'Echo: outbound' : 'Inbound', text(d.msg_type), 'message', from && `from +${from}`);
    }
    case 'message.sent':
      return 'An outbound message was sent';
    case 'message.status_update':
      return text(d.status) ? `A message was ${text(d.status)}` : 'A message changed status';
    case 'message.edited':
      return `${direction(d)} message edited`;
    case 'message.deleted':
      return `${direction(d)} message deleted`;
    case 'message.media_updated':
      return d.media_status === 'stored'
        ? 'Inbound media stored'
        : joined('Inbound media could not be stored', text(d.error_code) && `(${text(d.error_code)})`);
    case 'conversation.updated': {
      const unread = count(d.unread_count);
      const assignee = d.assignee_user_id === null ? 'unassigned' : text(d.assignee_user_id) ? 'assigned' : undefined;
      return [joined('Conversation', text(d.status)), unread !== undefined && `${unread} unread`, assignee].filter(Boolean).join(', ');
    }
    case 'conversation.status_changed':
      return joined(
        'Conversation',
        text(d.previous_status) && `${text(d.previous_status)} →`,
        text(d.status),
        text(d.priority) && `(priority ${text(d.priority)})`,
      );
    case 'conversation.assigned':
      return d.assignee_user_id === null ? 'Conversation unassigned' : 'Conversation assigned';
    case 'team.created':
    case 'team.updated':
    case 'team.deleted':
      return joined('Team', text(d.name), type.slice('team.'.length));
    case 'member.availability_changed':
      return joined('Member is now', text(d.availability));
    case 'conversation.labels_changed':
      return 'Conversation labels changed';
    case 'conversation.note_created': {
      const mentions = Array.isArray(d.mentions) ? d.mentions.length : 0;
      return joined('Private note written', mentions > 0 && `(${mentions} mentioned)`);
    }
    case 'conversation.note_deleted':
      return 'Private note deleted';
    case 'csat.submitted':
      return joined('Satisfaction rating', typeof d.rating === 'number' && `${d.rating} of 5`);
    case 'conversation_label.created':
    case 'conversation_label.updated':
    case 'conversation_label.deleted':
      return joined('Conversation label', text(d.name), type.slice('conversation_label.'.length));
    case 'contact.updated':
      return joined('Contact', text(d.name), 'updated');
    case 'canned_response.created':
    case 'canned_response.updated':
    case 'canned_response.deleted':
      return joined('Canned response', text(d.shortcut) && `/${text(d.shortcut)}`, type.slice('canned_response.'.length));
    case 'contact.merged':
      return 'Contact merged into another';
    case 'contact.suppressed':
      return joined('Contact suppressed on', text(d.channel), text(d.reason) && `(${text(d.reason)})`);
    case 'contact.unsuppressed':
      return joined('Contact no longer suppressed on', text(d.channel));
    case 'template.status_update':
      return joined('Template', text(d.status) ? `now ${text(d.status)}` : 'status changed');
    case 'template.quality_update':
      return d.flagged === true
        ? `Template flagged${text(d.reason) ? `: ${text(d.reason)}` : ''}`
        : joined('Template quality', text(d.quality_score) ?? 'changed');
    case 'group.updated':
      return joined('Group', text(d.change) ?? 'updated');
    case 'presence.updated':
      return joined(text(d.phone) ? `+${text(d.phone)}` : 'A contact', 'is', text(d.presence) ?? 'present');
    case 'label.updated':
      return joined('Label', text(d.name), d.deleted === true ? 'deleted' : 'saved');
    case 'label.assigned':
      return joined('Label', text(d.label_id), 'put on', text(d.chat_id));
    case 'label.unassigned':
      return joined('Label', text(d.label_id), 'taken off', text(d.chat_id));
    case 'status.received':
      return joined('Status post from', text(d.from_phone));
    case 'commerce.order.updated':
      return [joined('Order', text(d.order_no), text(d.status)), text(d.payment_status) && `payment ${text(d.payment_status)}`]
        .filter(Boolean)
        .join(', ');
    case 'call.received':
    case 'call.accepted':
    case 'call.rejected':
    case 'call.missed':
    case 'call.ended': {
      const from = text(d.from_phone);
      const what = `${d.video === true ? 'Video' : 'Voice'} call`;
      const verb = {
        'call.received': 'ringing',
        'call.accepted': 'answered',
        'call.rejected': 'rejected',
        'call.missed': 'missed',
        'call.ended': 'ended',
      }[type];
      return joined(what, from && `from +${from}`, verb, type === 'call.rejected' && d.rejected_by === 'parley' && 'by Parley');
    }
    case 'channel.status_update': {
      const move = text(d.status) ? `${text(d.previous_status) ?? 'new'} → ${text(d.status)}` : 'status changed';
      return `Channel ${move}${text(d.reason) ? `: ${text(d.reason)}` : ''}`;
    }
    case 'crm.record.created':
    case 'crm.record.updated':
    case 'crm.record.deleted':
      return joined(text(d.object_kind) ?? 'Record', text(d.display_name), type.slice('crm.record.'.length));
    case 'crm.deal.stage_changed':
      return 'Deal moved to another stage';
    case 'crm.task.completed':
      return joined('Task', text(d.title), 'completed');
    case 'broadcast.started':
      return joined('Broadcast', text(d.name), 'started');
    case 'broadcast.paused':
      return joined('Broadcast', text(d.name), 'paused');
    case 'broadcast.completed':
      return joined('Broadcast', text(d.name), 'completed');
    case 'broadcast.variant_won':
      return joined('Broadcast', text(d.name), 'chose its winning variant');

    case 'automation.run':
      return joined('Automation ran:', text(d.trigger));
    case 'crm.task.due':
      return joined('Task', text(d.title), 'due');
    case 'crm.relationship.linked':
      return joined('Linked:', text(d.label) ?? 'relationship');
    case 'crm.relationship.unlinked':
      return joined('Unlinked:', text(d.label) ?? 'relationship');
    case 'crm.comment.created':
      return joined('Comment added to a', text(d.object_kind) ?? 'record');
    case 'crm.comment.updated':
      return joined('Comment edited on a', text(d.object_kind) ?? 'record');
    case 'crm.comment.deleted':
      return joined('Comment removed from a', text(d.object_kind) ?? 'record');
    case 'crm.list.entry_added':
      return joined('Added to list', text(d.list));
    case 'crm.list.entry_removed':
      return joined('Removed from list', text(d.list));
    case 'crm.import.committed':
      return `${IMPORTED[text(d.object_kind) ?? ''] ?? 'Import'}: ${count(d.created) ?? 0} created, ${count(d.updated) ?? 0} updated, ${count(d.unchanged) ?? 0} unchanged, ${count(d.failed) ?? 0} failed`;
    case 'bot.session_started':
      return joined('Bot session started', text(d.started_by) && `(${text(d.started_by)})`);
    case 'bot.session_ended':
      return joined('Bot session ended', text(d.reason) && `(${text(d.reason)?.replace(/_/g, ' ')})`);
    case 'conversation.handoff':
      return d.to === 'bot' ? 'Conversation handed to a bot' : 'Conversation handed to people';
    default:
      return type satisfies never;
  }
}
