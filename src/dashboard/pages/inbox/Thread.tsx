/**
 * One conversation: its header (who, which channel, open or closed, assignee), every message oldest to
 * newest with older ones on demand, each outbound message's delivery status as it moves, and the composer.
 * Opening it marks it read; live events refresh it (live.tsx invalidates the 'messages' and 'conversations' keys).
 */
import { useEffect, useLayoutEffect, useRef } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, errorMessage } from '../../api.ts';
import { formatDate } from '../../format.ts';
import { formErrors } from '../../forms.tsx';
import { orgKey, usePagedList } from '../../query.ts';
import { Link } from '../../router.tsx';
import { useCan, useSession } from '../../session.tsx';
import { ErrorMessage, Loading, StatusBadge, usePageTitle } from '../../ui.tsx';
import {
  conversationTitle,
  inboxApi,
  PRIORITIES,
  useChannelName,
  type Conversation,
  type Message,
  type UpdateChatRequest,
  type UpdateConversationRequest,
} from './api.ts';
import { BotOwner } from './BotOwner.tsx';
import { ChatLabels } from './ChatLabels.tsx';
import { MessageActions } from './MessageActions.tsx';
import { Composer } from './Composer.tsx';
import { MessageContent } from './MessageContent.tsx';

export function Thread({ conversationId, backTo }: { conversationId: string; backTo: string }) {
  const conversation = useQuery({
    queryKey: orgKey('conversations', 'one', conversationId),
    queryFn: () => inboxApi.conversation(conversationId),
  });
  const title = conversation.data ? conversationTitle(conversation.data) : 'Conversation';
  usePageTitle(`${title} · Inbox`);
  return (
    <section className="thread" aria-labelledby="thread-title">
      <Link to={backTo} className="thread-back">
        ← All conversations
      </Link>
      {conversation.error ? (
        <>
          <h2 id="thread-title">Conversation</h2>
          <ErrorMessage
            message={
              conversation.error instanceof ApiError && conversation.error.status === 404
                ? 'This conversation does not exist, or it belongs to another organization.'
                : errorMessage(conversation.error)
            }
          />
        </>
      ) : !conversation.data ? (
        <>
          <h2 id="thread-title" className="visually-hidden">
            Conversation
          </h2>
          <Loading />
        </>
      ) : (
        <OpenThread conversation={conversation.data} />
      )}
    </section>
  );
}

function useMarkRead(conversation: Conversation, allowed: boolean) {
  const queryClient = useQueryClient();
  const pending = useRef(false);
  const { id, unread_count: unread } = conversation;
  useEffect(() => {
    if (!allowed || !unread || pending.current) return;
    pending.current = true;
    inboxApi
      .markRead(id)
      .catch(() => undefined)
      .finally(() => {
        pending.current = false;
        void queryClient.invalidateQueries({ queryKey: orgKey('conversations') });
      });
  }, [id, unread, allowed, queryClient]);
}

function OpenThread({ conversation }: { conversation: Conversation }) {
  // Marking read is a change to the conversation: it needs messages:send, like the API says.
  const canSend = useCan('messages:send');
  useMarkRead(conversation, canSend);
  const messages = usePagedList(orgKey('messages', conversation.id), (cursor) => inboxApi.messages(conversation.id, cursor));
  const contactName = conversation.contact?.name?.trim();
  const channelName = useChannelName(conversation);
  return (
    <>
      <header className="thread-header">
        <div className="thread-who">
          <h2 id="thread-title">{conversationTitle(conversation)}</h2>
          <p className="small muted">
            {contactName ? `+${conversation.peer_phone} · ` : ''}
            {channelName ?? 'Channel'}
            {conversation.contact_id ? (
              <>
                {' · '}
                <Link to={`/contacts/${conversation.contact_id}`}>Contact</Link>
              </>
            ) : null}
          </p>
          <ChatLabels conversation={conversation} />
        </div>
        {canSend ? <ConversationControls conversation={conversation} /> : <StatusBadge status={conversation.status} />}
      </header>
      <BotOwner conversation={conversation} />
      {canSend ? <ChatControls conversation={conversation} /> : null}
      <MessageList conversation={conversation} list={messages} />
      {canSend ? <Composer conversation={conversation} /> : <p className="muted small">Your role can read conversations but not reply.</p>}
    </>
  );
}

