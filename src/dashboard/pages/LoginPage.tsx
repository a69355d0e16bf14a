import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api.ts';
import { TextField } from '../forms.tsx';
import { Link } from '../router.tsx';
import { ErrorMessage } from '../ui.tsx';
import { StandaloneCard } from './StandaloneCard.tsx';
import { useSignInForm } from './sign-in-form.tsx';

type Props = { notice?: string; onLoggedIn(): Promise<void> };

export function LoginPage({ notice, onLoggedIn }: Props) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  // Only a hint: if the server cannot say, no sign-up link shows.
  const signup = useQuery({ queryKey: ['signup-state'], queryFn: api.signupState, retry: false, staleTime: Infinity });
  const form = useSignInForm({
    send: () => api.login(email.trim(), password),
    forget: () => setPassword(''),
    then: onLoggedIn,
    fields: ['/email', '/password'],
  });

  return (
    <StandaloneCard title="Sign in" session={undefined}>
      <form onSubmit={form.onSubmit} aria-label="Sign in">
        <p className="muted">Use the email and password of your Parley account.</p>
        {notice && !form.errors.message ? (
          <div className="alert alert-info" role="status">
            {notice}
          </div>
        ) : null}
        <ErrorMessage message={form.summary} />
        <TextField
          label="Email"
          type="email"
          name="email"
          autoFocus
          autoComplete="username"
          required
          value={email}
          onChange={setEmail}
          error={form.errors.field('/email')}
        />
        <TextField
          label="Password"
          type="password"
          name="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={setPassword}
          error={form.errors.field('/password')}
        />
        <button type="submit" className="button button-primary button-block" disabled={form.busy}>
          {form.busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p className="muted">Forgot your password? An owner or admin of your organization can give you a reset link.</p>
      {signup.data?.open ? (
        <p className="muted">
          No account yet? <Link to="/signup">Create one</Link>
        </p>
      ) : null}
    </StandaloneCard>
  );
}
