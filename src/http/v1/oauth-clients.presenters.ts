/** The OAuth client routes' records (oauth-clients.ts): the presenters that turn the domain's rows into them, typed from the response schemas. */
import type { z } from 'zod';
import { GRANT_TYPE_VALUES, type OAuthClient } from '../../domain/oauth/vocabulary.ts';
import { isPermission } from '../../domain/permissions.ts';
import type { OAuthClientSchema, CreatedOAuthClientSchema, ClientSecretSchema } from './oauth-clients.ts';

export type OAuthClientRecord = z.infer<typeof OAuthClientSchema>;
export type CreatedOAuthClientRecord = z.infer<typeof CreatedOAuthClientSchema>;
export type OAuthClientSecretRecord = z.infer<typeof ClientSecretSchema>;

export function presentClient(client: OAuthClient): OAuthClientRecord {
  return {
    client_id: client.clientId,
    name: client.name,
    type: client.type === 'confidential' ? 'confidential' : 'public',
    redirect_uris: client.redirectUris,
    grant_types: client.grantTypes.filter((g) => (GRANT_TYPE_VALUES as readonly string[]).includes(g)),
    scopes: client.scopes.filter(isPermission),
    created_by: client.createdByUserId ? { type: 'user', id: client.createdByUserId } : null,
    created_at: client.createdAt.toISOString(),
    updated_at: client.updatedAt.toISOString(),
  };
}
