/**
 * The inbox: conversations (who, channel, last message, unread count, open or closed, assignee) with
 * filters and search kept in the URL, and the selected conversation's thread beside the list on wide
 * screens (alone, with a back link, on phones). The list refreshes by itself on live events. "New message"
 * starts a conversation with a number.
 */
import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { formatDate } from '../../format.ts';
import { orgKey, usePagedList } from '../../query.ts';
import { Link, useParams, useSearchParams } from '../../router.tsx';
import { EmptyState, ListState, PageHeader, Pager, StatusBadge } from '../../ui.tsx';
import { SelectField, TextField } from '../../forms.tsx';
import {
  conversationTitle,
  inboxApi,
  PRIORITIES,
  useChannelName,
  useChannels,
  type Conversation,
  type ConversationFilters,
} from './api.ts';
import { NewMessageButton } from './NewMessage.tsx';
import { ShortcutHelp, useInboxShortcuts } from './shortcuts.tsx';
import { Thread } from './Thread.tsx';

const FILTER_PARAMS = ['status', 'priority', 'label', 'channel', 'team', 'assignee', 'unread', 'q'] as const;

function filtersOf(params: URLSearchParams): ConversationFilters {
  const get = (name: string) => params.get(name) || undefined;
  return {
    status: get('status'),
    priority: get('priority'),
    label: get('label'),
    channel_id: get('channel'),
    team_id: get('team'),
    assignee: get('assignee'),
    unread: params.get('unread') === 'true' ? 'true' : undefined,
    q: get('q')?.trim() || undefined,
  };
}

export function InboxPage() {
  const { conversationId } = useParams();
  const [params] = useSearchParams();
  const search = params.toString() ? `?${params.toString()}` : '';
  const shortcuts = useInboxShortcuts();
  const [helpOpen, setHelpOpen] = useState(false);
  return (
    <div className={conversationId ? 'inbox inbox-has-thread' : 'inbox'}>
      <ShortcutHelp
        open={helpOpen || shortcuts.helpOpen}
        onClose={() => {
          setHelpOpen(false);
          shortcuts.closeHelp();
        }}
      />
      <div className="inbox-list-pane">
        <PageHeader title="Inbox">
          <button type="button" className="button" aria-keyshortcuts="?" onClick={() => setHelpOpen(true)}>
            Shortcuts
          </button>
          <NewMessageButton />
        </PageHeader>
        <Filters />
        <ConversationList selected={conversationId} search={search} />
      </div>
      <div className="inbox-thread-pane">
        {conversationId ? (
          <Thread key={conversationId} conversationId={conversationId} backTo={`/inbox${search}`} />
        ) : (
          <div className="thread-placeholder">
            <p className="muted">Choose a conversation to read and reply.</p>
          </div>
        )}
      </div>
    </div>
  );
}

type FilterParam = (typeof FILTER_PARAMS)[number];

/**
 * The filters as the controls show them: the URL's, or the value just chosen until the URL has it (a
 * navigation commits a moment later; meanwhile a controlled checkbox or select would snap back).
 */
function useFilterParams() {
  const [params, setParams] = useSearchParams();
  const [pending, setPending] = useState<Partial<Record<FilterParam, string>>>({});
  const arrived = (Object.keys(pending) as FilterParam[]).filter((name) => (params.get(name) ?? '') === pending[name]);
  if (arrived.length > 0) {
    const rest = { ...pending };
    for (const name of arrived) delete rest[name];
    setPending(rest);
  }
  function set(changes: Partial<Record<FilterParam, string | undefined>>) {
    setPending((prev) => ({ ...prev, ...Object.fromEntries(Object.entries(changes).map(([k, v]) => [k, v ?? ''])) }));
    setParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        for (const [name, value] of Object.entries(changes)) {
          if (value) next.set(name, value);
          else next.delete(name);
        }
        return next;
      },
      { replace: true },
    );
  }
  return { value: (name: FilterParam) => pending[name] ?? params.get(name) ?? '', set, params };
}

