/** Notes on a contact: free text with its author (a user or an API key) and time. */
import { and, eq } from 'drizzle-orm';
import { listPage, newestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { cursorKey } from '../paging.ts';
import { contactNotes } from '../../db/schema.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { loadContactRow, OBJECT_KIND, type ContactDeps, type ContactClockDeps } from './record.ts';

export type NoteRow = typeof contactNotes.$inferSelect;

export const NOTE_AUTHOR_TYPES = ['user', 'api_key', 'system'] as const;
export type NoteAuthor = { type: (typeof NOTE_AUTHOR_TYPES)[number]; id: string | null };

function authorOf(actor: Actor): NoteAuthor {
  switch (actor.kind) {
    case 'user':
    case 'oauth':
      return { type: 'user', id: actor.userId };
    case 'api_key':
      return { type: 'api_key', id: actor.apiKeyId };
    case 'system':
      return { type: 'system', id: null };
    default:
      return actor satisfies never;
  }
}

export async function listNotes(
  { db }: ContactDeps,
  actor: Actor,
  { contactId, ...page }: { contactId: string } & Page,
): Promise<PageResult<NoteRow>> {
  const contact = await loadContactRow(db, actor.organizationId, contactId);
  return listPage(db.select().from(contactNotes).$dynamic(), {
    where: [eq(contactNotes.contactId, contact.id)],
    order: newestFirstBy(contactNotes.createdAt, contactNotes.id),
    after: cursorKey(page.cursor),
    limit: page.limit,
  });
}

/** Adds a note; records crm.comment.created. */
export async function createNote(
  { db, clock }: ContactClockDeps,
  actor: Actor,
  { contactId, body }: { contactId: string; body: string },
): Promise<NoteRow> {
  return db.transaction(async (tx) => {
    const contact = await loadContactRow(tx, actor.organizationId, contactId, { lock: true });
    const author = authorOf(actor);
    const [row] = await tx
      .insert(contactNotes)
      .values({
        id: uuidv7(),
        organizationId: actor.organizationId,
        contactId: contact.id,
        authorType: author.type,
        authorId: author.id,
        body,
        createdAt: clock.now(),
      })
      .returning();
    await recordEvent(tx, actor.organizationId, 'crm.comment.created', {
      comment_id: row!.id,
      record_id: contact.id,
      object_kind: OBJECT_KIND,
      organization_id: actor.organizationId,
    });
    return row!;
  });
}

/** Deletes a note; records crm.comment.deleted. */
export async function deleteNote(
  { db }: ContactDeps,
  actor: Actor,
  { contactId, noteId }: { contactId: string; noteId: string },
): Promise<void> {
  await db.transaction(async (tx) => {
    const contact = await loadContactRow(tx, actor.organizationId, contactId);
    if (!isUuid(noteId)) throw notFound('note');
    const rows = await tx
      .delete(contactNotes)
      .where(and(eq(contactNotes.id, noteId), eq(contactNotes.contactId, contact.id)))
      .returning({ id: contactNotes.id });
    if (rows.length === 0) throw notFound('note');
    await recordEvent(tx, actor.organizationId, 'crm.comment.deleted', {
      comment_id: noteId,
      record_id: contact.id,
      object_kind: OBJECT_KIND,
      organization_id: actor.organizationId,
    });
  });
}
