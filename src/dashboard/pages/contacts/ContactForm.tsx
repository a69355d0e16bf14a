/** The contact's own fields, for creating one and for editing one; the API's refusals show next to their field. */
import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { TextField, useForm } from '../../forms.tsx';
import { orgKey } from '../../query.ts';
import { useNavigate } from '../../router.tsx';
import { ErrorMessage, PageHeader } from '../../ui.tsx';
import { contactsApi, type ContactFields, type ContactRecord } from './api.ts';
import { BackToContacts } from './parts.tsx';

const EMPTY: ContactFields = { name: '', phone_number: '', email: '', external_source: '', external_id: '' };

function fieldsOf(contact: ContactRecord): ContactFields {
  return {
    name: contact.name ?? '',
    phone_number: contact.phone_number ?? '',
    email: contact.email ?? '',
    external_source: contact.external_source ?? '',
    external_id: contact.external_id ?? '',
  };
}

/**
 * The form. Creating sends the filled fields; editing sends only the changed ones ("" clears a value),
 * so a contact's other fields are never rewritten from a stale copy.
 */
export function ContactForm({ contact, onSaved, onCancel }: { contact?: ContactRecord; onSaved(contact: ContactRecord): void; onCancel?: () => void }) {
  const initial = contact ? fieldsOf(contact) : EMPTY;
  const [fields, setFields] = useState<ContactFields>(initial);
  const form = useForm();
  const queryClient = useQueryClient();
  const set = (name: keyof ContactFields) => (value: string) => setFields((f) => ({ ...f, [name]: value }));

  async function submit(event: FormEvent) {
    event.preventDefault();
    await form.submit(async () => {
      const changed: Partial<ContactFields> = {};
      for (const key of Object.keys(fields) as Array<keyof ContactFields>) {
        const value = fields[key].trim();
        if (contact ? value !== initial[key] : value !== '') changed[key] = value;
      }
      const saved = contact ? await contactsApi.update(contact.id, changed) : await contactsApi.create(changed);
      queryClient.setQueryData(orgKey('contacts', saved.id), saved);
      await queryClient.invalidateQueries({ queryKey: orgKey('contacts') });
      onSaved(saved);
    });
  }

  return (
    <form className="card contact-form" onSubmit={(e) => void submit(e)} noValidate aria-label={contact ? 'Edit contact' : 'New contact'}>
      <ErrorMessage message={form.message} />
      <div className="form-grid">
        <TextField label="Name" value={fields.name} onChange={set('name')} error={form.fieldError('/name')} autoComplete="off" maxLength={200} />
        <TextField
          label="Phone number"
          type="tel"
          value={fields.phone_number}
          onChange={set('phone_number')}
          error={form.fieldError('/phone_number')}
          description="With the country code, such as +49 30 123456"
          autoComplete="off"
        />
        <TextField label="Email" type="email" value={fields.email} onChange={set('email')} error={form.fieldError('/email')} autoComplete="off" />
        <TextField
          label="External source"
          value={fields.external_source}
          onChange={set('external_source')}
          error={form.fieldError('/external_source')}
          description="The system the contact comes from, such as hubspot"
        />
        <TextField label="External id" value={fields.external_id} onChange={set('external_id')} error={form.fieldError('/external_id')} description="Its id in that system" />
      </div>
      {contact ? null : <p className="small muted">A contact needs a phone number, an email or an external id. One that matches an existing contact updates it.</p>}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={form.busy}>
          {form.busy ? 'Saving…' : contact ? 'Save changes' : 'Create contact'}
        </button>
        {onCancel ? (
          <button type="button" className="button" onClick={onCancel} disabled={form.busy}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}

export function NewContactPage() {
  const navigate = useNavigate();
  return (
    <div className="contacts-area">
      <PageHeader title="New contact">
        <BackToContacts />
      </PageHeader>
      <ContactForm onSaved={(c) => navigate(`/contacts/${c.id}`)} onCancel={() => navigate('/contacts')} />
    </div>
  );
}
