/** The OAuth authorization routes' records (authorizations.ts): the presenters that turn the domain's rows into them, typed from the response schemas. */
import type { z } from 'zod';
import type { UserAuthorization } from '../../domain/oauth/authorizations.ts';
import type { OAuthAuthorizationSchema } from './authorizations.ts';

export type OAuthAuthorizationRecord = z.infer<typeof OAuthAuthorizationSchema>;

export function presentAuthorization(a: UserAuthorization): z.infer<typeof OAuthAuthorizationSchema> {
  return {
    id: a.id,
    client: { client_id: a.client.clientId, name: a.client.name },
    scopes: a.scopes,
    organizations: a.organizations,
    created_at: a.createdAt.toISOString(),
    last_used_at: a.lastUsedAt?.toISOString() ?? null,
  };
}
