/** Your account: name and email (a new email needs the current password), and the password itself. */
import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { formErrors, TextField } from '../../forms.tsx';
import { useRefreshSession, useSession } from '../../session.tsx';
import { ErrorMessage, PageHeader } from '../../ui.tsx';
import { MIN_PASSWORD_LENGTH } from '../ResetPasswordPage.tsx';
import { settingsApi } from './api.ts';
import { SaveActions } from './parts.tsx';

function ProfileForm() {
  const { user } = useSession();
  const refreshSession = useRefreshSession();
  const [name, setName] = useState(user.name);
  const [email, setEmail] = useState(user.email);
  const [password, setPassword] = useState('');
  const [saved, setSaved] = useState(false);
  const emailChanged = email.trim() !== user.email;
  const save = useMutation({
    mutationFn: settingsApi.updateAccount,
    onSuccess: async () => {
      setPassword('');
      setSaved(true);
      await refreshSession();
    },
  });
  const errors = formErrors(save.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaved(false);
    save.mutate({
      name: name.trim() === user.name ? undefined : name.trim(),
      email: emailChanged ? email.trim() : undefined,
      current_password: emailChanged && password !== '' ? password : undefined,
    });
  }

  const unchanged = name.trim() === user.name && !emailChanged;
  return (
    <form className="card section" onSubmit={submit} aria-labelledby="profile-title" noValidate>
      <h2 id="profile-title">Profile</h2>
      <ErrorMessage message={errors.summary('/name', '/email', '/current_password')} />
      <TextField label="Name" value={name} onChange={setName} error={errors.field('/name')} autoComplete="name" />
      <TextField
        label="Email"
        type="email"
        value={email}
        onChange={setEmail}
        error={errors.field('/email')}
        autoComplete="email"
        description="You sign in with it. Changing it signs out your other sessions."
      />
      {emailChanged ? (
        <TextField
          label="Current password"
          type="password"
          value={password}
          onChange={setPassword}
          error={errors.field('/current_password')}
          autoComplete="current-password"
          description="Needed to change the email."
        />
      ) : null}
      <p className="small muted">Times are shown in {user.timezone}.</p>
      <SaveActions label="Save profile" busy={save.isPending} saved={saved} disabled={unchanged} />
    </form>
  );
}

function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState<number | undefined>(undefined);
  const change = useMutation({
    mutationFn: () => settingsApi.changePassword(current, next),
    onSuccess: (result) => {
      setCurrent('');
      setNext('');
      setDone(result.ended_sessions);
    },
  });
  const errors = formErrors(change.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setDone(undefined);
    change.mutate();
  }

  return (
    <form className="card section" onSubmit={submit} aria-labelledby="password-title" noValidate>
      <h2 id="password-title">Password</h2>
      <ErrorMessage message={errors.summary('/current_password', '/new_password')} />
      {done !== undefined ? (
        <div className="alert alert-ok" role="status">
          Your password is changed. {done === 1 ? 'One other session was' : `${done} other sessions were`} signed out.
        </div>
      ) : null}
      <TextField
        label="Current password"
        type="password"
        value={current}
        onChange={setCurrent}
        error={errors.field('/current_password')}
        autoComplete="current-password"
      />
      <TextField
        label="New password"
        type="password"
        value={next}
        onChange={setNext}
        error={errors.field('/new_password')}
        autoComplete="new-password"
        description={`At least ${MIN_PASSWORD_LENGTH} characters, not your email. Your other sessions end.`}
      />
      <button type="submit" className="button button-primary" disabled={change.isPending}>
        {change.isPending ? 'Changing…' : 'Change password'}
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
