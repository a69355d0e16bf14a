/** The canned responses routes' records (canned-responses.ts), typed from the response schema. */
import type { z } from 'zod';
import type { CannedResponseRow } from '../../domain/canned-responses/canned-responses.ts';
import type { CannedResponseSchema } from './canned-responses.ts';

export type CannedResponseRecord = z.infer<typeof CannedResponseSchema>;

export function presentCannedResponse(row: CannedResponseRow): CannedResponseRecord {
  return {
    id: row.id,
    name: row.name,
    shortcut: row.shortcut,
    body: row.body,
    shared: row.ownerUserId === null,
    owner_user_id: row.ownerUserId,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
