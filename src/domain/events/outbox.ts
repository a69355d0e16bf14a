/**
 * The transactional outbox. Every event is written with the change that caused it, in the same
 * transaction; the webhook dispatcher delivers from this table, so a crash loses no event.
 */
import { sql } from 'drizzle-orm';
import { batchRows } from '../../db/batch-rows.ts';
import type { Executor } from '../../db/client.ts';
import { events } from '../../db/schema.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { automationOrigin } from './origin.ts';

/** Event types and their body fields (a flat object; the type travels beside it, not inside). */
/** A label put on a chat or one of its messages, or taken off. */
type LabelAssociationBody = {
  channel_id: string;
  organization_id: string;
  label_id: string;
  chat_id: string;
  message_id: string | null;
  occurred_at: string;
};

export type EventBodies = {
  'message.new': {
    message_id: string;
    conversation_id: string;
    contact_id?: string;
    channel_id?: string;
    /** `outbound` for an echo: a message the business sent from its phone or another linked device. */
    direction: 'inbound' | 'outbound';
    from_phone: string;
    /** The sender's privacy id (the chat network's LID) beside the phone, where the provider gave it (unofficial channels). */
    from_lid?: string;
    msg_type: string;
  };
  'message.sent': { conversation_id: string; message_id: string; channel_id: string };
  'message.status_update': {
    message_id: string;
    status: string;
    conversation_id?: string;
    organization_id?: string;
    /** What the provider's report of this status said about billing, as it sent it (official channels). */
    pricing?: { billable?: boolean; pricing_model?: string; category?: string; type?: string };
    /** The provider's billing conversation (its own id, not Parley's conversation_id), as it sent it. */
    conversation?: { id: string; origin?: { type?: string }; expiration_timestamp?: string };
  };
  'message.edited': {
    message_id: string;
    conversation_id: string;
    channel_id: string;
    direction: 'inbound' | 'outbound';
    edited_at: string;
  };
  'message.deleted': {
    message_id: string;
    conversation_id: string;
    channel_id: string;
    direction: 'inbound' | 'outbound';
    deleted_at: string;
  };
  /** An inbound message's media was downloaded and stored, or failed to be (media_status, and error_code when failed). */
  'message.media_updated': {
    message_id: string;
    conversation_id: string;
    channel_id: string;
    media_status: 'stored' | 'failed';
    error_code: string | null;
    organization_id: string;
  };
  'conversation.updated': {
    conversation_id: string;
    status: string;
    // The inbox's row as it is now (always written by the service; optional for bodies recorded before they existed).
    assignee_user_id?: string | null;
    unread_count?: number;
    last_message_preview?: string | null;
    last_message_at?: string | null;
    /** The chat's state on a linked phone (unofficial channels): archived, pinned, muted until, marked unread. */
    archived?: boolean;
    pinned?: boolean;
    muted_until?: string | null;
    marked_unread?: boolean;
    /** The team inbox's priority and snooze time (absent from bodies recorded before they existed). */
    priority?: string;
    snoozed_until?: string | null;
    /** The conversation's team (absent from bodies recorded before teams existed). */
    team_id?: string | null;
  };
  /** Status, snooze time or priority changed (by a member, the API, a customer message or the snooze wake-up). */
  'conversation.status_changed': {
    conversation_id: string;
    status: string;
    previous_status: string;
    snoozed_until: string | null;
    priority: string;
    previous_priority: string;
    organization_id: string;
  };
  /** The assignee or the team changed (by a member, the API, or the team's assignment policy). */
  'conversation.assigned': {
    conversation_id: string;
    assignee_user_id: string | null;
    previous_assignee_user_id: string | null;
    /** Absent from bodies recorded before teams existed. */
    team_id?: string | null;
    previous_team_id?: string | null;
    organization_id: string;
  };
  /** A team was created, changed (name, policy, capacity, members) or deleted (domain/teams). */
  'team.created': TeamBody;
  'team.updated': TeamBody;
  'team.deleted': TeamBody;
  /** A member's availability changed (online, away, offline). */
  'member.availability_changed': { user_id: string; availability: string; previous_availability: string; organization_id: string };
  /** Conversation labels put on or taken off: label_ids as they now are. */
  'conversation.labels_changed': {
    conversation_id: string;
    label_ids: string[];
    added: string[];
    removed: string[];
    organization_id: string;
  };
  /** A private note (never sent to the customer); mentions: the members it mentions. */
  'conversation.note_created': {
    conversation_id: string;
    note_id: string;
    author_user_id: string | null;
    mentions: string[];
    organization_id: string;
  };
  'conversation.note_deleted': { conversation_id: string; note_id: string; organization_id: string };
  /** A customer rated a resolved conversation (domain/csat): 1 to 5, with the words beside the number. */
  'csat.submitted': {
    survey_id: string;
    conversation_id: string;
    contact_id: string | null;
    channel_id: string;
    assignee_user_id: string | null;
    rating: number;
    comment: string | null;
    message_id: string;
    organization_id: string;
    answered_at: string;
  };
  /** An organization's conversation label was created, renamed or recolored, or deleted (taken off every conversation). */
  'conversation_label.created': ConversationLabelBody;
  'conversation_label.updated': ConversationLabelBody;
  'conversation_label.deleted': ConversationLabelBody;
  'contact.updated': { contact_id: string; name: string | null; organization_id: string };
  'template.status_update': { template_id: string; status: string };
  /** The provider's quality report on a template changed: its score, or its warning raised or lifted. */
  'template.quality_update': { template_id: string; status: string; quality_score: string | null; flagged: boolean; reason: string | null };
  /**
   * A group the channel's number is in changed, as its engine reported it (official: the group webhooks;
   * unofficial: the linked device's group notices).
   */
  /** A business label of an unofficial channel's number was made, changed (name, color) or deleted: on the phone, another device or through Parley. */
  'label.updated': {
    channel_id: string;
    organization_id: string;
    label_id: string;
    name: string;
    color: number;
    deleted: boolean;
    occurred_at: string;
  };
  /** A label was put on a chat (a contact's `+phone` or a group id), or on one message of it (message_id, the chat network's id). */
  'label.assigned': LabelAssociationBody;
  'label.unassigned': LabelAssociationBody;
  /** A contact posted a status (a story) the channel's number may see; kept as an inbound message in the status@broadcast conversation. */
  'status.received': {
    channel_id: string;
    organization_id: string;
    message_id: string;
    conversation_id: string;
    contact_id: string | null;
    from_phone: string;
    type: string;
    occurred_at: string;
  };
  'group.updated': {
    channel_id: string;
    organization_id: string;
    group_id: string;
    /**
     * What happened: official, the provider's own name (group_create, group_delete, group_settings_update,
     * group_add_participants, group_remove_participants); unofficial, group_join (the number is now in it),
     * group_leave, group_settings_update, group_add_participants, group_remove_participants,
     * group_promote_participants, group_demote_participants.
     */
    change: string;
    request_id: string | null;
    subject?: string;
    description?: string;
    added_participants?: GroupParticipantRef[];
    removed_participants?: GroupParticipantRef[];
    promoted_participants?: GroupParticipantRef[];
    demoted_participants?: GroupParticipantRef[];
    /** Unofficial: the settings that changed (only those). */
    settings?: { announcement?: boolean; locked?: boolean; members_can_add?: boolean; join_approval?: boolean; ephemeral_seconds?: number };
    /** Unofficial: who made the change (a phone, international digits), where known. */
    author?: string;
    profile_picture?: { mime_type?: string; sha256?: string };
    errors?: Array<{ code: string; title?: string; message?: string; details?: string }>;
    occurred_at: string;
  };
  /** A contact's presence changed (unofficial channels: after POST /v1/channels/{id}/presence/subscribe, or in a group). */
  'presence.updated': {
    channel_id: string;
    organization_id: string;
    /** The contact's phone, international digits; lid its privacy id where known. */
    phone: string;
    lid: string | null;
    /** The group the presence is in, or null for the contact's own chat. */
    chat_id: string | null;
    presence: 'available' | 'unavailable' | 'composing' | 'recording' | 'paused';
    last_seen: string | null;
    occurred_at: string;
  };
  'commerce.order.updated': { order_id: string; order_no: string; status: string; payment_status: string };
  /** A call to an unofficial channel's number rang (call.received) and what became of it (domain/calls/calls.ts). */
  'call.received': CallBody;
  'call.accepted': CallBody;
  'call.rejected': CallBody & {
    /** `parley`: rejected through the API or the channel's reject_calls setting; `phone`: on the phone or another device. */
    rejected_by: 'parley' | 'phone';
  };
  'call.missed': CallBody;
  'call.ended': CallBody;
  'channel.status_update': {
    channel_id: string;
    status: string;
    previous_status: string | null;
    reason: string | null;
    reason_code: string | null;
    organization_id: string;
  };
  /** A bot took a conversation (domain/bots): its trigger matched, a hand-off to it, or an automation. */
  'bot.session_started': BotSessionBody & { started_by: 'trigger' | 'handoff' | 'automation' };
  /** A bot's session ended, and why. */
  'bot.session_ended': BotSessionBody & { reason: 'expired' | 'stop_keyword' | 'human_took_over' | 'handoff' | 'bot_disabled' };
  /** Ownership of a conversation moved explicitly (POST /v1/conversations/{id}/handoff): to people or to a bot. */
  'conversation.handoff': {
    conversation_id: string;
    to: 'human' | 'bot';
    bot_id: string | null;
    previous_bot_id: string | null;
    organization_id: string;
  };
  /** A canned response was written or deleted (domain/canned-responses); owner_user_id null for a shared one. */
  'canned_response.created': CannedResponseBody;
  'canned_response.updated': CannedResponseBody;
  'canned_response.deleted': CannedResponseBody;
  /** A contact was merged into another (the survivor, contact_id) and deleted; crm.record.deleted comes with it. */
  'contact.merged': { contact_id: string; merged_contact_id: string; organization_id: string };
  /** A contact was suppressed on a channel scope: by an opt-out (message_id the inbound message that asked) or through the API. */
  'contact.suppressed': SuppressionBody;
  /** A contact's suppression was lifted: by a start keyword (message_id the inbound message) or through the API. */
  'contact.unsuppressed': SuppressionBody;
  'crm.record.created': CrmRecordBody;
  'crm.record.updated': CrmRecordBody;
  'crm.record.deleted': CrmRecordBody;
  /** A deal moved to another stage (pipeline_id: the deal's pipeline after the move). */
  'crm.deal.stage_changed': {
    deal_id: string;
    pipeline_id: string;
    from_stage_id: string;
    to_stage_id: string;
    organization_id: string;
  };
  /** A task was completed (completed_by: as a deal's stage history says who moved it). */
  'crm.task.completed': {
    task_id: string;
    title: string;
    assignee_user_id: string | null;
    due_at: string | null;
    completed_at: string;
    completed_by: { type: string; id: string | null; user_id: string | null };
    organization_id: string;
  };
  /** A broadcast began sending: its audience frozen (recipients, of them skipped). */
  'broadcast.started': BroadcastBody & { recipients: number; skipped: number };
  /** A broadcast was paused (POST /v1/broadcasts/{id}/pause). */
  'broadcast.paused': BroadcastBody;
  /** Every recipient of a broadcast was handed to dispatch or skipped. */
  'broadcast.completed': BroadcastBody & { recipients: number; skipped: number };
  /** A broadcast's A/B test was decided: the winning variant goes to the rest of the audience. */
  'broadcast.variant_won': BroadcastBody & {
    variant: number;
    template: { name: string; language: string };
    metric: string;
    variants: Array<{ variant: number; sent: number; rate: number } & Record<string, number>>;
    rest: number;
  };
  /** An automation rule ran for a trigger and its conditions held: how many of its actions were done and failed (GET /v1/automations/{id}/runs has each). */
  'automation.run': {
    rule_id: string;
    run_id: string;
    trigger: string;
    conversation_id: string | null;
    actions_done: number;
    actions_failed: number;
    organization_id: string;
  };
  /** An open task's due time passed (once per due time). */
  'crm.task.due': { task_id: string; title: string; due_at: string; assignee_user_id: string | null; organization_id: string };
  'crm.relationship.linked': RelationshipBody;
  'crm.relationship.unlinked': RelationshipBody;
  'crm.comment.created': CommentBody;
  /** Its author changed its body. */
  'crm.comment.updated': CommentBody;
  'crm.comment.deleted': CommentBody;
  /** A record joined a list (list_id its id), or a contact was tagged (list the tag's name, list_id null). */
  'crm.list.entry_added': ListEntryBody;
  'crm.list.entry_removed': ListEntryBody;
  'crm.import.committed': {
    import_id: string;
    /** What was imported: `contact`, `company` or `deal` (absent from events recorded before it was said). */
    object_kind?: 'contact' | 'company' | 'deal';
    created: number;
    updated: number;
    unchanged: number;
    failed: number;
    organization_id: string;
  };
};

