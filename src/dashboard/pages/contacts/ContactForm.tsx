/** The contact's own fields, for creating one and for editing one; the API's refusals show next to their field. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { formErrors, TextField } from '../../forms.tsx';
import { orgKey } from '../../query.ts';
import { useNavigate } from '../../router.tsx';
import { ErrorMessage, PageHeader } from '../../ui.tsx';
import { contactsApi, type ContactRecord } from './api.ts';
import { BackToContacts } from './parts.tsx';

/** The form's fields; "" clears one on update. */
type ContactFields = { name: string; phone_number: string; email: string; external_source: string; external_id: string };

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
export function ContactForm({
  contact,
  onSaved,
  onCancel,
}: {
  contact?: ContactRecord;
  onSaved(contact: ContactRecord): void;
  onCancel?: () => void;
}) {
  const initial = contact ? fieldsOf(contact) : EMPTY;
  const [fields, setFields] = useState<ContactFields>(initial);
  const queryClient = useQueryClient();
  const set = (name: keyof ContactFields) => (value: string) => setFields((f) => ({ ...f, [name]: value }));
  const save = useMutation({
    mutationFn: (changed: Partial<ContactFields>) => (contact ? contactsApi.update(contact.id, changed) : contactsApi.create(changed)),
    onSuccess: async (saved) => {
      queryClient.setQueryData(orgKey('contacts', saved.id), saved);
      await queryClient.invalidateQueries({ queryKey: orgKey('contacts') });
      onSaved(saved);
    },
  });
  const errors = formErrors(save.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    const changed: Partial<ContactFields> = {};
    for (const key of Object.keys(fields) as Array<keyof ContactFields>) {
      const value = fields[key].trim();
      if (contact ? value !== initial[key] : value !== '') changed[key] = value;
    }
    save.mutate(changed);
  }

  return (
    <form className="card contact-form" onSubmit={submit} noValidate aria-label={contact ? 'Edit contact' : 'New contact'}>
      <ErrorMessage message={errors.message} />
      <div className="form-grid">
        <TextField
          label="Name"
          value={fields.name}
          onChange={set('name')}
          error={errors.field('/name')}
          autoComplete="off"
          maxLength={200}
        />
        <TextField
          label="Phone number"
          type="tel"
          value={fields.phone_number}
          onChange={set('phone_number')}
          error={errors.field('/phone_number')}
          description="With the country code, such as +49 30 123456"
          autoComplete="off"
        />
        <TextField
          label="Email"
          type="email"
          value={fields.email}
          onChange={set('email')}
          error={errors.field('/email')}
          autoComplete="off"
        />
        <TextField
          label="External source"
          value={fields.external_source}
          onChange={set('external_source')}
          error={errors.field('/external_source')}
          description="The system the contact comes from, such as hubspot"
        />
        <TextField
          label="External id"
          value={fields.external_id}
          onChange={set('external_id')}
          error={errors.field('/external_id')}
          description="Its id in that system"
        />
      </div>
      {contact ? null : (
        <p className="small muted">
          A contact needs a phone number, an email or an external id. One that matches an existing contact updates it.
        </p>
      )}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : contact ? 'Save changes' : 'Create contact'}
        </button>
        {onCancel ? (
          <button type="button" className="button" onClick={onCancel} disabled={save.isPending}>
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
