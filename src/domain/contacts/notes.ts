/**
 * A contact's notes: its comments (domain/comments), read and written through the contacts routes as
 * they always were (the body, its author and time). A note written here is a comment of the contact,
 * and a comment of the contact is one of its notes.
 */
import type { PageResult, Page } from '../../db/paginate.ts';
import type { Actor } from '../actor.ts';
import { insertComment, listCommentRows, loadComment, removeComment, type CommentRow } from '../comments/comments.ts';
import { notFound } from '../errors.ts';
import { loadContactRow, OBJECT_KIND, type ContactDeps, type ContactClockDeps } from './record.ts';

export type NoteRow = CommentRow;

export const NOTE_AUTHOR_TYPES = ['user', 'api_key', 'system'] as const;
export type NoteAuthor = { type: (typeof NOTE_AUTHOR_TYPES)[number]; id: string | null };

/** A note's author as the notes routes have always shown it: a person (by session or through an app), an API key, or the system. */
export function noteAuthor(row: NoteRow): NoteAuthor {
  switch (row.authorType) {
    case 'user':
    case 'oauth_client':
      return { type: 'user', id: row.authorUserId };
    case 'api_key':
      return { type: 'api_key', id: row.authorId };
    default:
      return { type: 'system', id: null };
  }
}

const contactRef = (id: string) => ({ kind: OBJECT_KIND, id }) as const;

/** The contact's notes, newest first (404 for a contact the organization does not have). */
export async function listNotes(
  { db }: ContactDeps,
  actor: Actor,
  { contactId, ...page }: { contactId: string } & Page,
): Promise<PageResult<NoteRow>> {
  const contact = await loadContactRow(db, actor.organizationId, contactId);
  return listCommentRows({ db }, actor, { ...page, record: contactRef(contact.id) });
}

/** Adds a note; records crm.comment.created. */
export async function createNote(
  { db, clock }: ContactClockDeps,
  actor: Actor,
  { contactId, body }: { contactId: string; body: string },
): Promise<NoteRow> {
  return db.transaction(async (tx) => {
    const contact = await loadContactRow(tx, actor.organizationId, contactId, { lock: true });
    return insertComment(tx, clock, actor, { record: contactRef(contact.id), body });
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
    const row = await loadComment(tx, actor.organizationId, noteId, { record: contactRef(contact.id), lock: true });
    if (!row) throw notFound('note');
    await removeComment(tx, row);
  });
}
