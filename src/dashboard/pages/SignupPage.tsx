/** Open sign-up (only reachable when the server runs with SIGNUP=open): an account and an organization of one's own. */
import { useState } from 'react';
import { api } from '../api.ts';
import { TextField } from '../forms.tsx';
import { Link } from '../router.tsx';
import { ErrorMessage } from '../ui.tsx';
import { StandaloneCard } from './StandaloneCard.tsx';
import { NewPasswordField, useSignInForm } from './sign-in-form.tsx';

type Props = { onSignedUp(): Promise<void> };

export function SignupPage({ onSignedUp }: Props) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [organization, setOrganization] = useState('');
  const [password, setPassword] = useState('');
  const form = useSignInForm({
    send: () => api.signup({ name: name.trim(), email: email.trim(), password, organization_name: organization.trim() }),
    forget: () => setPassword(''),
    then: onSignedUp,
    fields: ['/name', '/email', '/password', '/organization_name'],
  });

  return (
    <StandaloneCard title="Create an account" session={undefined}>
      <form onSubmit={form.onSubmit} aria-label="Create an account">
        <p className="muted">You get an organization of your own; invite your colleagues to it later.</p>
        <ErrorMessage message={form.summary} />
        <TextField
          label="Your name"
          name="name"
          autoFocus
          autoComplete="name"
          required
          maxLength={200}
          value={name}
          onChange={setName}
          error={form.errors.field('/name')}
        />
        <TextField
          label="Email"
          type="email"
          name="email"
          autoComplete="username"
          required
          maxLength={320}
          value={email}
          onChange={setEmail}
          error={form.errors.field('/email')}
        />
        <NewPasswordField value={password} onChange={setPassword} error={form.errors.field('/password')} />
        <TextField
          label="Organization name"
          name="organization_name"
          autoComplete="organization"
          required
          maxLength={200}
          value={organization}
          onChange={setOrganization}
          error={form.errors.field('/organization_name')}
        />
        <button type="submit" className="button button-primary button-block" disabled={form.busy}>
          {form.busy ? 'Creating…' : 'Create account'}
        </button>
      </form>
      <p className="muted">
        Have an account? <Link to="/login">Sign in</Link>
      </p>
    </StandaloneCard>
  );
}