/** A group participant as a group event names it: `wa_id` the phone (international digits), `input` as the request gave it (official), `lid` the privacy id (unofficial). */
type GroupParticipantRef = { input?: string; wa_id?: string; lid?: string };
/** What every call event says: the call, its record in the conversation (a `call` message), the caller. */
/** What every broadcast event carries. */
export type BroadcastBody = {
  broadcast_id: string;
  name: string;
  channel_id: string;
  organization_id: string;
  /** broadcast.paused by the sending rules (the template held by the provider): why; absent when a person paused it. */
  reason?: string;
};

export type CallBody = {
  call_id: string;
  message_id: string;
  conversation_id: string;
  contact_id: string;
  channel_id: string;
  organization_id: string;
  from_phone: string;
  from_lid?: string;
  video: boolean;
  /** A group call: the group's id. */
  group_id?: string;
  /** The call's status now: ringing, answered, rejected, missed, ended. */
  status: string;
  occurred_at: string;
};

type ConversationLabelBody = { label_id: string; name: string; color: string; organization_id: string };
type TeamBody = {
  team_id: string;
  name: string;
  assignment_policy: string;
  default_capacity: number | null;
  member_user_ids: string[];
  organization_id: string;
};
type BotSessionBody = { session_id: string; bot_id: string; conversation_id: string; channel_id: string; organization_id: string };
type CannedResponseBody = { canned_response_id: string; shortcut: string; owner_user_id: string | null; organization_id: string };
/** A suppression event: the scope (a channel id, `chatapp`, `all` or `marketing`), why, and the message that caused it (null: the API). */
type SuppressionBody = {
  contact_id: string;
  channel: string;
  reason: string;
  expires_at: string | null;
  message_id: string | null;
  organization_id: string;
};
type CrmRecordBody = { object_kind: string; record_id: string; display_name: string | null; organization_id: string };
/** An entry of a list: `list` its name (a tag's name for a tag), `list_id` its id (null for a tag). */
type ListEntryBody = { list: string; list_id: string | null; record_id: string; object_kind: string; organization_id: string };
type CommentBody = { comment_id: string; record_id: string; object_kind: string; organization_id: string };
/** A link between two records: its label as read from the `from` record, and the inverse as read from the `to` one. */
type RelationshipBody = {
  relationship_id: string;
  label_id: string;
  label: string;
  inverse_label: string | null;
  from_object_kind: string;
  from_record_id: string;
  to_object_kind: string;
  to_record_id: string;
  organization_id: string;
};

