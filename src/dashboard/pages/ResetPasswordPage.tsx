/**
 * The page a password-reset link opens (/app/reset-password#token=…): the token rides in the
 * fragment, so no server ever logs it. The new password twice, then on to sign in.
 */
import { useState, type FormEvent } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api, ApiError } from '../api.ts';
import { BASE } from '../base.ts';
import { formErrors, TextField } from '../forms.tsx';
import { ErrorMessage } from '../ui.tsx';
import { StandaloneCard } from './StandaloneCard.tsx';

export const MIN_PASSWORD_LENGTH = 8;

/** The token of the link, taken out of the address bar (and the history) once read. */
function takeToken(): string {
  const token = new URLSearchParams(window.location.hash.replace(/^#/, '')).get('token') ?? '';
  if (window.location.hash) window.history.replaceState(null, '', window.location.pathname + window.location.search);
  return token;
}

/** The link's refusals in words for the person holding it. */
function explained(err: unknown): unknown {
  if (!(err instanceof ApiError)) return err;
  if (err.status === 404)
    return new ApiError(404, 'This reset link is not valid. Check that you opened the whole link, or ask for a new one.', err.code);
  if (err.status === 410) return new ApiError(410, `${err.message.charAt(0).toUpperCase()}${err.message.slice(1)}.`, err.code);
  return err;
}

export function ResetPasswordPage() {
  const [token] = useState(takeToken);
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [mismatch, setMismatch] = useState<string | undefined>(undefined);
  const [done, setDone] = useState(false);
  const save = useMutation({
    mutationFn: (newPassword: string) =>
      api.resetPassword(token, newPassword).catch((err: unknown) => {
        throw explained(err);
      }),
    onSuccess: () => {
      setPassword('');
      setAgain('');
      setDone(true);
    },
  });
  const errors = formErrors(save.error);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    save.reset();
    if (password !== again) return setMismatch('The two passwords differ. Type the same new password twice.');
    if ([...password].length < MIN_PASSWORD_LENGTH)
      return setMismatch(`The new password needs at least ${MIN_PASSWORD_LENGTH} characters.`);
    setMismatch(undefined);
    save.mutate(password);
  }

  return (
    <StandaloneCard title="Set a new password" session={undefined}>
      {done ? (
        <>
          <div className="alert alert-info" role="status">
            Your password is set. Every session of your account has ended: sign in with the new password.
          </div>
          {/* A full load: whatever session this browser had is gone. */}
          <a className="button button-primary button-block" href={`${BASE}/login`}>
            Sign in
          </a>
        </>
      ) : token === '' ? (
        <ErrorMessage message="This page needs the whole reset link (it ends with #token=…). Open the link you were given again." />
      ) : (
        <form onSubmit={submit} aria-label="Password reset">
          <p className="muted">Choose a password of at least {MIN_PASSWORD_LENGTH} characters. The link works once.</p>
          <ErrorMessage message={mismatch ?? errors.summary('/new_password')} />
          <TextField
            label="New password"
            type="password"
            name="new_password"
            autoComplete="new-password"
            required
            autoFocus
            value={password}
            onChange={setPassword}
            error={errors.field('/new_password')}
          />
          <TextField
            label="New password again"
            type="password"
            name="new_password_again"
            autoComplete="new-password"
            required
            value={again}
            onChange={setAgain}
          />
          <button type="submit" className="button button-primary button-block" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Set password'}
          </button>
        </form>
      )}
    </StandaloneCard>
  );
}
