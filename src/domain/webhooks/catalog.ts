/**
 * The event type catalogue as users see it: what fires each type, an example body, and whether
 * anything emits it yet. Typed against the outbox's EventBodies, so a new event type does not compile
 * until it is described here. The examples are also what a test send carries.
 */
import { EVENT_TYPES, type EventBodies, type EventType } from '../events/outbox.ts';

export type EventTypeInfo<T extends EventType = EventType> = {
  description: string;
  example: EventBodies[T];
  /**
   * Nothing records it yet: it is in the catalogue (subscribable, test-sendable) for a source to come.
   * test/code/event-sources.unit.test.ts holds this to the code: reserved exactly when no domain code records the type.
   */
  reserved?: true;
};

const ORG = '0190a5b2-7c3d-7e4f-8a1b-2c3d4e5f6a7b';
const TEAM_ID = '0196b1f2-0a00-7000-8000-0000000000e1';
/** A record event's body (object_kind: contact, company, deal or task). */
const CRM_RECORD = {
  object_kind: 'company',
  record_id: '0190a5b3-1111-7e4f-8a1b-2c3d4e5f6a7b',
  display_name: 'Acme GmbH',
  organization_id: ORG,
};

const TASK_ID = '0190a5b3-7777-7e4f-8a1b-2c3d4e5f6a7b';
/** A relationship event's body: a contact works at a company. */
const RELATIONSHIP = {
  relationship_id: '0190a5b3-8888-7e4f-8a1b-2c3d4e5f6a7b',
  label_id: '0190a5b3-9999-7e4f-8a1b-2c3d4e5f6a7b',
  label: 'works at',
  inverse_label: 'employs',
  from_object_kind: 'contact',
  from_record_id: '0190a5b3-aaaa-7e4f-8a1b-2c3d4e5f6a7b',
  to_object_kind: 'company',
  to_record_id: CRM_RECORD.record_id,
  organization_id: ORG,
};

const CALL_EXAMPLE = {
  call_id: '9C4C2B0A39B5A3E3C8D1F0E2A7B6C5D4',
  message_id: '0190a5b4-2a7e-7c11-9d2f-5b6c7d8e9f09',
  conversation_id: '0190a5b4-2a70-7c11-9d2f-5b6c7d8e9f00',
  contact_id: '0190a5b4-1f00-7c11-9d2f-5b6c7d8e9eff',
  channel_id: '0190a5b1-0a0b-7c11-9d2f-5b6c7d8e9e00',
  organization_id: ORG,
  from_phone: '4915112345678',
  from_lid: '177766655544433',
  video: false,
  status: 'ringing',
  occurred_at: '2025-06-02T09:15:00.000Z',
};

