/** A merge preview (contacts-merge.ts) as the API answers it. */
import type { z } from 'zod';
import type { MergePreview } from '../../domain/contacts/merge-duplicate.ts';
import { presentContact } from './contacts.presenters.ts';
import type { MergePreviewSchema } from './contacts-merge.ts';

export type ContactMergePreviewRecord = z.infer<typeof MergePreviewSchema>;

export function presentPreview(p: MergePreview): ContactMergePreviewRecord {
  return {
    survivor: presentContact(p.survivor),
    duplicate: presentContact(p.duplicate),
    result: presentContact({ ...p.result, tags: [...new Set([...p.survivor.tags, ...p.duplicate.tags])].sort() }),
    moves: p.moves,
    conflicts: p.conflicts,
  };
}
