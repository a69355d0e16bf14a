/** Notes on a contact: free text with its author (a user or an API key) and time. */
import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { afterCursor, newestFirst, toPage, type Page, type PageResult } from '../../db/paginate.ts';
import { contactNotes } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { loadContactRow, OBJECT_KIND } from './record.ts';

type NoteRow = typeof contactNotes.$inferSelect;

export type NoteAuthor = { type: 'user' | 'api_key' | 'system'; id: string | null };
export type NoteRecord = { id: string; contact_id: string; body: string; author: NoteAuthor; created_at: string };

function presentNote(row: NoteRow): NoteRecord {
  return {
    id: row.id,
    contact_id: row.contactId,
    body: row.body,
    author: { type: row.authorType as NoteAuthor['type'], id: row.authorId },
    created_at: row.createdAt.toISOString(),
  };
}

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

export async function listNotes(db: Executor, actor: Actor, contactId: string, page: Page): Promise<PageResult<NoteRecord>> {
  const contact = await loadContactRow(db, actor.organizationId, contactId);
  const rows = await db
    .select()
    .from(contactNotes)
    .where(and(eq(contactNotes.contactId, contact.id), afterCursor(contactNotes.createdAt, contactNotes.id, page.cursor)))
    .orderBy(...newestFirst(contactNotes.createdAt, contactNotes.id))
    .limit(page.limit + 1);
  return toPage(rows, page.limit, presentNote);
}

/** Adds a note; records crm.comment.created. */
export async function createNote(db: Executor, actor: Actor, contactId: string, body: string, clock: Clock): Promise<NoteRecord> {
  return db.transaction(async (tx) => {
    const contact = await loadContactRow(tx, actor.organizationId, contactId);
    const author = authorOf(actor);
    const [row] = await tx
      .insert(contactNotes)
      .values({ id: uuidv7(), organizationId: actor.organizationId, contactId: contact.id, authorType: author.type, authorId: author.id, body, createdAt: clock.now() })
      .returning();
    await recordEvent(tx, actor.organizationId, 'crm.comment.created', { comment_id: row!.id, record_id: contact.id, object_kind: OBJECT_KIND, organization_id: actor.organizationId });
    return presentNote(row!);
  });
}

/** Deletes a note; records crm.comment.deleted. */
export async function deleteNote(db: Executor, actor: Actor, contactId: string, noteId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const contact = await loadContactRow(tx, actor.organizationId, contactId);
    if (!isUuid(noteId)) throw notFound('note');
    const rows = await tx
      .delete(contactNotes)
      .where(and(eq(contactNotes.id, noteId), eq(contactNotes.contactId, contact.id)))
      .returning({ id: contactNotes.id });
    if (rows.length === 0) throw notFound('note');
    await recordEvent(tx, actor.organizationId, 'crm.comment.deleted', { comment_id: noteId, record_id: contact.id, object_kind: OBJECT_KIND, organization_id: actor.organizationId });
  });
}