/** Status (resolve, reopen), priority, the labels and the assignee, changed with PATCH /v1/conversations/{id}. */
function ConversationControls({ conversation }: { conversation: Conversation }) {
  const session = useSession();
  const queryClient = useQueryClient();
  const canListMembers = useCan('members:read');
  const members = useQuery({
    queryKey: orgKey('members'),
    queryFn: () => inboxApi.members(session.organization_id),
    enabled: canListMembers,
    staleTime: 60_000,
  });
  const update = useMutation({
    mutationFn: (body: UpdateConversationRequest) => inboxApi.update(conversation.id, body),
    onSuccess: (updated) => {
      queryClient.setQueryData(orgKey('conversations', 'one', conversation.id), updated);
      void queryClient.invalidateQueries({ queryKey: orgKey('conversations') });
    },
  });
  const me = session.user.id;
  const assigneeId = conversation.assignee_user_id ?? '';
  const people = new Map<string, string>((members.data ?? []).map((m) => [m.user_id, m.name]));
  people.set(me, `${session.user.name} (me)`);
  if (conversation.assignee && !people.has(conversation.assignee.id)) people.set(conversation.assignee.id, conversation.assignee.name);
  const errors = formErrors(update.error);
  const fieldError = errors.field('/assignee_user_id');

  return (
    <div className="thread-controls">
      <StatusBadge status={conversation.status} />
      {conversation.labels.length > 0 ? (
        <ul className="conversation-labels" aria-label="Labels">
          {conversation.labels.map((l) => (
            <li key={l.id} className="badge conversation-label" style={{ borderColor: l.color }}>
              {l.name}
            </li>
          ))}
        </ul>
      ) : null}
      <div className="field thread-priority">
        <label htmlFor={`priority-${conversation.id}`}>Priority</label>
        <select
          id={`priority-${conversation.id}`}
          value={conversation.priority}
          disabled={update.isPending}
          onChange={(e) => update.mutate({ priority: e.target.value as UpdateConversationRequest['priority'] })}
        >
          {PRIORITIES.map((p) => (
            <option key={p.value} value={p.value}>
              {p.label}
            </option>
          ))}
        </select>
      </div>
      <div className="field thread-assignee">
        <label htmlFor={`assignee-${conversation.id}`}>Assignee</label>
        <select
          id={`assignee-${conversation.id}`}
          value={assigneeId}
          disabled={update.isPending}
          aria-invalid={fieldError ? true : undefined}
          onChange={(e) => update.mutate({ assignee_user_id: e.target.value || null })}
        >
          <option value="">Unassigned</option>
          {[...people].map(([id, name]) => (
            <option key={id} value={id}>
              {name}
            </option>
          ))}
        </select>
      </div>
      {assigneeId !== me ? (
        <button
          type="button"
          className="button"
          data-shortcut="assign-me"
          aria-keyshortcuts="a"
          disabled={update.isPending}
          onClick={() => update.mutate({ assignee_user_id: me })}
        >
          Assign to me
        </button>
      ) : null}
      {conversation.status !== 'resolved' ? (
        <button
          type="button"
          className="button"
          data-shortcut="resolve"
          aria-keyshortcuts="e"
          disabled={update.isPending}
          onClick={() => update.mutate({ status: 'resolved' })}
        >
          Resolve
        </button>
      ) : (
        <button type="button" className="button" disabled={update.isPending} onClick={() => update.mutate({ status: 'open' })}>
          Reopen
        </button>
      )}
      <ErrorMessage message={fieldError ?? errors.message} onDismiss={() => update.reset()} />
    </div>
  );
}

/** Hours a chat is muted for from the thread's button. */
const MUTE_HOURS = 8;

/**
 * The chat on a linked phone (channels with chats.manage): archive, pin, mute and mark unread, made on the
 * phone through PATCH /v1/channels/{id}/chats/{chatID}; the conversation shows the state it keeps.
 */