export type EventType = keyof EventBodies;
export const EVENT_TYPES = [
  'message.new',
  'message.sent',
  'message.status_update',
  'message.edited',
  'message.deleted',
  'message.media_updated',
  'conversation.updated',
  'conversation.status_changed',
  'conversation.assigned',
  'team.created',
  'team.updated',
  'team.deleted',
  'member.availability_changed',
  'conversation.labels_changed',
  'conversation.note_created',
  'conversation.note_deleted',
  'csat.submitted',
  'conversation_label.created',
  'conversation_label.updated',
  'conversation_label.deleted',
  'contact.updated',
  'canned_response.created',
  'canned_response.updated',
  'canned_response.deleted',
  'contact.merged',
  'contact.suppressed',
  'contact.unsuppressed',
  'template.status_update',
  'template.quality_update',
  'group.updated',
  'presence.updated',
  'label.updated',
  'label.assigned',
  'label.unassigned',
  'status.received',
  'commerce.order.updated',
  'call.received',
  'call.accepted',
  'call.rejected',
  'call.missed',
  'call.ended',
  'channel.status_update',
  'crm.record.created',
  'crm.record.updated',
  'crm.record.deleted',
  'crm.deal.stage_changed',
  'crm.task.completed',
  'crm.task.due',
  'crm.relationship.linked',
  'crm.relationship.unlinked',
  'crm.comment.created',
  'crm.comment.updated',
  'crm.comment.deleted',
  'crm.list.entry_added',
  'crm.list.entry_removed',
  'crm.import.committed',
  'broadcast.started',
  'broadcast.paused',
  'broadcast.completed',
  'broadcast.variant_won',
  'automation.run',
  'bot.session_started',
  'bot.session_ended',
  'conversation.handoff',
] as const satisfies readonly EventType[];

