/**
 * The business labels on a conversation's chat (linked-device channels with `labels.manage`;
 * docs/channels.md, "Labels"): each shown with its color, taken off with its button, and another put on
 * from the list of the number's labels. The labels are made on the channel's page.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { orgKey } from '../../query.ts';
import { useCan } from '../../session.tsx';
import { ErrorMessage } from '../../ui.tsx';
import { channelsApi, labelsApi, type ChatLabelRecord } from '../channels/api.ts';
import { labelsKey, LabelSwatch } from '../channels/LabelsPanel.tsx';
import type { Conversation } from './api.ts';

/** The chat as the label routes name it: a group's id, a contact's phone with `+`; none for status posts. */
function chatOf(conversation: Conversation): string | undefined {
  const peer = conversation.peer_phone;
  if (peer.endsWith('@g.us')) return peer;
  return /^\d+$/.test(peer) ? `+${peer}` : undefined;
}

export function ChatLabels({ conversation }: { conversation: Conversation }) {
  const canSend = useCan('messages:send');
  const queryClient = useQueryClient();
  const channelId = conversation.channel_id;
  const chat = chatOf(conversation);
  const capabilities = useQuery({
    queryKey: orgKey('channels', channelId, 'capabilities'),
    queryFn: () => channelsApi.capabilities(channelId),
    staleTime: 60_000,
  });
  const enabled = Boolean(chat) && capabilities.data?.operations.includes('labels.manage') === true;
  const labels = useQuery({ queryKey: labelsKey(channelId), queryFn: () => labelsApi.list(channelId), enabled, retry: false });
  const change = useMutation({
    mutationFn: ({ labelId, add }: { labelId: string; add: boolean }) =>
      add ? labelsApi.assign(channelId, labelId, chat!) : labelsApi.unassign(channelId, labelId, chat!),
    onSuccess: (updated) => {
      queryClient.setQueryData<ChatLabelRecord[]>(labelsKey(channelId), (old) => old?.map((l) => (l.id === updated.id ? updated : l)));
      void queryClient.invalidateQueries({ queryKey: labelsKey(channelId) });
    },
  });
  // A number without labels shows nothing here: they are made on the channel's page.
  if (!enabled || !labels.data || labels.data.length === 0) return null;
  const on = labels.data.filter((l) => l.chats.includes(chat!));
  const off = labels.data.filter((l) => !l.chats.includes(chat!));
  const nameOf = (l: ChatLabelRecord) => l.name || `Label ${l.id}`;
  return (
    <div className="chat-labels">
      {on.length === 0 ? null : (
        <ul className="chat-label-list" aria-label="Labels on this chat">
          {on.map((label) => (
            <li key={label.id} className="chat-label">
              <LabelSwatch color={label.color} />
              {nameOf(label)}
              {canSend ? (
                <button
                  type="button"
                  aria-label={`Remove label ${nameOf(label)}`}
                  disabled={change.isPending}
                  onClick={() => change.mutate({ labelId: label.id, add: false })}
                >
                  ×
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {canSend && off.length > 0 ? (
        <select
          aria-label="Add a label"
          value=""
          disabled={change.isPending}
          onChange={(event) => {
            if (event.target.value) change.mutate({ labelId: event.target.value, add: true });
          }}
        >
          <option value="">Add a label…</option>
          {off.map((label) => (
            <option key={label.id} value={label.id}>
              {nameOf(label)}
            </option>
          ))}
        </select>
      ) : null}
      {change.error ? <ErrorMessage message={errorMessage(change.error)} onDismiss={() => change.reset()} /> : null}
    </div>
  );
}