function ChatControls({ conversation }: { conversation: Conversation }) {
  const queryClient = useQueryClient();
  const capabilities = useQuery({
    queryKey: orgKey('channels', conversation.channel_id, 'capabilities'),
    queryFn: () => inboxApi.capabilities(conversation.channel_id),
    staleTime: 60_000,
  });
  const change = useMutation({
    mutationFn: (body: UpdateChatRequest) => inboxApi.updateChat(conversation, body),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: orgKey('conversations') }),
  });
  const history = useMutation({ mutationFn: () => inboxApi.fetchHistory(conversation) });
  if (!capabilities.data?.operations.includes('chats.manage') || conversation.peer_phone.endsWith('@broadcast')) return null;
  const muted = conversation.muted_until !== null && new Date(conversation.muted_until).getTime() > Date.now();
  const errors = formErrors(change.error ?? history.error);
  const busy = change.isPending;
  return (
    <div className="thread-controls thread-chat" role="group" aria-label="Chat on the phone">
      <span className="small muted">
        On the phone:{' '}
        {[
          conversation.archived ? 'archived' : null,
          conversation.pinned ? 'pinned' : null,
          muted ? 'muted' : null,
          conversation.marked_unread ? 'marked unread' : null,
        ]
          .filter(Boolean)
          .join(', ') || 'in the chat list'}
      </span>
      <button type="button" className="button" disabled={busy} onClick={() => change.mutate({ archived: !conversation.archived })}>
        {conversation.archived ? 'Unarchive' : 'Archive'}
      </button>
      <button type="button" className="button" disabled={busy} onClick={() => change.mutate({ pinned: !conversation.pinned })}>
        {conversation.pinned ? 'Unpin' : 'Pin'}
      </button>
      <button
        type="button"
        className="button"
        disabled={busy}
        onClick={() => change.mutate({ muted_until: muted ? null : new Date(Date.now() + MUTE_HOURS * 3_600_000).toISOString() })}
      >
        {muted ? 'Unmute' : `Mute ${MUTE_HOURS} hours`}
      </button>
      {capabilities.data.operations.includes('chats.history') ? (
        <button type="button" className="button" disabled={history.isPending} onClick={() => history.mutate()}>
          {history.isSuccess ? 'Asked the phone for earlier messages' : 'Earlier messages from the phone'}
        </button>
      ) : null}
      {conversation.marked_unread || conversation.unread_count > 0 ? null : (
        <button type="button" className="button" disabled={busy} onClick={() => change.mutate({ unread: true })}>
          Mark unread
        </button>
      )}
      <ErrorMessage
        message={errors.message}
        onDismiss={() => {
          change.reset();
          history.reset();
        }}
      />
    </div>
  );
}

function MessageList({ conversation, list }: { conversation: Conversation; list: ReturnType<typeof usePagedList<Message>> }) {
  const scroller = useRef<HTMLDivElement>(null);
  const capabilities = useQuery({
    queryKey: orgKey('channels', conversation.channel_id, 'capabilities'),
    queryFn: () => inboxApi.capabilities(conversation.channel_id),
    staleTime: 60_000,
  });
  const operations = capabilities.data?.operations ?? [];
  const items = list.items ? [...list.items].reverse() : undefined;
  const newest = list.items?.[0];
  const seenNewest = useRef<string | undefined>(undefined);
  // Keep the newest message in view when one arrives (not when older ones are loaded above).
  useLayoutEffect(() => {
    if (!newest || newest.id === seenNewest.current) return;
    seenNewest.current = newest.id;
    const el = scroller.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [newest]);

  return (
    <div
      className="thread-messages"
      ref={scroller}
      tabIndex={0}
      aria-label={`Messages with ${conversationTitle(conversation)}`}
      role="region"
    >
      {list.hasMore ? (
        <div className="load-more">
          <button type="button" className="button" onClick={list.loadMore} disabled={list.loadingMore}>
            {list.loadingMore ? 'Loading…' : 'Load older messages'}
          </button>
        </div>
      ) : null}
      {list.error && !items ? <ErrorMessage message={errorMessage(list.error)} /> : null}
      {!items && !list.error ? <Loading label="Loading messages…" /> : null}
      {items && items.length === 0 ? <p className="muted">No messages yet.</p> : null}
      {items ? (
        <ol className="messages">
          {items.map((m) => (
            <MessageItem key={m.id} message={m} operations={operations} />
          ))}
        </ol>
      ) : null}
    </div>
  );
}

function MessageItem({ message, operations }: { message: Message; operations: readonly string[] }) {
  const outbound = message.direction === 'outbound';
  return (
    <li className={`message ${outbound ? 'message-out' : 'message-in'}`} data-status={message.status} data-message-id={message.id}>
      <div className="message-bubble">
        {message.deleted_at ? (
          <p className="small muted" role="note">
            <em>
              {outbound ? 'You deleted this message' : 'The customer deleted this message'} ({formatDate(message.deleted_at)}). It read:
            </em>
          </p>
        ) : null}
        <MessageContent message={message} />
      </div>
      <div className="message-meta small muted">
        <span className="visually-hidden">{outbound ? 'Sent by you' : 'From the customer'}, </span>
        <time dateTime={message.created_at}>{formatDate(message.created_at)}</time>
        {message.edited_at ? <span title={`Edited ${formatDate(message.edited_at)}`}> · edited</span> : null}
        {outbound ? (
          <span className="message-status" aria-live="polite">
            <StatusBadge status={message.status} />
          </span>
        ) : null}
      </div>
      <MessageActions message={message} operations={operations} />
      {message.error ? (
        <p className="message-error small" role="note">
          <strong>{message.error.title}</strong> ({message.error.code}){message.error.message ? `: ${message.error.message}` : ''}
          {message.error.user_message ? ` ${message.error.user_message}` : ''}
        </p>
      ) : null}
    </li>
  );
}
