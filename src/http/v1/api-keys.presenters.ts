/** The API key routes' records (api-keys.ts): the presenters that turn the domain's rows into them, typed from the response schemas. */
import type { z } from 'zod';
import type { ApiKeyRow } from '../../domain/api-keys/api-keys.ts';
import { isPermission } from '../../domain/permissions.ts';
import type { ApiKeySchema, CreatedApiKeySchema } from './api-keys.ts';

export type ApiKeyRecord = z.infer<typeof ApiKeySchema>;
export type CreatedApiKeyRecord = z.infer<typeof CreatedApiKeySchema>;

export function presentApiKey(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    last_four: row.lastFour,
    permissions: row.permissions.filter(isPermission),
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    expires_at: row.expiresAt?.toISOString() ?? null,
    created_by: row.createdByUserId
      ? { type: 'user', id: row.createdByUserId }
      : row.createdByKeyId
        ? { type: 'api_key', id: row.createdByKeyId }
        : null,
  };
}
