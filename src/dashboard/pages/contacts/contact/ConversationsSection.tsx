/** The contact's conversations, each linking to its thread in the inbox. */
import { useAllChannels } from '../../../channels.ts';
import { formatDate } from '../../../format.ts';
import { orgKey, usePagedList } from '../../../query.ts';
import { Link } from '../../../router.tsx';
import { ListState, Pager, StatusBadge } from '../../../ui.tsx';
import { contactsApi } from '../api.ts';
import { scopeName } from './scopes.ts';

export function ConversationsSection({ contactId }: { contactId: string }) {
  const conversations = usePagedList(orgKey('conversations', 'contact', contactId), (cursor) =>
    contactsApi.conversations(contactId, cursor),
  );
  const channels = useAllChannels();
  return (
    <section className="section card" aria-labelledby="conversations-title">
      <h2 id="conversations-title">Conversations</h2>
      <ListState
        items={conversations.items}
        error={conversations.error}
        empty={<p className="muted">No conversations with this contact yet.</p>}
      >
        {(items) => (
          <ul className="conversation-list" aria-label="Conversations">
            {items.map((c) => (
              <li key={c.id}>
                <Link to={`/inbox/${c.id}`} className="conversation-link">
                  <span className="strong">{scopeName(c.channel_id, channels.data)}</span> <StatusBadge status={c.status} />
                  <span className="conversation-preview">{c.last_message_preview ?? 'No messages'}</span>
                  <span className="small muted">{formatDate(c.last_message_at)}</span>
                </Link>
              </li>
            ))}
          </ul>
        )}
      </ListState>
      <Pager list={conversations} />
    </section>
  );
}
