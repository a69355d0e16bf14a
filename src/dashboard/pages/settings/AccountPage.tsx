/** Your account: name and email (a new email needs the current password), and the password itself. */
import { useState, type FormEvent } from 'react';
import { TextField, useForm } from '../../forms.tsx';
import { useRefreshSession, useSession } from '../../session.tsx';
import { ErrorMessage, PageHeader } from '../../ui.tsx';
import { MIN_PASSWORD_LENGTH } from '../ResetPasswordPage.tsx';
import { settingsApi } from './api.ts';
import { SaveActions } from './parts.tsx';

/** The form's alert only for what no field shows. */
function summary(form: ReturnType<typeof useForm>, pointers: string[]): string | undefined {
  return pointers.some((p) => form.fieldError(p)) ? undefined : form.message;
}

function ProfileForm() {
  const { user } = useSession();
  const refreshSession = useRefreshSession();
  const [name, setName] = useState(user.name);
  const [email, setEmail] = useState(user.email);
  const [password, setPassword] = useState('');
  const [saved, setSaved] = useState(false);
  const form = useForm();
  const emailChanged = email.trim() !== user.email;

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaved(false);
    void form.submit(async () => {
      await settingsApi.updateAccount({
        name: name.trim() === user.name ? undefined : name.trim(),
        email: emailChanged ? email.trim() : undefined,
        current_password: emailChanged && password !== '' ? password : undefined,
      });
      setPassword('');
      setSaved(true);
      await refreshSession();
    });
  }

  const unchanged = name.trim() === user.name && !emailChanged;
  return (
    <form className="card section" onSubmit={submit} aria-labelledby="profile-title" noValidate>
      <h2 id="profile-title">Profile</h2>
      <ErrorMessage message={summary(form, ['/name', '/email', '/current_password'])} />
      <TextField label="Name" value={name} onChange={setName} error={form.fieldError('/name')} autoComplete="name" />
      <TextField label="Email" type="email" value={email} onChange={setEmail} error={form.fieldError('/email')} autoComplete="email" description="You sign in with it. Changing it signs out your other sessions." />
      {emailChanged ? (
        <TextField label="Current password" type="password" value={password} onChange={setPassword} error={form.fieldError('/current_password')} autoComplete="current-password" description="Needed to change the email." />
      ) : null}
      <p className="small muted">Times are shown in {user.timezone}.</p>
      <SaveActions label="Save profile" busy={form.busy} saved={saved} disabled={unchanged} />
    </form>
  );
}

function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState<number | undefined>(undefined);
  const form = useForm();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setDone(undefined);
    void form.submit(async () => {
      const result = await settingsApi.changePassword(current, next);
      setCurrent('');
      setNext('');
      setDone(result.ended_sessions);
    });
  }

  return (
    <form className="card section" onSubmit={submit} aria-labelledby="password-title" noValidate>
      <h2 id="password-title">Password</h2>
      <ErrorMessage message={summary(form, ['/current_password', '/new_password'])} />
      {done !== undefined ? (
        <div className="alert alert-ok" role="status">
          Your password is changed. {done === 1 ? 'One other session was' : `${done} other sessions were`} signed out.
        </div>
      ) : null}
      <TextField label="Current password" type="password" value={current} onChange={setCurrent} error={form.fieldError('/current_password')} autoComplete="current-password" />
      <TextField
        label="New password"
        type="password"
        value={next}
        onChange={setNext}
        error={form.fieldError('/new_password')}
        autoComplete="new-password"
        description={`At least ${MIN_PASSWORD_LENGTH} characters, not your email. Your other sessions end.`}
      />
      <button type="submit" className="button button-primary" disabled={form.busy}>
        {form.busy ? 'Changing…' : 'Change password'}
      </button>
    </form>
  );
}

export function AccountPage() {
  return (
    <>
      <PageHeader title="Your account" description="Your name, the email you sign in with, and your password." />
      <ProfileForm />
      <PasswordForm />
    </>
  );
}
