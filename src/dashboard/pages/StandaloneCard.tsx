/**
 * The card the pages outside the app's shell stand in (sign-in, sign-up, password reset, invitation,
 * the OAuth consent and device pages): the Parley mark, the title, and who is signed in, if anyone.
 */
import type { ReactNode } from 'react';
import type { SessionInfoRecord } from '../api.ts';
import { Brand, usePageTitle } from '../ui.tsx';

export function StandaloneCard({
  title,
  session,
  children,
}: {
  title: string;
  session: SessionInfoRecord | undefined;
  children: ReactNode;
}) {
  usePageTitle(title);
  return (
    <main className="login">
      <section className="card login-card oauth-card" aria-labelledby="standalone-title">
        <Brand dark />
        <h1 id="standalone-title">{title}</h1>
        {children}
        {session ? (
          <p className="muted small oauth-account">
            Signed in as <span className="strong">{session.user.email}</span>
          </p>
        ) : null}
      </section>
    </main>
  );
}
