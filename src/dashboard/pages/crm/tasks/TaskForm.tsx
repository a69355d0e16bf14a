/** A new task: title, due time, priority and notes, assigned to the signed-in person, about a record when given. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { formErrors, SelectField, TextField } from '../../../forms.tsx';
import { orgKey } from '../../../query.ts';
import { useSession } from '../../../session.tsx';
import { ErrorMessage } from '../../../ui.tsx';
import { crmApi, type TaskBody } from '../api.ts';
import { localInputToIso } from '../time.ts';

const PRIORITIES = [
  { value: '', label: 'None' },
  { value: 'low', label: 'Low' },
  { value: 'medium', label: 'Medium' },
  { value: 'high', label: 'High' },
];

export function TaskForm({ target, onDone }: { target?: { kind: 'company' | 'deal' | 'contact'; id: string }; onDone?: () => void }) {
  const me = useSession().user.id;
  const queryClient = useQueryClient();
  const [title, setTitle] = useState('');
  const [due, setDue] = useState('');
  const [priority, setPriority] = useState('');
  const [notes, setNotes] = useState('');
  const create = useMutation({
    mutationFn: (body: TaskBody) => crmApi.createTask(body),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: orgKey('crm') });
      setTitle('');
      setDue('');
      setPriority('');
      setNotes('');
      onDone?.();
    },
  });
  const errors = formErrors(create.error);

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate({
      title: title.trim(),
      due_at: localInputToIso(due),
      priority: (priority || null) as TaskBody['priority'],
      notes: notes.trim() || null,
      assignee_user_id: me,
      targets: target ? [target] : [],
    });
  }

  return (
    <form className="stack-form" onSubmit={submit} noValidate aria-label="New task">
      <ErrorMessage message={errors.summary('/title', '/due_at', '/priority', '/notes')} />
      <div className="form-grid">
        <TextField label="Task" value={title} onChange={setTitle} error={errors.field('/title')} required maxLength={500} />
        <TextField label="Due" type="datetime-local" value={due} onChange={setDue} error={errors.field('/due_at')} />
        <SelectField label="Priority" value={priority} onChange={setPriority} options={PRIORITIES} error={errors.field('/priority')} />
        <TextField label="Notes" multiline rows={2} value={notes} onChange={setNotes} error={errors.field('/notes')} maxLength={10_000} />
      </div>
      <p className="small muted">Assigned to you.</p>
      <button type="submit" className="button" disabled={create.isPending || !title.trim()}>
        {create.isPending ? 'Adding…' : 'Add task'}
      </button>
    </form>
  );
}
