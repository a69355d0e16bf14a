/**
 * Comments on a record (a contact, company, deal, task or conversation): free text with its author (a
 * user, an API key, or an OAuth app for its user) and times. Only its author edits a comment; anyone
 * who may write the CRM deletes one. A contact's notes (contacts/notes.ts) are its comments.
 * crm.comment.created / updated / deleted record each change.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { given, listPage, newestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { comments } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { checkRecords, nameRecords, type NamedRecordRef, type RecordKind, type RecordRef } from '../crm/record-refs.ts';
import { changedBy } from '../crm/records.ts';
import { forbidden, notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { cursorKey } from '../paging.ts';

export const COMMENT_KINDS = ['contact', 'company', 'deal', 'task', 'conversation'] as const satisfies readonly RecordKind[];
export const COMMENT_BODY_MAX = 10_000;

export type CommentRow = typeof comments.$inferSelect;
/** A comment with its record named as it is now. */
export type CommentView = CommentRow & { record: NamedRecordRef };
export type CommentDeps = { db: Executor };
export type CommentClockDeps = { db: Executor; clock: Clock };

export const commentNotFound = () => notFound('comment');

/** The comments with their records' names (one query per kind). */
async function named(db: Executor, organizationId: string, rows: CommentRow[]): Promise<CommentView[]> {
  const records = await nameRecords(
    db,
    organizationId,
    rows.map((r) => ({ kind: r.recordKind as RecordKind, id: r.recordId })),
  );
  return rows.map((row, i) => ({ ...row, record: records[i]! }));
}

async function recordCommentEvent(tx: Executor, change: 'created' | 'updated' | 'deleted', row: CommentRow): Promise<void> {
  await recordEvent(tx, row.organizationId, `crm.comment.${change}`, {
    comment_id: row.id,
    record_id: row.recordId,
    object_kind: row.recordKind,
    organization_id: row.organizationId,
  });
}

/** Adds a comment to a record of the organization (400 naming record.id for one it does not have); records crm.comment.created. */
export async function createComment(
  { db, clock }: CommentClockDeps,
  actor: Actor,
  input: { record: RecordRef; body: string },
): Promise<CommentView> {
  return db.transaction(async (tx) => {
    const row = await insertComment(tx, clock, actor, input);
    return (await named(tx, actor.organizationId, [row]))[0]!;
  });
}

/** Adds a comment to a record of the organization, in the caller's transaction; records crm.comment.created. */
export async function insertComment(
  tx: Executor,
  clock: Clock,
  actor: Actor,
  input: { record: RecordRef; body: string },
): Promise<CommentRow> {
  const [record] = await checkRecords(tx, actor.organizationId, [input.record], () => '/record/id');
  const author = changedBy(actor);
  const [row] = await tx
    .insert(comments)
    .values({
      id: uuidv7(),
      organizationId: actor.organizationId,
      recordKind: record!.kind,
      recordId: record!.id,
      authorType: author.type,
      authorId: author.id,
      authorUserId: author.userId,
      body: input.body,
      createdAt: clock.now(),
    })
    .returning();
  await recordCommentEvent(tx, 'created', row!);
  return row!;
}

/** The organization's comments, newest first: on one record, or all of them. A record of another organization has none. */
export async function listComments(
  { db }: CommentDeps,
  actor: Actor,
  query: Page & { record?: RecordRef },
): Promise<PageResult<CommentView>> {
  const page = await listCommentRows({ db }, actor, query);
  return { items: await named(db, actor.organizationId, page.items), nextCursor: page.nextCursor };
}

/** listComments without the records' names (a contact's notes). */
export async function listCommentRows(
  { db }: CommentDeps,
  actor: Actor,
  query: Page & { record?: RecordRef },
): Promise<PageResult<CommentRow>> {
  return listPage(db.select().from(comments).$dynamic(), {
    where: [
      eq(comments.organizationId, actor.organizationId),
      given(query.record, (ref) =>
        isUuid(ref.id) ? and(eq(comments.recordId, ref.id.toLowerCase()), eq(comments.recordKind, ref.kind))! : sql`false`,
      ),
    ],
    order: newestFirstBy(comments.createdAt, comments.id),
    after: cursorKey(query.cursor),
    limit: query.limit,
  });
}

/** A comment of the organization (on the record, when one is named), or undefined; `lock`: locked to be changed. */
export async function loadComment(
  db: Executor,
  organizationId: string,
  commentId: string,
  options: { record?: RecordRef; lock?: boolean } = {},
): Promise<CommentRow | undefined> {
  if (!isUuid(commentId)) return undefined;
  const query = db
    .select()
    .from(comments)
    .where(
      and(
        eq(comments.id, commentId.toLowerCase()),
        eq(comments.organizationId, organizationId),
        options.record ? and(eq(comments.recordId, options.record.id), eq(comments.recordKind, options.record.kind)) : undefined,
      ),
    )
    .limit(1);
  const [row] = options.lock ? await query.for('update') : await query;
  return row;
}

export async function getComment({ db }: CommentDeps, actor: Actor, { commentId }: { commentId: string }): Promise<CommentView> {
  const row = await loadComment(db, actor.organizationId, commentId);
  if (!row) throw commentNotFound();
  return (await named(db, actor.organizationId, [row]))[0]!;
}

/** Whether the actor wrote the comment: the same person (by session or through an app), or the same API key. */
function isAuthor(row: CommentRow, actor: Actor): boolean {
  switch (actor.kind) {
    case 'user':
    case 'oauth':
      return row.authorUserId === actor.userId;
    case 'api_key':
      return row.authorType === 'api_key' && row.authorId === actor.apiKeyId;
    case 'system':
      return row.authorType === 'system';
    default:
      return actor satisfies never;
  }
}

/** Changes a comment's body (its author only: 403 for anyone else); records crm.comment.updated when it changed. */
export async function updateComment(
  { db, clock }: CommentClockDeps,
  actor: Actor,
  { commentId, body }: { commentId: string; body: string },
): Promise<CommentView> {
  return db.transaction(async (tx) => {
    const row = await loadComment(tx, actor.organizationId, commentId, { lock: true });
    if (!row) throw commentNotFound();
    if (!isAuthor(row, actor)) throw forbidden('only the author of a comment edits it');
    if (body === row.body) return (await named(tx, actor.organizationId, [row]))[0]!;
    const [updated] = await tx
      .update(comments)
      .set({ body, editedAt: clock.now() })
      .where(and(eq(comments.id, row.id), eq(comments.organizationId, actor.organizationId)))
      .returning();
    await recordCommentEvent(tx, 'updated', updated!);
    return (await named(tx, actor.organizationId, [updated!]))[0]!;
  });
}

/** Deletes a loaded comment in the caller's transaction; records crm.comment.deleted. */
export async function removeComment(tx: Executor, row: CommentRow): Promise<void> {
  await tx.delete(comments).where(and(eq(comments.id, row.id), eq(comments.organizationId, row.organizationId)));
  await recordCommentEvent(tx, 'deleted', row);
}

/** Deletes a comment; records crm.comment.deleted. */
export async function deleteComment({ db }: CommentDeps, actor: Actor, { commentId }: { commentId: string }): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await loadComment(tx, actor.organizationId, commentId, { lock: true });
    if (!row) throw commentNotFound();
    await removeComment(tx, row);
  });
}
