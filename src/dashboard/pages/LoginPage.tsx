import { useEffect, useState, type FormEvent } from 'react';
import { api } from '../api.ts';
import { Link } from '../router.tsx';
import { Brand, ErrorMessage, usePageTitle, useSending } from '../ui.tsx';

type Props = { notice?: string; onLoggedIn(): Promise<void> };

export function LoginPage({ notice, onLoggedIn }: Props) {
  usePageTitle('Sign in');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, send } = useSending();
  const [signupOpen, setSignupOpen] = useState(false);

  useEffect(() => {
    // Only a hint: if the server cannot say, no sign-up link shows.
    api.signupState().then((state) => setSignupOpen(state.open), () => setSignupOpen(false));
  }, []);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void send(async () => {
      await api.login(email.trim(), password);
      setPassword('');
      await onLoggedIn();
    });
  }

  return (
    <main className="login">
      <form className="card login-card" onSubmit={submit} aria-labelledby="login-title">
        <Brand dark />
        <h1 id="login-title">Sign in</h1>
        <p className="muted">Use the email and password of your Parley account.</p>
        {notice && !error ? (
          <div className="alert alert-info" role="status">
            {notice}
          </div>
        ) : null}
        <ErrorMessage message={error} />
        <label className="field">
          <span>Email</span>
          <input type="email" name="email" autoComplete="username" required autoFocus value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label className="field">
          <span>Password</span>
          <input type="password" name="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        </label>
        <button type="submit" className="button button-primary button-block" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p className="muted">Forgot your password? An owner or admin of your organization can give you a reset link.</p>
        {signupOpen ? (
          <p className="muted">
            No account yet? <Link to="/signup">Create one</Link>
          </p>
        ) : null}
      </form>
    </main>
  );
}
