/** The comments routes' records (comments.ts): the presenter of a comment, typed from the response schema. */
import type { z } from 'zod';
import type { CommentView } from '../../domain/comments/comments.ts';
import type { CommentSchema } from './comments.ts';
import { presentChangedBy, presentRecordRef } from './crm.presenters.ts';

export type CommentRecord = z.infer<typeof CommentSchema>;

export function presentComment(row: CommentView): CommentRecord {
  return {
    id: row.id,
    record: presentRecordRef(row.record),
    body: row.body,
    author: presentChangedBy(row.authorType, row.authorId, row.authorUserId),
    created_at: row.createdAt.toISOString(),
    edited_at: row.editedAt?.toISOString() ?? null,
  };
}
