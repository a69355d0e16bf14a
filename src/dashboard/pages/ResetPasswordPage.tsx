/**
 * The page a password-reset link opens (/app/reset-password#token=…): the token rides in the
 * fragment, so no server ever logs it. The new password twice, then on to sign in.
 */
import { useState, type FormEvent } from 'react';
import { api, ApiError, errorMessage } from '../api.ts';
import { BASE } from '../base.ts';
import { Brand, ErrorMessage, usePageTitle, useSending } from '../ui.tsx';

export const MIN_PASSWORD_LENGTH = 8;

/** The token of the link, taken out of the address bar (and the history) once read. */
function takeToken(): string {
  const token = new URLSearchParams(window.location.hash.replace(/^#/, '')).get('token') ?? '';
  if (window.location.hash) window.history.replaceState(null, '', window.location.pathname + window.location.search);
  return token;
}

function explain(err: unknown): string {
  if (err instanceof ApiError && err.status === 404) return 'This reset link is not valid. Check that you opened the whole link, or ask for a new one.';
  if (err instanceof ApiError && err.status === 410) return `${err.message.charAt(0).toUpperCase()}${err.message.slice(1)}.`;
  return errorMessage(err);
}

export function ResetPasswordPage() {
  usePageTitle('Set a new password');
  const [token] = useState(takeToken);
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const { busy, error, setError, send } = useSending(explain);
  const [done, setDone] = useState(false);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (password !== again) return setError('The two passwords differ. Type the same new password twice.');
    if ([...password].length < MIN_PASSWORD_LENGTH) return setError(`The new password needs at least ${MIN_PASSWORD_LENGTH} characters.`);
    void send(async () => {
      await api.resetPassword(token, password);
      setPassword('');
      setAgain('');
      setDone(true);
    });
  }

  return (
    <main className="login">
      <div className="card login-card">
        <Brand dark />
        <h1>Set a new password</h1>
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
            <ErrorMessage message={error} />
            <label className="field">
              <span>New password</span>
              <input type="password" name="new_password" autoComplete="new-password" required autoFocus value={password} onChange={(e) => setPassword(e.target.value)} />
            </label>
            <label className="field">
              <span>New password again</span>
              <input type="password" name="new_password_again" autoComplete="new-password" required value={again} onChange={(e) => setAgain(e.target.value)} />
            </label>
            <button type="submit" className="button button-primary button-block" disabled={busy}>
              {busy ? 'Saving…' : 'Set password'}
            </button>
          </form>
        )}
      </div>
    </main>
  );
}
