/** Open sign-up (only reachable when the server runs with SIGNUP=open): an account and an organization of one's own. */
import { useState, type FormEvent } from 'react';
import { api } from '../api.ts';
import { Link } from '../router.tsx';
import { Brand, ErrorMessage, usePageTitle, useSending } from '../ui.tsx';
import { MIN_PASSWORD_LENGTH } from './ResetPasswordPage.tsx';

type Props = { onSignedUp(): Promise<void> };

export function SignupPage({ onSignedUp }: Props) {
  usePageTitle('Create an account');
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [organization, setOrganization] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, send } = useSending();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void send(async () => {
      await api.signup({ name: name.trim(), email: email.trim(), password, organization_name: organization.trim() });
      setPassword('');
      await onSignedUp();
    });
  }

  return (
    <main className="login">
      <form className="card login-card" onSubmit={submit} aria-labelledby="signup-title">
        <Brand dark />
        <h1 id="signup-title">Create an account</h1>
        <p className="muted">You get an organization of your own; invite your colleagues to it later.</p>
        <ErrorMessage message={error} />
        <label className="field">
          <span>Your name</span>
          <input type="text" name="name" autoComplete="name" required maxLength={200} autoFocus value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label className="field">
          <span>Email</span>
          <input type="email" name="email" autoComplete="username" required maxLength={320} value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label className="field">
          <span>Password</span>
          <input type="password" name="password" autoComplete="new-password" required minLength={MIN_PASSWORD_LENGTH} value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        <label className="field">
          <span>Organization name</span>
          <input type="text" name="organization_name" autoComplete="organization" required maxLength={200} value={organization} onChange={(e) => setOrganization(e.target.value)} />
        </label>
        <button type="submit" className="button button-primary button-block" disabled={busy}>
          {busy ? 'Creating…' : 'Create account'}
        </button>
        <p className="muted">
          Have an account? <Link to="/login">Sign in</Link>
        </p>
      </form>
    </main>
  );
}
