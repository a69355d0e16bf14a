/**
 * One contact: its fields (edit, delete), its chat-app profile (picture, About, blocking) through a channel
 * that can ask, tags, notes, consents per channel, suppressions, the ids it is known by, its conversations,
 * its deals and its timeline, and merging a duplicate into it, each section a component of its own in contact/. Each part has its
 * own query under orgKey('contacts', id), so a contact.updated event refreshes them all.
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { errorMessage } from '../../api.ts';
import { formatDate } from '../../format.ts';
import { orgKey } from '../../query.ts';
import { useParams } from '../../router.tsx';
import { useCan } from '../../session.tsx';
import { ErrorMessage, Loading, PageHeader } from '../../ui.tsx';
import { contactsApi, type ContactRecord } from './api.ts';
import { CompaniesSection } from './contact/CompaniesSection.tsx';
import { ConsentsSection } from './contact/ConsentsSection.tsx';
import { ConversationsSection } from './contact/ConversationsSection.tsx';
import { DealsSection } from './contact/DealsSection.tsx';
import { DeleteContact } from './contact/DeleteContact.tsx';
import { DetailsSection } from './contact/DetailsSection.tsx';
import { IdentitiesSection } from './contact/IdentitiesSection.tsx';
import { MergeSection } from './contact/MergeSection.tsx';
import { NotesSection } from './contact/NotesSection.tsx';
import { OrdersSection } from './contact/OrdersSection.tsx';
import { ProfileSection } from './contact/ProfileSection.tsx';
import { SuppressionsSection } from './contact/SuppressionsSection.tsx';
import { TagsSection } from './contact/TagsSection.tsx';
import { TimelineSection } from './contact/TimelineSection.tsx';
import { RecordTasksSection } from '../crm/tasks/RecordTasksSection.tsx';
import { NewMessageButton } from '../inbox/NewMessage.tsx';
import { ContactForm } from './ContactForm.tsx';
import { contactLabel } from './ContactsListPage.tsx';
import { BackToContacts } from './parts.tsx';

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
  const canReadCrm = useCan('crm:read');
  const canWriteCrm = useCan('crm:write');
  const [editing, setEditing] = useState(false);
  return (
    <div className="contacts-area">
      <PageHeader title={contactLabel(contact)} description={`Contact since ${formatDate(contact.created_at)}`}>
        <BackToContacts />
        <NewMessageButton recipient={{ name: contactLabel(contact), phone: contact.phone_number }} className="button" />
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
        <DetailsSection contact={contact} />
      )}
      <div className="contact-grid">
        <ProfileSection contact={contact} canWrite={canWrite} />
        <TagsSection contact={contact} canWrite={canWrite} />
        <NotesSection contactId={contact.id} canWrite={canWrite} />
        <ConversationsSection contactId={contact.id} />
        {canReadCrm ? <OrdersSection contactId={contact.id} canWrite={canWriteCrm} /> : null}
        <IdentitiesSection contactId={contact.id} />
        <ConsentsSection contactId={contact.id} canWrite={canWrite} />
        <SuppressionsSection contactId={contact.id} canWrite={canWrite} />
        {canReadCrm ? <CompaniesSection contactId={contact.id} /> : null}
        {canReadCrm ? <DealsSection contactId={contact.id} /> : null}
        {canReadCrm ? <RecordTasksSection kind="contact" id={contact.id} canWrite={canWriteCrm} /> : null}
        {canReadCrm ? <TimelineSection contactId={contact.id} /> : null}
      </div>
      {canWrite ? <MergeSection contact={contact} /> : null}
      {canWrite ? <DeleteContact contact={contact} /> : null}
    </div>
  );
}
