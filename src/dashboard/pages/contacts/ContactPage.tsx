/**
 * One contact: its fields (edit, delete), tags, notes, consents per channel, suppressions, the ids it is
 * known by and its conversations. Each part has its own query under orgKey('contacts', id), so a
 * contact.updated event refreshes them all.
 */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { formatDate } from '../../format.ts';
import { formErrors, SelectField, TextField } from '../../forms.tsx';
import { orgKey, usePagedList } from '../../query.ts';
import { Link, useNavigate, useParams } from '../../router.tsx';
import { useCan, useSession } from '../../session.tsx';
import { ErrorMessage, ListState, Loading, PageHeader, Pager, StatusBadge, Table } from '../../ui.tsx';
import { contactsApi, type ChannelRecord, type ConsentRecord, type ContactRecord, type NoteRecord } from './api.ts';
import { ContactForm } from './ContactForm.tsx';
import { BackToContacts } from './parts.tsx';
import { contactLabel } from './ContactsListPage.tsx';
import { useAllChannels } from '../../channels.ts';

export function ContactPage() {
  const { contactId = '' } = useParams();
  const contact = useQuery({ queryKey: orgKey('contacts', contactId), queryFn: () => contactsApi.get(contactId) });
  if (contact.error && !contact.data) {
    return (
      <div className="contacts-area">
        <PageHeader title="Contact">
          <BackToContacts />
        </PageHeader>
        <ErrorMessage message={errorMessage(contact.error)} />
      </div>
    );
  }
  if (!contact.data) return <Loading />;
  return <ContactView contact={contact.data} />;
}

function ContactView({ contact }: { contact: ContactRecord }) {
  const canWrite = useCan('contacts:write');
  const [editing, setEditing] = useState(false);
  return (
    <div className="contacts-area">
      <PageHeader title={contactLabel(contact)} description={`Contact since ${formatDate(contact.created_at)}`}>
        <BackToContacts />
        {canWrite && !editing ? (
          <button type="button" className="button button-primary" onClick={() => setEditing(true)}>
            Edit
          </button>
        ) : null}
      </PageHeader>
      {editing ? (
        <section className="section" aria-labelledby="edit-title">
          <h2 id="edit-title">Edit contact</h2>
          <ContactForm contact={contact} onSaved={() => setEditing(false)} onCancel={() => setEditing(false)} />
        </section>
      ) : (
        <Details contact={contact} />
      )}
      <div className="contact-grid">
        <TagsSection contact={contact} canWrite={canWrite} />
        <NotesSection contactId={contact.id} canWrite={canWrite} />
        <ConversationsSection contactId={contact.id} />
        <IdentitiesSection contactId={contact.id} />
        <ConsentsSection contactId={contact.id} canWrite={canWrite} />
        <SuppressionsSection contactId={contact.id} canWrite={canWrite} />
      </div>
      {canWrite ? <DeleteContact contact={contact} /> : null}
    </div>
  );
}