export const EVENT_CATALOG: { [T in EventType]: EventTypeInfo<T> } = {
  'message.new': {
    description:
      "A new message in a conversation: an inbound message, or an outbound echo (direction `outbound`: a message the business sent from its phone or another linked device, on unofficial channels). Interactive replies omit their content; read it with GET /v1/messages/{messageID}. On unofficial channels `from_lid` is the sender's privacy id (the chat network's LID) beside `from_phone`, where the provider gave it; a call is a message of type `call` (see call.received).",
    example: {
      message_id: '0190a5b4-2a7e-7c11-9d2f-5b6c7d8e9f01',
      conversation_id: '0190a5b4-2a70-7c11-9d2f-5b6c7d8e9f00',
      contact_id: '0190a5b4-1f00-7c11-9d2f-5b6c7d8e9eff',
      channel_id: '0190a5b1-0a0b-7c11-9d2f-5b6c7d8e9e00',
      direction: 'inbound',
      from_phone: '4915112345678',
      from_lid: '177766655544433',
      msg_type: 'text',
    },
  },
  'message.sent': {
    description: 'An outbound message was sent from the workspace (the provider accepted it).',
    example: {
      conversation_id: '0190a5b4-2a70-7c11-9d2f-5b6c7d8e9f00',
      message_id: '0190a5b4-3b8f-7c11-9d2f-5b6c7d8e9f02',
      channel_id: '0190a5b1-0a0b-7c11-9d2f-5b6c7d8e9e00',
    },
  },
  'message.status_update': {
    description:
      "A message's delivery status changed (delivered, read, failed, ...); status equals the message record's. On official channels a report that carries them adds the provider's `pricing` (billable, pricing_model, category, type) and its billing `conversation` (id, origin.type, expiration_timestamp: the provider's own, not Parley's conversation_id), as it sent them.",
    example: {
      message_id: '0190a5b4-3b8f-7c11-9d2f-5b6c7d8e9f02',
      status: 'delivered',
      conversation_id: '0190a5b4-2a70-7c11-9d2f-5b6c7d8e9f00',
      organization_id: ORG,
      pricing: { billable: true, pricing_model: 'PMP', category: 'utility', type: 'regular' },
      conversation: { id: '6ceb9d929c9bdc4f90e967a32f8639b4', origin: { type: 'utility' }, expiration_timestamp: '1750350173' },
    },
  },
  'message.edited': {
    description:
      "The sender changed an earlier message's text (a customer, or the business on its phone): the message record shows the new text and edited_at.",
    example: {
      message_id: '0190a5b4-2a7e-7c11-9d2f-5b6c7d8e9f01',
      conversation_id: '0190a5b4-2a70-7c11-9d2f-5b6c7d8e9f00',
      channel_id: '0190a5b1-0a0b-7c11-9d2f-5b6c7d8e9e00',
      direction: 'inbound',
      edited_at: '2025-06-02T09:15:00.000Z',
    },
  },
  'message.deleted': {
    description: 'The sender deleted an earlier message for everyone: the message record keeps its content and shows deleted_at.',
    example: {
      message_id: '0190a5b4-2a7e-7c11-9d2f-5b6c7d8e9f01',
      conversation_id: '0190a5b4-2a70-7c11-9d2f-5b6c7d8e9f00',
      channel_id: '0190a5b1-0a0b-7c11-9d2f-5b6c7d8e9e00',
      direction: 'inbound',
      deleted_at: '2025-06-02T09:16:00.000Z',
    },
  },
  'message.media_updated': {
    description:
      "An inbound message's media finished downloading: `media_status` `stored` (GET /v1/messages/{messageID}/media serves it now) or `failed` (`error_code` says why, e.g. media_too_large). The message record's `media` shows the same.",
    example: {
      message_id: '0190a5b4-2a7e-7c11-9d2f-5b6c7d8e9f01',
      conversation_id: '0190a5b4-2a70-7c11-9d2f-5b6c7d8e9f00',
      channel_id: '0190a5b1-0a0b-7c11-9d2f-5b6c7d8e9e00',
      media_status: 'stored',
      error_code: null,
      organization_id: ORG,
    },
  },
  'conversation.updated': {
    description:
      "Conversation metadata changed: assignment, status, read (the unread count went to 0), a pending, snoozed or resolved conversation opened by a customer message or the snooze wake-up, a priority change, the customer changed number, or the chat's state on a linked phone (archived, pinned, muted, marked unread, deleted: there or through the chats routes). The body carries the row as it is now: status, assignee, unread count, last preview and its time, the chat's state. A new message records message.new.",
    example: {
      conversation_id: '0190a5b4-2a70-7c11-9d2f-5b6c7d8e9f00',
      status: 'open',
      assignee_user_id: '0190a5b0-9a1b-7c11-9d2f-5b6c7d8e9d01',
      unread_count: 0,
      last_message_preview: 'Is my order on its way?',
      last_message_at: '2025-06-02T09:14:00.000Z',
      archived: false,
      pinned: true,
      muted_until: null,
      marked_unread: false,
      priority: 'high',
      snoozed_until: null,
      team_id: null,
    },
  },
  'conversation.status_changed': {
    description:
      'A conversation’s status (open, pending, snoozed, resolved), snooze time or priority changed: by a member or the API (PATCH, bulk), a customer message (opens a pending, snoozed or resolved one) or the snooze wake-up (its snoozed_until passed). conversation.updated comes beside it.',
    example: {
      conversation_id: '0190a5b4-2a70-7c11-9d2f-5b6c7d8e9f00',
      status: 'snoozed',
      previous_status: 'open',
      snoozed_until: '2025-06-03T08:00:00.000Z',
      priority: 'high',
      previous_priority: 'high',
      organization_id: ORG,
    },
  },
  'conversation.assigned': {
    description:
      'A conversation was assigned to a member, to another, or unassigned (assignee_user_id null), or moved to a team (team_id): by a member, the API, its channel routing it to a team, or the team’s assignment policy. conversation.updated comes beside it.',
    example: {
      conversation_id: '0190a5b4-2a70-7c11-9d2f-5b6c7d8e9f00',
      assignee_user_id: '0190a5b0-9a1b-7c11-9d2f-5b6c7d8e9d01',
      previous_assignee_user_id: null,
      team_id: TEAM_ID,
      previous_team_id: TEAM_ID,
      organization_id: ORG,
    },
  },
  'team.created': {
    description: 'A team was created (docs/inbox.md#teams-and-assignment).',
    example: {
      team_id: TEAM_ID,
      name: 'Support',
      assignment_policy: 'round_robin',
      default_capacity: 5,
      member_user_ids: ['0190a5b0-9a1b-7c11-9d2f-5b6c7d8e9d01'],
      organization_id: ORG,
    },
  },
  'team.updated': {
    description: 'A team’s name, assignment policy, default capacity or members (or a member’s capacity) changed.',
    example: {
      team_id: TEAM_ID,
      name: 'Support',
      assignment_policy: 'least_busy',
      default_capacity: 5,
      member_user_ids: ['0190a5b0-9a1b-7c11-9d2f-5b6c7d8e9d01', '0190a5b0-9a1b-7c11-9d2f-5b6c7d8e9d02'],
      organization_id: ORG,
    },
  },
  'team.deleted': {
    description: 'A team was deleted: its conversations and channels keep no team.',
    example: {
      team_id: TEAM_ID,
      name: 'Support',
      assignment_policy: 'least_busy',
      default_capacity: 5,
      member_user_ids: [],
      organization_id: ORG,
    },
  },
  'member.availability_changed': {
    description:
      'A member set their availability (online, away, offline), or an admin did; only online members are assigned conversations automatically.',
    example: {
      user_id: '0190a5b0-9a1b-7c11-9d2f-5b6c7d8e9d01',
      availability: 'online',
      previous_availability: 'offline',
      organization_id: ORG,
    },
  },
  'conversation.labels_changed': {
    description:
      'Conversation labels were put on a conversation or taken off (by a member, the API or a bulk action): label_ids as they now are, and which were added and removed.',
    example: {
      conversation_id: '0190a5b4-2a70-7c11-9d2f-5b6c7d8e9f00',
      label_ids: ['0196b1f2-0a00-7000-8000-0000000000d1'],
      added: ['0196b1f2-0a00-7000-8000-0000000000d1'],
      removed: [],
      organization_id: ORG,
    },
  },
  'conversation.note_created': {
    description: 'A team note was written in a conversation (never sent to the customer); mentions: the members it mentions, to notify.',
    example: {
      conversation_id: '0190a5b4-2a70-7c11-9d2f-5b6c7d8e9f00',
      note_id: '0196b1f2-0a00-7000-8000-0000000000e1',
      author_user_id: '0190a5b0-9a1b-7c11-9d2f-5b6c7d8e9d01',
      mentions: ['0190a5b0-9a1b-7c11-9d2f-5b6c7d8e9d02'],
      organization_id: ORG,
    },
  },
  'conversation.note_deleted': {
    description: 'A team note in a conversation was deleted.',
    example: {
      conversation_id: '0190a5b4-2a70-7c11-9d2f-5b6c7d8e9f00',
      note_id: '0196b1f2-0a00-7000-8000-0000000000e1',
      organization_id: ORG,
    },
  },
  'csat.submitted': {
    description:
      'A customer answered the satisfaction survey sent when their conversation was resolved (docs/inbox.md): rating 1 (very poor) to 5 (excellent), comment the words written beside the number (null when none), assignee_user_id who had the conversation when it was resolved. The conversation stays resolved.',
    example: {
      survey_id: '0196b1f2-0a00-7000-8000-0000000000f1',
      conversation_id: '0190a5b4-2a70-7c11-9d2f-5b6c7d8e9f00',
      contact_id: '0190a5b4-1f00-7c11-9d2f-5b6c7d8e9eff',
      channel_id: '0190a5b1-0a0b-7c11-9d2f-5b6c7d8e9e00',
      assignee_user_id: '0190a5b0-9a1b-7c11-9d2f-5b6c7d8e9d01',
      rating: 5,
      comment: 'quick and friendly',
      message_id: '0196b1f2-0a00-7000-8000-0000000000f2',
      organization_id: ORG,
      answered_at: '2026-05-04T10:21:07.000Z',
    },
  },
  'conversation_label.created': {
    description: 'A conversation label was created for the organization.',
    example: { label_id: '0196b1f2-0a00-7000-8000-0000000000d1', name: 'Billing', color: '#1f6feb', organization_id: ORG },
  },
  'conversation_label.updated': {
    description: 'A conversation label was renamed or recolored.',
    example: { label_id: '0196b1f2-0a00-7000-8000-0000000000d1', name: 'Invoices', color: '#1f6feb', organization_id: ORG },
  },
  'conversation_label.deleted': {
    description: 'A conversation label was deleted: it is off every conversation (no conversation.labels_changed for each).',
    example: { label_id: '0196b1f2-0a00-7000-8000-0000000000d1', name: 'Invoices', color: '#1f6feb', organization_id: ORG },
  },
  'contact.updated': {
    description: 'A contact profile was updated (also sent on some creates).',
    example: { contact_id: '0190a5b4-1f00-7c11-9d2f-5b6c7d8e9eff', name: 'Ada Lovelace', organization_id: ORG },
  },
  'bot.session_started': {
    description:
      'A bot took a conversation (docs/bots.md): started_by `trigger` (a customer message matched its trigger), `handoff` (POST /v1/conversations/{id}/handoff to a bot) or `automation` (a rule). Until its session ends the bot gets the customer messages, and no away message or greeting is sent.',
    example: {
      session_id: '0196b1f2-0a00-7000-8000-0000000000f2',
      bot_id: '0196b1f2-0a00-7000-8000-0000000000f1',
      conversation_id: '0190a5b4-2a70-7c11-9d2f-5b6c7d8e9f00',
      channel_id: '0190a5b1-0a0b-7c11-9d2f-5b6c7d8e9e00',
      organization_id: ORG,
      started_by: 'trigger',
    },
  },
  'bot.session_ended': {
    description:
      'A bot’s session on a conversation ended: `expired` (no customer message for its expire_minutes), `stop_keyword` (the customer sent it), `human_took_over` (a member replied or the conversation was assigned to one), `handoff` (POST /v1/conversations/{id}/handoff) or `bot_disabled` (the bot was disabled or deleted).',
    example: {
      session_id: '0196b1f2-0a00-7000-8000-0000000000f2',
      bot_id: '0196b1f2-0a00-7000-8000-0000000000f1',
      conversation_id: '0190a5b4-2a70-7c11-9d2f-5b6c7d8e9f00',
      channel_id: '0190a5b1-0a0b-7c11-9d2f-5b6c7d8e9e00',
      organization_id: ORG,
      reason: 'human_took_over',
    },
  },
  'conversation.handoff': {
    description:
      'Ownership of a conversation moved explicitly (POST /v1/conversations/{id}/handoff): `to` human (people own it; bot_id null) or bot (bot_id the bot now owning it); previous_bot_id the bot that owned it before, if any.',
    example: {
      conversation_id: '0190a5b4-2a70-7c11-9d2f-5b6c7d8e9f00',
      to: 'human',
      bot_id: null,
      previous_bot_id: '0196b1f2-0a00-7000-8000-0000000000f1',
      organization_id: ORG,
    },
  },
  'canned_response.created': {
    description: 'A canned response was created: shared with the organization (owner_user_id null) or a member’s own.',
    example: { canned_response_id: '0190a5b7-6eb2-7c11-9d2f-5b6c7d8e9f21', shortcut: 'hours', owner_user_id: null, organization_id: ORG },
  },
  'canned_response.updated': {
    description: 'A canned response’s name, shortcut or body changed.',
    example: {
      canned_response_id: '0190a5b7-6eb2-7c11-9d2f-5b6c7d8e9f21',
      shortcut: 'opening-hours',
      owner_user_id: null,
      organization_id: ORG,
    },
  },
  'canned_response.deleted': {
    description: 'A canned response was deleted.',
    example: {
      canned_response_id: '0190a5b7-6eb2-7c11-9d2f-5b6c7d8e9f21',
      shortcut: 'opening-hours',
      owner_user_id: '0196b1f2-0a00-7000-8000-0000000000b1',
      organization_id: ORG,
    },
  },
  'contact.merged': {
    description:
      'A contact was merged into another (POST /v1/contacts/{contactID}/merge, or an inbound message that showed two contacts are one person): its identities, comments, tags, consents, suppressions, conversations, messages, deals, tasks and relationships now belong to contact_id, and merged_contact_id is deleted (crm.record.deleted comes with it). Replace the merged id wherever you keep it.',
    example: {
      contact_id: '0190a5b4-1f00-7c11-9d2f-5b6c7d8e9eff',
      merged_contact_id: '0190a5b4-1f00-7c11-9d2f-5b6c7d8e9f00',
      organization_id: ORG,
    },
  },
  'contact.suppressed': {
    description:
      "A contact was suppressed on a channel scope (a channel id, `chatapp`, `all`, or `marketing`: broadcasts and other marketing sends skip the contact): by an opt-out, an inbound message that is exactly one of the organization's stop keywords (reason `opt_out_keyword`) or the reply of a marketing template's opt-out button (`opt_out_button`), with message_id that message; the provider's report that the customer stopped marketing messages from the phone (`opt_out_preferences`, message_id null); or through POST /v1/contacts/{contactID}/suppressions (message_id null; a new suppression or a lapsed one renewed). A contact already suppressed there records nothing.",
    example: {
      contact_id: '0190a5b4-1f00-7c11-9d2f-5b6c7d8e9eff',
      channel: 'marketing',
      reason: 'opt_out_keyword',
      expires_at: null,
      message_id: '0190a5b4-2b00-7c11-9d2f-5b6c7d8e9f01',
      organization_id: ORG,
    },
  },
  'contact.unsuppressed': {
    description:
      "A contact's suppression was lifted: by an inbound message that is exactly one of the organization's start keywords (only a suppression an opt-out created; message_id that message), by the provider's report that the customer resumed marketing messages from the phone (the same suppressions; message_id null), or through DELETE /v1/contacts/{contactID}/suppressions/{channel} (message_id null). reason and expires_at are the lifted suppression's.",
    example: {
      contact_id: '0190a5b4-1f00-7c11-9d2f-5b6c7d8e9eff',
      channel: 'marketing',
      reason: 'opt_out_keyword',
      expires_at: null,
      message_id: '0190a5b4-2b00-7c11-9d2f-5b6c7d8e9f02',
      organization_id: ORG,
    },
  },
  'template.status_update': {
    description: "A message template's approval status changed (on sync or the provider's decision).",
    example: { template_id: '0190a5b5-4c90-7c11-9d2f-5b6c7d8e9f03', status: 'approved' },
  },
  'template.quality_update': {
    description:
      "The provider's quality report on a message template changed: its score (`quality_score`: GREEN, YELLOW, RED, UNKNOWN), or a warning raised (`flagged`: negative feedback, at risk of being paused or disabled; it can still be sent) or lifted (reinstated). The template's status is unchanged unless template.status_update says otherwise.",
    example: {
      template_id: '0190a5b5-4c90-7c11-9d2f-5b6c7d8e9f03',
      status: 'approved',
      quality_score: 'YELLOW',
      flagged: true,
      reason: 'Your template has received negative feedback from customers.',
    },
  },
  'group.updated': {
    description:
      "A group the channel's number is in changed. Official channels: as the provider reported it (group created or deleted, settings changed, participants added or removed; `change` is the provider's own name of it, the other fields what it reported). Unofficial channels: `change` is group_join (the number was added, created it or joined by link), group_leave, group_settings_update (the new subject, about text or `settings`, only those that changed), group_add_participants, group_remove_participants, group_promote_participants or group_demote_participants (the participants by phone as `wa_id`, with `lid` their privacy id where known), and `author` the phone that made the change, where known.",
    example: {
      channel_id: '0190a5b1-0a0b-7c11-9d2f-5b6c7d8e9e00',
      organization_id: ORG,
      group_id: '120363025246125888@g.us',
      change: 'group_add_participants',
      request_id: null,
      added_participants: [{ wa_id: '4915112345678', lid: '80221345678901' }],
      author: '4915198765432',
      occurred_at: '2025-06-02T09:15:00.000Z',
    },
  },
  'presence.updated': {
    description:
      "A contact's presence changed (unofficial channels): `available` or `unavailable` (with `last_seen` where the contact shares it), `composing` (typing), `recording` (a voice note) or `paused`. Sent for contacts whose presence the channel subscribed to (the channel's presence subscribe route) and for members typing in its groups (`chat_id` the group).",
    example: {
      channel_id: '0190a5b1-0a0b-7c11-9d2f-5b6c7d8e9e00',
      organization_id: ORG,
      phone: '4915112345678',
      lid: null,
      chat_id: null,
      presence: 'composing',
      last_seen: null,
      occurred_at: '2025-06-02T09:15:00.000Z',
    },
  },
  'label.updated': {
    description:
      "A business label of an unofficial channel's number was made, renamed, recolored (`color`: 0-19, the chat app's palette) or deleted (`deleted: true`), on the phone, another linked device or through the channel's label routes. `label_id` is the engine's id of it.",
    example: {
      channel_id: '0190a5b1-0a0b-7c11-9d2f-5b6c7d8e9e00',
      organization_id: ORG,
      label_id: '3',
      name: 'Paid',
      color: 5,
      deleted: false,
      occurred_at: '2025-06-02T09:15:00.000Z',
    },
  },
  'label.assigned': {
    description:
      "A label was put on a chat: `chat_id` is the contact's phone (E.164) or the group id; `message_id` names the message when the label went on one message of the chat (null for the chat itself).",
    example: {
      channel_id: '0190a5b1-0a0b-7c11-9d2f-5b6c7d8e9e00',
      organization_id: ORG,
      label_id: '3',
      chat_id: '+4915112345678',
      message_id: null,
      occurred_at: '2025-06-02T09:15:00.000Z',
    },
  },
  'label.unassigned': {
    description: 'A label was taken off a chat (or one message of it): the same fields as label.assigned.',
    example: {
      channel_id: '0190a5b1-0a0b-7c11-9d2f-5b6c7d8e9e00',
      organization_id: ORG,
      label_id: '3',
      chat_id: '120363025246125888@g.us',
      message_id: null,
      occurred_at: '2025-06-02T09:15:00.000Z',
    },
  },
  'status.received': {
    description:
      "A contact posted a status (a story) that the channel's number may see. Only on unofficial channels that keep status posts (the channel's `status_messages` setting; off, they are ignored). The post is an inbound message (`message_id`, with `content.status_post: true`) in the channel's status@broadcast conversation; message.new announces it too.",
    example: {
      channel_id: '0190a5b1-0a0b-7c11-9d2f-5b6c7d8e9e00',
      organization_id: ORG,
      message_id: '0190a5b4-2a01-7c11-9d2f-5b6c7d8e9f01',
      conversation_id: '0190a5b4-2a00-7c11-9d2f-5b6c7d8e9f00',
      contact_id: '0190a5b4-1f00-7c11-9d2f-5b6c7d8e9eff',
      from_phone: '+4915112345678',
      type: 'image',
      occurred_at: '2025-06-02T09:15:00.000Z',
    },
  },
  'commerce.order.updated': {
    description:
      "An order was placed (by an inbound order message or POST /v1/orders: status and payment_status `pending` unless given), or its status or payment status changed (PATCH /v1/orders/{orderID}). order_no is the order's number in the organization. crm.record.created or crm.record.updated (object_kind `order`) comes with it; GET /v1/orders/{orderID} has its items and total.",
    example: { order_id: '0190a5b6-5da1-7c11-9d2f-5b6c7d8e9f04', order_no: '1042', status: 'shipped', payment_status: 'paid' },
  },
  'call.received': {
    description:
      "A call to an unofficial channel's number is ringing. It is kept as a `call` message in the caller's conversation (`message_id`; message.new announces it), whose `content.status` follows the call: ringing, then answered, rejected, missed or ended (the events below). Reject it with POST /v1/channels/{channelID}/calls/{callID}/reject (or the channel's `reject_calls` setting).",
    example: CALL_EXAMPLE,
  },
  'call.accepted': {
    description: 'A ringing call was answered (on the phone or another of its devices).',
    example: { ...CALL_EXAMPLE, status: 'answered' },
  },
  'call.rejected': {
    description:
      "A ringing call was rejected: `rejected_by` `parley` (the reject route, or the channel's `reject_calls` setting) or `phone` (on the phone or another device).",
    example: { ...CALL_EXAMPLE, status: 'rejected', rejected_by: 'parley' },
  },
  'call.missed': {
    description:
      'A call rang out (nobody answered) or the caller hung up before it was answered: the missed call stays in the conversation.',
    example: { ...CALL_EXAMPLE, status: 'missed' },
  },
  'call.ended': {
    description: 'An answered call ended.',
    example: { ...CALL_EXAMPLE, status: 'ended' },
  },
  'channel.status_update': {
    description: "A channel's status changed (pending, connected, disconnected, error, pairing), with the reason.",
    example: {
      channel_id: '0190a5b1-0a0b-7c11-9d2f-5b6c7d8e9e00',
      status: 'connected',
      previous_status: 'pairing',
      reason: 'the phone scanned the QR code',
      reason_code: null,
      organization_id: ORG,
    },
  },
  'crm.record.created': { description: 'A CRM record was created.', example: CRM_RECORD },
  'crm.record.updated': { description: 'A CRM record was updated.', example: CRM_RECORD },
  'crm.record.deleted': { description: 'A CRM record was deleted.', example: CRM_RECORD },
  'crm.deal.stage_changed': {
    description:
      "A deal moved to another stage: by a change of its stage_id (or pipeline_id), or because its stage or pipeline was deleted with move_deals_to. pipeline_id is the deal's pipeline after the move; crm.record.updated comes with it. GET /v1/deals/{dealID}/stage-history has every move.",
    example: {
      deal_id: '0190a5b3-2222-7e4f-8a1b-2c3d4e5f6a7b',
      pipeline_id: '0190a5b3-3333-7e4f-8a1b-2c3d4e5f6a7b',
      from_stage_id: '0190a5b3-4444-7e4f-8a1b-2c3d4e5f6a7b',
      to_stage_id: '0190a5b3-5555-7e4f-8a1b-2c3d4e5f6a7b',
      organization_id: ORG,
    },
  },
  'crm.task.completed': {
    description:
      'A task was completed (POST /v1/tasks/{taskID}/complete); crm.record.updated comes with it. completed_by is who completed it: a user, an API key or an OAuth client for its user. Reopening a task records crm.record.updated only.',
    example: {
      task_id: TASK_ID,
      title: 'Send the revised offer',
      assignee_user_id: '0190a5b3-6666-7e4f-8a1b-2c3d4e5f6a7b',
      due_at: '2025-06-05T09:00:00.000Z',
      completed_at: '2025-06-04T16:20:00.000Z',
      completed_by: { type: 'user', id: '0190a5b3-6666-7e4f-8a1b-2c3d4e5f6a7b', user_id: '0190a5b3-6666-7e4f-8a1b-2c3d4e5f6a7b' },
      organization_id: ORG,
    },
  },
  'broadcast.started': {
    description:
      'A broadcast began sending: its audience was resolved and frozen (recipients: every recipient recorded; skipped: those skipped with a reason). Its messages follow, each with broadcast_id.',
    example: {
      broadcast_id: '0190a5b3-9999-7e4f-8a1b-2c3d4e5f6a7b',
      name: 'June newsletter',
      channel_id: '0190a5b3-1111-7e4f-8a1b-2c3d4e5f6a7b',
      recipients: 1200,
      skipped: 37,
      organization_id: ORG,
    },
  },
  'broadcast.paused': {
    description:
      'A broadcast was paused (POST /v1/broadcasts/{broadcastID}/pause), or paused itself because the provider paused or disabled its template (`reason`: template_paused or template_disabled, with the template; absent for a pause by a person): no recipient is handed to dispatch until it is resumed.',
    example: {
      broadcast_id: '0190a5b3-9999-7e4f-8a1b-2c3d4e5f6a7b',
      name: 'June newsletter',
      channel_id: '0190a5b3-1111-7e4f-8a1b-2c3d4e5f6a7b',
      organization_id: ORG,
    },
  },
  'broadcast.completed': {
    description:
      'Every recipient of a broadcast was handed to dispatch or skipped. Delivery goes on: GET /v1/broadcasts/{broadcastID}/report counts the statuses as they arrive.',
    example: {
      broadcast_id: '0190a5b3-9999-7e4f-8a1b-2c3d4e5f6a7b',
      name: 'June newsletter',
      channel_id: '0190a5b3-1111-7e4f-8a1b-2c3d4e5f6a7b',
      recipients: 1200,
      skipped: 37,
      organization_id: ORG,
    },
  },
  'broadcast.variant_won': {
    description:
      'A broadcast’s A/B test was decided at its decide_at: the variant with the best rate of the metric (read or replied, over each variant’s messages sent) won (a tie: the earlier variant), and the rest of the audience (rest) is sent its template.',
    example: {
      broadcast_id: '0190a5b3-9999-7e4f-8a1b-2c3d4e5f6a7b',
      name: 'June newsletter',
      channel_id: '0190a5b3-1111-7e4f-8a1b-2c3d4e5f6a7b',
      organization_id: ORG,
      variant: 1,
      template: { name: 'june_newsletter_b', language: 'en_US' },
      metric: 'read',
      variants: [
        { variant: 0, sent: 120, read: 54, rate: 0.45 },
        { variant: 1, sent: 120, read: 66, rate: 0.55 },
      ],
      rest: 960,
    },
  },
  'automation.run': {
    description:
      'An automation rule ran for a trigger and its conditions held (docs/automations.md): how many of its actions were done and how many failed; the run log (GET /v1/automations/{automationID}/runs) has each. Every action also records its own events.',
    example: {
      rule_id: '0190a5b3-abab-7e4f-8a1b-2c3d4e5f6a7b',
      run_id: '0190a5b3-cdcd-7e4f-8a1b-2c3d4e5f6a7b',
      trigger: 'message_received',
      conversation_id: '0190a5b3-efef-7e4f-8a1b-2c3d4e5f6a7b',
      actions_done: 2,
      actions_failed: 0,
      organization_id: ORG,
    },
  },
  'crm.task.due': {
    description:
      'An open task’s due time passed: recorded once per due time, within about a minute of it. A new due_at arms it again; a task completed before its due time never has it.',
    example: {
      task_id: TASK_ID,
      title: 'Send the revised offer',
      due_at: '2025-06-05T09:00:00.000Z',
      assignee_user_id: '0190a5b3-6666-7e4f-8a1b-2c3d4e5f6a7b',
      organization_id: ORG,
    },
  },
  'crm.relationship.linked': {
    description:
      'Two records were linked with a label (POST /v1/relationships). label reads from the from record ("works at"), inverse_label from the to record ("employs"; null when the label reads the same both ways).',
    example: RELATIONSHIP,
  },
  'crm.relationship.unlinked': {
    description:
      'A link between two records was deleted, or its label was. A record deleted takes its links with it without this event: its crm.record.deleted says so.',
    example: RELATIONSHIP,
  },
  'crm.comment.created': {
    description: 'A comment was added to a CRM record.',
    example: {
      comment_id: '0190a5b7-6eb2-7c11-9d2f-5b6c7d8e9f05',
      record_id: CRM_RECORD.record_id,
      object_kind: 'company',
      organization_id: ORG,
    },
  },
  'crm.comment.updated': {
    description: 'A comment’s author changed its body. GET /v1/comments/{commentID} reads it.',
    example: {
      comment_id: '0190a5b7-6eb2-7c11-9d2f-5b6c7d8e9f05',
      record_id: CRM_RECORD.record_id,
      object_kind: 'company',
      organization_id: ORG,
    },
  },
  'crm.comment.deleted': {
    description: 'A comment was removed from a CRM record.',
    example: {
      comment_id: '0190a5b7-6eb2-7c11-9d2f-5b6c7d8e9f05',
      record_id: CRM_RECORD.record_id,
      object_kind: 'company',
      organization_id: ORG,
    },
  },
  'crm.list.entry_added': {
    description:
      'A record was added to a list (POST /v1/lists/{listID}/entries, or a merged contact’s list passing to the survivor): list is its name, list_id its id. A tag assigned to a contact records it too, with the tag’s name as list and list_id null.',
    example: {
      list: 'Newsletter',
      list_id: '0190a5b3-7777-7e4f-8a1b-2c3d4e5f6a7b',
      record_id: CRM_RECORD.record_id,
      object_kind: 'company',
      organization_id: ORG,
    },
  },
  'crm.list.entry_removed': {
    description:
      'A record was removed from a list (DELETE /v1/lists/{listID}/entries/{recordID}), or a tag from a contact (list_id null). A list or record deleted takes its entries without this event: its crm.record.deleted says so.',
    example: {
      list: 'Newsletter',
      list_id: '0190a5b3-7777-7e4f-8a1b-2c3d4e5f6a7b',
      record_id: CRM_RECORD.record_id,
      object_kind: 'company',
      organization_id: ORG,
    },
  },
  'crm.import.committed': {
    description:
      'An import finished and its rows were written: contacts (POST /v1/contacts/import), companies (POST /v1/companies/import) or deals (POST /v1/deals/import), as object_kind says. A dry run records none.',
    example: {
      import_id: '0190a5b8-7fc3-7c11-9d2f-5b6c7d8e9f06',
      object_kind: 'contact',
      created: 120,
      updated: 14,
      unchanged: 3,
      failed: 2,
      organization_id: ORG,
    },
  },
};

/** The catalogue in EVENT_TYPES order, as the settings route lists it (`reserved` always said). */
export function eventTypeCatalog(): Array<{ type: EventType; description: string; example: EventBodies[EventType]; reserved: boolean }> {
  return EVENT_TYPES.map((type) => {
    const info = EVENT_CATALOG[type] as EventTypeInfo;
    return { type, description: info.description, example: info.example, reserved: info.reserved === true };
  });
}

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}