function Filters() {
  const filters = useFilterParams();
  const { params } = filters;
  const [query, setQuery] = useState(params.get('q') ?? '');
  const channels = useChannels();
  const labels = useQuery({ queryKey: orgKey('conversation-labels'), queryFn: () => inboxApi.conversationLabels(), staleTime: 60_000 });
  const teams = useQuery({ queryKey: orgKey('teams', 'all'), queryFn: () => inboxApi.teams(), staleTime: 60_000 });

  const set = (name: FilterParam, value: string | undefined) => filters.set({ [name]: value });
  function onSearch(event: FormEvent) {
    event.preventDefault();
    set('q', query.trim() || undefined);
  }
  const active = FILTER_PARAMS.some((p) => filters.value(p));

  return (
    <div className="inbox-filters">
      <form role="search" className="inbox-search" onSubmit={onSearch}>
        <TextField label="Search" type="search" value={query} onChange={setQuery} placeholder="Name, number or message" />
        <button type="submit" className="button">
          Search
        </button>
      </form>
      <div className="inbox-filter-row">
        <SelectField
          label="Status"
          value={filters.value('status')}
          onChange={(v) => set('status', v)}
          options={[
            { value: '', label: 'All' },
            { value: 'open', label: 'Open' },
            { value: 'pending', label: 'Pending' },
            { value: 'snoozed', label: 'Snoozed' },
            { value: 'resolved', label: 'Resolved' },
          ]}
        />
        <SelectField
          label="Priority"
          value={filters.value('priority')}
          onChange={(v) => set('priority', v)}
          options={[{ value: '', label: 'Any priority' }, ...PRIORITIES.filter((p) => p.value !== 'none')]}
        />
        {(labels.data ?? []).length > 0 ? (
          <SelectField
            label="Label"
            value={filters.value('label')}
            onChange={(v) => set('label', v)}
            options={[{ value: '', label: 'Any label' }, ...(labels.data ?? []).map((l) => ({ value: l.id, label: l.name }))]}
          />
        ) : null}
        <SelectField
          label="Channel"
          value={filters.value('channel')}
          onChange={(v) => set('channel', v)}
          options={[{ value: '', label: 'All channels' }, ...(channels.data ?? []).map((c) => ({ value: c.id, label: c.name }))]}
        />
        {(teams.data ?? []).length > 0 ? (
          <SelectField
            label="Team"
            value={filters.value('team')}
            onChange={(v) => set('team', v)}
            options={[{ value: '', label: 'Any team' }, ...(teams.data ?? []).map((t) => ({ value: t.id, label: t.name }))]}
          />
        ) : null}
        <SelectField
          label="Assigned"
          value={filters.value('assignee')}
          onChange={(v) => set('assignee', v)}
          options={[
            { value: '', label: 'Anyone' },
            { value: 'me', label: 'Assigned to me' },
            { value: 'none', label: 'Unassigned' },
          ]}
        />
        {filters.value('team') ? (
          <button
            type="button"
            className="button"
            aria-pressed={filters.value('assignee') === 'none' && filters.value('status') === 'open'}
            onClick={() => filters.set({ assignee: 'none', status: 'open' })}
          >
            Team queue
          </button>
        ) : null}
        <div className="field field-check inbox-unread">
          <input
            id="inbox-unread"
            type="checkbox"
            checked={filters.value('unread') === 'true'}
            onChange={(e) => set('unread', e.target.checked ? 'true' : undefined)}
          />
          <label htmlFor="inbox-unread">Unread only</label>
        </div>
      </div>
      {active ? (
        <button
          type="button"
          className="link-button small"
          onClick={() => {
            setQuery('');
            filters.set(Object.fromEntries(FILTER_PARAMS.map((p) => [p, undefined])));
          }}
        >
          Clear filters
        </button>
      ) : null}
    </div>
  );
}

function ConversationList({ selected, search }: { selected: string | undefined; search: string }) {
  const [params] = useSearchParams();
  const filters = filtersOf(params);
  const list = usePagedList(orgKey('conversations', 'list', filters), (cursor) => inboxApi.conversations(filters, cursor));
  const filtered = Object.values(filters).some(Boolean);
  return (
    <nav aria-label="Conversations" className="conversation-nav">
      <ListState
        items={list.items}
        error={list.error}
        empty={
          <EmptyState title={filtered ? 'No conversation matches' : 'No conversations yet'}>
            {filtered ? 'Change or clear the filters.' : 'When a customer writes to one of your channels, the conversation appears here.'}
          </EmptyState>
        }
      >
        {(items) => (
          <ul className="conversations">
            {items.map((c) => (
              <ConversationRow key={c.id} conversation={c} current={c.id === selected} search={search} />
            ))}
          </ul>
        )}
      </ListState>
      <Pager list={list} />
    </nav>
  );
}

function ConversationRow({ conversation: c, current, search }: { conversation: Conversation; current: boolean; search: string }) {
  const unread = c.unread_count > 0;
  const channelName = useChannelName(c);
  return (
    <li className={`conversation${current ? ' conversation-current' : ''}${unread ? ' conversation-unread' : ''}`}>
      <Link to={`/inbox/${c.id}${search}`} aria-current={current ? 'page' : undefined} className="conversation-link">
        <span className="conversation-top">
          <span className="conversation-name">{conversationTitle(c)}</span>
          <time className="small muted" dateTime={c.last_message_at ?? c.created_at}>
            {formatDate(c.last_message_at ?? c.created_at)}
          </time>
        </span>
        <span className="conversation-preview">{c.last_message_preview ?? 'No messages yet'}</span>
        <span className="conversation-meta small">
          {unread ? <span className="badge badge-unread">{c.unread_count} unread</span> : null}
          <StatusBadge status={c.status} />
          {c.priority !== 'none' ? <span className={`badge badge-priority-${c.priority}`}>{c.priority}</span> : null}
          {c.labels.map((l) => (
            <span key={l.id} className="badge conversation-label" style={{ borderColor: l.color }}>
              {l.name}
            </span>
          ))}
          {c.contact?.name?.trim() ? <span className="muted">+{c.peer_phone}</span> : null}
          <span className="muted">{channelName ?? ''}</span>
          <span className="muted">{c.assignee ? `· ${c.assignee.name}` : '· Unassigned'}</span>
        </span>
      </Link>
    </li>
  );
}