function Details({ contact }: { contact: ContactRecord }) {
  const pairs: Array<[string, string, string?]> = [
    ['Name', contact.name ?? '—'],
    ['Phone number', contact.phone_number ?? '—', 'mono'],
    ['Email', contact.email ?? '—'],
    ['External id', contact.external_id ? `${contact.external_source ?? ''} ${contact.external_id}`.trim() : '—'],
    ...Object.entries(contact.custom_fields).map(([key, value]): [string, string] => [key, typeof value === 'string' ? value : JSON.stringify(value)]),
    ['Updated', formatDate(contact.updated_at)],
  ];
  return (
    <section className="section card" aria-labelledby="details-title">
      <h2 id="details-title">Details</h2>
      <dl className="details">
        {pairs.map(([term, value, className], i) => (
          <div key={i} className="details-pair">
            <dt>{term}</dt>
            <dd className={className}>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** Invalidates everything about contacts (the list shows tags too). */
function useContactsRefresh() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: orgKey('contacts') });
}

function TagsSection({ contact, canWrite }: { contact: ContactRecord; canWrite: boolean }) {
  const refresh = useContactsRefresh();
  const [tag, setTag] = useState('');
  const add = useMutation({
    mutationFn: (name: string) => contactsApi.addTag(contact.id, name),
    onSuccess: async () => {
      await refresh();
      setTag('');
    },
  });
  const errors = formErrors(add.error);
  const remove = useMutation({ mutationFn: (name: string) => contactsApi.removeTag(contact.id, name), onSuccess: refresh });

  return (
    <section className="section card" aria-labelledby="tags-title">
      <h2 id="tags-title">Tags</h2>
      <ErrorMessage message={remove.error ? errorMessage(remove.error) : undefined} onDismiss={() => remove.reset()} />
      {contact.tags.length === 0 ? (
        <p className="muted">No tags.</p>
      ) : (
        <ul className="chips" aria-label="Tags of this contact">
          {contact.tags.map((t) => (
            <li key={t} className="chip chip-removable">
              <Link to={`/contacts?tag=${encodeURIComponent(t)}`}>{t}</Link>
              {canWrite ? (
                <button type="button" className="chip-remove" aria-label={`Remove tag ${t}`} disabled={remove.isPending} onClick={() => remove.mutate(t)}>
                  ✕
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      {canWrite ? (
        <form
          className="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            add.mutate(tag.trim());
          }}
          noValidate
        >
          <ErrorMessage message={errors.summary('/tag')} />
          <TextField label="New tag" value={tag} onChange={setTag} error={errors.field('/tag')} maxLength={100} />
          <button type="submit" className="button" disabled={add.isPending || !tag.trim()}>
            Add tag
          </button>
        </form>
      ) : null}
    </section>
  );
}

function NotesSection({ contactId, canWrite }: { contactId: string; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const notes = usePagedList(orgKey('contacts', contactId, 'notes'), (cursor) => contactsApi.notes(contactId, cursor));
  const me = useSession().user.id;
  const [body, setBody] = useState('');
  const refresh = () => queryClient.invalidateQueries({ queryKey: orgKey('contacts', contactId, 'notes') });
  const add = useMutation({
    mutationFn: (text: string) => contactsApi.addNote(contactId, text),
    onSuccess: async () => {
      await refresh();
      setBody('');
    },
  });
  const errors = formErrors(add.error);
  const remove = useMutation({ mutationFn: (noteId: string) => contactsApi.deleteNote(contactId, noteId), onSuccess: refresh });

  return (
    <section className="section card" aria-labelledby="notes-title">
      <h2 id="notes-title">Notes</h2>
      {canWrite ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            add.mutate(body);
          }}
          noValidate
        >
          <ErrorMessage message={errors.summary('/body')} />
          <TextField label="New note" multiline rows={3} value={body} onChange={setBody} error={errors.field('/body')} maxLength={10_000} />
          <button type="submit" className="button" disabled={add.isPending || !body.trim()}>
            {add.isPending ? 'Adding…' : 'Add note'}
          </button>
        </form>
      ) : null}
      <ErrorMessage message={remove.error ? errorMessage(remove.error) : undefined} onDismiss={() => remove.reset()} />
      <ListState items={notes.items} error={notes.error} empty={<p className="muted">No notes yet.</p>}>
        {(items) => (
          <ul className="note-list" aria-label="Notes">
            {items.map((n) => (
              <li key={n.id} className="note">
                <p className="note-body">{n.body}</p>
                <div className="note-meta small muted">
                  <span>
                    {formatDate(n.created_at)} · by {authorName(n.author, me)}
                  </span>
                  {canWrite ? (
                    <button type="button" className="link-button" disabled={remove.isPending} onClick={() => remove.mutate(n.id)} aria-label={`Delete note from ${formatDate(n.created_at)}`}>
                      Delete
                    </button>
                  ) : null}
                </div>
              </li>
            ))}
          </ul>
        )}
      </ListState>
      <Pager list={notes} />
    </section>
  );
}

function authorName(author: NoteRecord['author'], me: string): string {
  if (author.type === 'api_key') return 'an API key';
  if (author.type === 'system') return 'Parley';
  return author.id === me ? 'you' : 'a teammate';
}

const SCOPES = [
  { value: 'all', label: 'All channels' },
  { value: 'chatapp', label: 'Every chat-app channel' },
];

function scopeOptions(channels: ChannelRecord[] | undefined) {
  return [...SCOPES, ...(channels ?? []).map((c) => ({ value: c.id, label: `${c.name}${c.display_phone_number ? ` (${c.display_phone_number})` : ''}` }))];
}

function scopeName(scope: string, channels: ChannelRecord[] | undefined): string {
  return SCOPES.find((s) => s.value === scope)?.label ?? channels?.find((c) => c.id === scope)?.name ?? scope;
}

function ConsentsSection({ contactId, canWrite }: { contactId: string; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const consents = useQuery({ queryKey: orgKey('contacts', contactId, 'consents'), queryFn: () => contactsApi.consents(contactId) });
  const channels = useAllChannels();
  const [channel, setChannel] = useState('all');
  const [state, setState] = useState<ConsentRecord['state']>('granted');
  const [source, setSource] = useState('');
  const save = useMutation({
    mutationFn: () => contactsApi.putConsent(contactId, channel, { state, source: source.trim() || null }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: orgKey('contacts', contactId, 'consents') });
      setSource('');
    },
  });
  const errors = formErrors(save.error);

  return (
    <section className="section card span-all" aria-labelledby="consents-title">
      <h2 id="consents-title">Consents</h2>
      <p className="small muted">A revoked consent stops sends on its channels (templates too).</p>
      <ListState items={consents.data} error={consents.error} empty={<p className="muted">No consent recorded.</p>}>
        {(items) => (
          <Table label="Consents table" caption="Consents by channel" columns={['Channel', 'Consent', 'Source', 'Recorded']}>
            {items.map((c) => (
              <tr key={c.channel}>
                <td>{scopeName(c.channel, channels.data)}</td>
                <td>
                  <StatusBadge status={c.state === 'granted' ? 'approved' : 'rejected'} label={c.state} />
                </td>
                <td>{c.source ?? '—'}</td>
                <td className="nowrap">{formatDate(c.recorded_at)}</td>
              </tr>
            ))}
          </Table>
        )}
      </ListState>
      {canWrite ? (
        <form
          className="stack-form"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
          noValidate
          aria-label="Record consent"
        >
          <h3>Record consent</h3>
          <ErrorMessage message={errors.message} />
          <div className="form-grid">
            <SelectField label="Consent channel" value={channel} onChange={setChannel} options={scopeOptions(channels.data)} error={errors.field('/channel')} />
            <SelectField
              label="Consent"
              value={state}
              onChange={(v) => setState(v as ConsentRecord['state'])}
              options={[
                { value: 'granted', label: 'Granted' },
                { value: 'revoked', label: 'Revoked' },
              ]}
              error={errors.field('/state')}
            />
            <TextField label="Source" value={source} onChange={setSource} error={errors.field('/source')} placeholder="e.g. signup form" maxLength={200} />
          </div>
          <button type="submit" className="button" disabled={save.isPending}>
            Save consent
          </button>
        </form>
      ) : null}
    </section>
  );
}

/** A datetime-local value ("2025-06-01T09:30", the browser's time zone) as an ISO timestamp. */
function isoFromLocal(value: string): string | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

function SuppressionsSection({ contactId, canWrite }: { contactId: string; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const key = orgKey('contacts', contactId, 'suppressions');
  const suppressions = useQuery({ queryKey: key, queryFn: () => contactsApi.suppressions(contactId) });
  const channels = useAllChannels();
  const [channel, setChannel] = useState('all');
  const [reason, setReason] = useState('');
  const [expires, setExpires] = useState('');
  const save = useMutation({
    mutationFn: () => contactsApi.suppress(contactId, { channel, reason: reason.trim(), expires_at: isoFromLocal(expires) }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: key });
      setReason('');
      setExpires('');
    },
  });
  const errors = formErrors(save.error);
  const lift = useMutation({ mutationFn: (scope: string) => contactsApi.lift(contactId, scope), onSuccess: () => queryClient.invalidateQueries({ queryKey: key }) });

  return (
    <section className="section card span-all" aria-labelledby="suppressions-title">
      <h2 id="suppressions-title">Suppressions</h2>
      <p className="small muted">No message is sent on a suppressed channel until the suppression is lifted or expires.</p>
      <ErrorMessage message={lift.error ? errorMessage(lift.error) : undefined} onDismiss={() => lift.reset()} />
      <ListState items={suppressions.data} error={suppressions.error} empty={<p className="muted">Not suppressed anywhere.</p>}>
        {(items) => (
          <Table label="Suppressions table" caption="Suppressions by channel" columns={['Channel', 'Reason', 'Expires', 'State']} actions={canWrite}>
            {items.map((s) => (
              <tr key={s.channel}>
                <td>{scopeName(s.channel, channels.data)}</td>
                <td>{s.reason}</td>
                <td className="nowrap">{formatDate(s.expires_at, 'Until lifted')}</td>
                <td>{s.active ? <StatusBadge status="active" /> : <StatusBadge status="closed" label="lapsed" />}</td>
                {canWrite ? (
                  <td className="actions">
                    <button
                      type="button"
                      className="button button-danger-outline"
                      disabled={lift.isPending}
                      onClick={() => lift.mutate(s.channel)}
                      aria-label={`Lift suppression on ${scopeName(s.channel, channels.data)}`}
                    >
                      Lift
                    </button>
                  </td>
                ) : null}
              </tr>
            ))}
          </Table>
        )}
      </ListState>
      {canWrite ? (
        <form
          className="stack-form"
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
          noValidate
          aria-label="Suppress"
        >
          <h3>Suppress sending</h3>
          <ErrorMessage message={errors.message} />
          <div className="form-grid">
            <SelectField label="Suppression channel" value={channel} onChange={setChannel} options={scopeOptions(channels.data)} error={errors.field('/channel')} />
            <TextField label="Reason" value={reason} onChange={setReason} error={errors.field('/reason')} placeholder="e.g. asked for a pause" maxLength={500} />
            <TextField
              label="Expires"
              type="datetime-local"
              value={expires}
              onChange={setExpires}
              error={errors.field('/expires_at')}
              description="Leave empty to keep it until lifted"
            />
          </div>
          <button type="submit" className="button" disabled={save.isPending}>
            Suppress
          </button>
        </form>
      ) : null}
    </section>
  );
}

const IDENTITY_NAMES: Record<string, string> = {
  phone: 'Phone',
  chatapp_id: 'Chat-app id',
  linked_id: 'Linked id',
  business_scoped_user_id: 'Business-scoped id',
  username: 'Username',
  email: 'Email',
  external_id: 'External id',
};

function IdentitiesSection({ contactId }: { contactId: string }) {
  const identities = useQuery({ queryKey: orgKey('contacts', contactId, 'identities'), queryFn: () => contactsApi.identities(contactId) });
  return (
    <section className="section card" aria-labelledby="identities-title">
      <h2 id="identities-title">Identities</h2>
      <p className="small muted">Every id this person is known by, from the record and from the channels they wrote on.</p>
      <ListState items={identities.data} error={identities.error} empty={<p className="muted">No identities.</p>}>
        {(items) => (
          <ul className="identity-list" aria-label="Identities">
            {items.map((i) => (
              <li key={`${i.type}:${i.source ?? ''}:${i.value}`}>
                <span className="identity-type">{IDENTITY_NAMES[i.type] ?? i.type}</span> <span className="mono">{i.source ? `${i.source}:${i.value}` : i.value}</span>
              </li>
            ))}
          </ul>
        )}
      </ListState>
    </section>
  );
}

function ConversationsSection({ contactId }: { contactId: string }) {
  const conversations = usePagedList(orgKey('conversations', 'contact', contactId), (cursor) => contactsApi.conversations(contactId, cursor));
  const channels = useAllChannels();
  return (
    <section className="section card" aria-labelledby="conversations-title">
      <h2 id="conversations-title">Conversations</h2>
      <ListState items={conversations.items} error={conversations.error} empty={<p className="muted">No conversations with this contact yet.</p>}>
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

function DeleteContact({ contact }: { contact: ContactRecord }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => contactsApi.remove(contact.id),
    onSuccess: () => {
      // The lists are fetched afresh (never shown with the deleted contact); this page's own queries are
      // left alone, so nothing asks for the contact that is gone while the page closes.
      queryClient.removeQueries({ queryKey: orgKey('contacts', 'list') });
      navigate('/contacts');
    },
  });
  return (
    <section className="section" aria-labelledby="delete-title">
      <h2 id="delete-title">Delete contact</h2>
      <ErrorMessage message={remove.error ? errorMessage(remove.error) : undefined} />
      {confirming ? (
        <div className="confirm" role="group" aria-label="Confirm deleting the contact">
          <span className="small">Its notes, tags, consents and suppressions go too; its conversations stay.</span>
          <div className="confirm-buttons">
            <button type="button" className="button button-danger" disabled={remove.isPending} onClick={() => remove.mutate()}>
              {remove.isPending ? 'Deleting…' : 'Delete contact'}
            </button>
            <button type="button" className="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <button type="button" className="button button-danger-outline" onClick={() => setConfirming(true)}>
          Delete…
        </button>
      )}
    </section>
  );
}