/**
 * The NOTIFY channel that says "an event was committed": recordEvent notifies inside the event's
 * transaction, so the signal arrives exactly when the event becomes visible (and never for a
 * rolled-back one). The webhook dispatcher listens on it; its polling is only the floor.
 */
export const EVENTS_CHANNEL = 'parley_events';

/**
 * The NOTIFY channel that says "events were given their positions" (sent by the webhook dispatcher,
 * once per batch, inside the transaction that gives them, so it arrives when GET /v1/events can list
 * them). The live event streams (events/stream.ts) listen on it.
 */
export const EVENTS_SEQUENCED_CHANNEL = 'parley_events_sequenced';

/** Records an event; pass the transaction of the change that caused it. */
export async function recordEvent<T extends EventType>(
  db: Executor,
  organizationId: string,
  type: T,
  body: EventBodies[T],
  at?: Date,
): Promise<string> {
  const id = uuidv7();
  // The insert and the NOTIFY in one statement: one round trip per event.
  await db.execute(sql`
    with inserted as (
      insert into ${events} (id, organization_id, type, payload, created_at, automation_rule_id)
      values (${id}, ${organizationId}, ${type}, ${JSON.stringify(body)}::jsonb, coalesce(${at ?? null}::timestamptz, now()), ${automationOrigin()}::uuid)
      returning 1
    )
    select pg_notify(${EVENTS_CHANNEL}, '') from inserted`);
  return id;
}

/** An event to record, with its type. */
export type NewEvent = { [T in EventType]: { type: T; body: EventBodies[T] } }[EventType];

/**
 * Records many events of one organization in one statement, in the order given (a change to many
 * records at once: a stage's deals moved); pass the transaction of the change.
 */
export async function recordEvents(db: Executor, organizationId: string, list: NewEvent[], at?: Date): Promise<void> {
  if (list.length === 0) return;
  const rows = list.map((e, n) => ({ n, id: uuidv7(), type: e.type, payload: e.body }));
  await db.execute(sql`
    with inserted as (
      insert into ${events} (id, organization_id, type, payload, created_at, automation_rule_id)
      select e.id, ${organizationId}, e.type, e.payload, coalesce(${at ?? null}::timestamptz, now()), ${automationOrigin()}::uuid
        from ${batchRows(JSON.stringify(rows), 'e', 'n int, id uuid, type text, payload jsonb')}
       order by e.n
      returning 1
    )
    select pg_notify(${EVENTS_CHANNEL}, '') from (select 1 from inserted limit 1) one`);
}
