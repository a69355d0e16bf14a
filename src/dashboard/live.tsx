/**
 * Live updates: one EventSource on GET /v1/events/stream for the organization the dashboard acts in.
 * Each event refreshes the cached queries it makes stale (by key prefix), and pages may subscribe to
 * events of their own (a pairing view waiting for `connected`). The browser reconnects by itself and
 * resumes after the last event id it saw (Last-Event-ID), so nothing is missed across a blip.
 */
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { EventType } from '../domain/events/outbox.ts';
import type { EventRecord } from '../http/v1/events.presenters.ts';

/** An event as GET /v1/events lists it and the stream sends it. */
export type LiveEvent = EventRecord;

type Listener = (event: LiveEvent) => void;
export type LiveState = 'connecting' | 'live' | 'reconnecting';

/** The types the dashboard shows; each names the query keys (after the organization) it makes stale. */
const STALE_KEYS: Partial<Record<EventType, string[]>> = {
  'message.new': ['conversations', 'messages', 'contacts'],
  'message.sent': ['conversations', 'messages'],
  'message.status_update': ['conversations', 'messages'],
  'message.edited': ['conversations', 'messages'],
  'message.deleted': ['conversations', 'messages'],
  'message.media_updated': ['messages'],
  'conversation.updated': ['conversations'],
  'conversation.labels_changed': ['conversations'],
  'conversation.note_created': ['conversations'],
  'conversation.note_deleted': ['conversations'],
  'bot.session_started': ['conversations'],
  'bot.session_ended': ['conversations'],
  'conversation.handoff': ['conversations'],
  'conversation_label.created': ['conversation-labels', 'conversations'],
  'conversation_label.updated': ['conversation-labels', 'conversations'],
  'conversation_label.deleted': ['conversation-labels', 'conversations'],
  'contact.updated': ['contacts', 'conversations'],
  'contact.merged': ['contacts', 'conversations', 'deals'],
  'template.status_update': ['templates'],
  'channel.status_update': ['channels'],
  // A broadcast's page and the list ask again on their own while one sends; these mark its turns at once.
  'broadcast.started': ['broadcasts'],
  'broadcast.paused': ['broadcasts'],
  'broadcast.completed': ['broadcasts'],
  // The CRM's pages keep every query under orgKey('crm', …): a change to any of its records refreshes them.
  'crm.record.created': ['crm'],
  'crm.record.updated': ['crm'],
  'crm.record.deleted': ['crm'],
  'crm.deal.stage_changed': ['crm'],
  'crm.task.completed': ['crm'],
  'crm.task.due': ['crm'],
  'crm.comment.created': ['crm'],
  'crm.comment.updated': ['crm'],
  'crm.comment.deleted': ['crm'],
};

/** Every event can add deliveries and is itself an event-log row. */
const ALWAYS_STALE = ['events', 'webhook-deliveries'];

type Live = { state: LiveState; subscribe(listener: Listener): () => void };
const LiveContext = createContext<Live>({ state: 'connecting', subscribe: () => () => undefined });

export function LiveEventsProvider({ organizationId, children }: { organizationId: string; children: ReactNode }) {
  const queryClient = useQueryClient();
  const listeners = useRef(new Set<Listener>());
  const [state, setState] = useState<LiveState>('connecting');

  useEffect(() => {
    if (typeof EventSource === 'undefined') return;
    const source = new EventSource(`/v1/events/stream?organization_id=${encodeURIComponent(organizationId)}`);
    const onEvent = (message: MessageEvent<string>) => {
      let event: LiveEvent;
      try {
        event = JSON.parse(message.data) as LiveEvent;
      } catch {
        return;
      }
      for (const key of [...(STALE_KEYS[event.type] ?? []), ...ALWAYS_STALE]) {
        void queryClient.invalidateQueries({ queryKey: ['org', organizationId, key] });
      }
      for (const listener of listeners.current) listener(event);
    };
    for (const type of Object.keys(STALE_KEYS)) source.addEventListener(type, onEvent);
    source.onopen = () => setState('live');
    source.onerror = () => setState('reconnecting');
    return () => source.close();
  }, [organizationId, queryClient]);

  const value = useRef<Live>({ state, subscribe: () => () => undefined });
  value.current = {
    state,
    subscribe(listener) {
      listeners.current.add(listener);
      return () => listeners.current.delete(listener);
    },
  };
  return <LiveContext.Provider value={value.current}>{children}</LiveContext.Provider>;
}

/** Calls `onEvent` for each live event of the given types while the component is mounted. */
export function useLiveEvent(types: readonly EventType[], onEvent: Listener): void {
  const live = useContext(LiveContext);
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const wanted = types.join(',');
  useEffect(() => {
    const set = new Set(wanted.split(','));
    return live.subscribe((event) => {
      if (set.has(event.type)) handler.current(event);
    });
  }, [live, wanted]);
}

/** Whether the live stream is connected (for a small indicator). */
export function useLiveState(): LiveState {
  return useContext(LiveContext).state;
}
