/**
 * The team inbox's workflow on conversations (docs/inbox.md): the organization's conversation labels
 * (named, colored) put on and taken off, private notes with @mentions of members (the team's own: never
 * sent to the customer, never handed to a provider), and bulk actions on a selection. Every change
 * records its event in the transaction that makes it.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.ts';
import { listPage, oldestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { conversationLabelLinks, conversationLabels, conversationNotes, conversations, organizations } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { DomainError, invalid, notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { cursorKey } from '../paging.ts';
import {
  applyConversationChange,
  checkMember,
  type ConversationHooks,
  loadConversation,
  type ConversationPriority,
  type ConversationRow,
} from './conversations.ts';

export type WorkflowDeps = { db: Db; clock: Clock; hooks?: ConversationHooks };
export type ConversationLabelRow = typeof conversationLabels.$inferSelect;
export type ConversationNoteRow = typeof conversationNotes.$inferSelect;

export const LABEL_NAME_MAX = 50;
export const NOTE_BODY_MAX = 4096;
export const NOTE_MENTIONS_MAX = 20;
export const BULK_MAX = 100;
export const COLOR_RE = /^#[0-9a-fA-F]{6}$/;

const userOf = (actor: Actor): string | null => (actor.kind === 'user' || actor.kind === 'oauth' ? actor.userId : null);

// Conversation labels

async function loadLabel(db: Executor, actor: Actor, id: string): Promise<ConversationLabelRow> {
  if (!isUuid(id)) throw notFound('conversation label');
  const [row] = await db
    .select()
    .from(conversationLabels)
    .where(and(eq(conversationLabels.id, id.toLowerCase()), eq(conversationLabels.organizationId, actor.organizationId)))
    .limit(1);
  if (!row) throw notFound('conversation label');
  return row;
}

const takenName = (name: string) =>
  new DomainError('conflict', `a conversation label named ${name} exists already`, {
    fieldErrors: [{ pointer: '/name', message: 'taken' }],
  });

async function nameTaken(tx: Executor, organizationId: string, name: string, except?: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: conversationLabels.id })
    .from(conversationLabels)
    .where(
      and(
        eq(conversationLabels.organizationId, organizationId),
        sql`lower(${conversationLabels.name}) = lower(${name})`,
        except ? sql`${conversationLabels.id} <> ${except}` : undefined,
      ),
    )
    .limit(1);
  return row !== undefined;
}

const labelBody = (row: ConversationLabelRow) => ({
  label_id: row.id,
  name: row.name,
  color: row.color,
  organization_id: row.organizationId,
});
const lockOrganization = (tx: Executor, organizationId: string) =>
  tx.execute(sql`select 1 from ${organizations} where ${organizations.id} = ${organizationId} for no key update`);

export async function createConversationLabel(
  { db, clock }: WorkflowDeps,
  actor: Actor,
  input: { name: string; color: string },
): Promise<ConversationLabelRow> {
  return db.transaction(async (tx) => {
    // One writer per organization at a time: a taken name is answered as a 409 naming it.
    await lockOrganization(tx, actor.organizationId);
    if (await nameTaken(tx, actor.organizationId, input.name)) throw takenName(input.name);
    const now = clock.now();
    const [row] = await tx
      .insert(conversationLabels)
      .values({
        id: uuidv7(),
        organizationId: actor.organizationId,
        name: input.name,
        color: input.color.toLowerCase(),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await recordEvent(tx, actor.organizationId, 'conversation_label.created', labelBody(row!), now);
    return row!;
  });
}

export async function listConversationLabels(
  { db }: { db: Executor },
  actor: Actor,
  page: Page,
): Promise<PageResult<ConversationLabelRow>> {
  return listPage(db.select().from(conversationLabels).$dynamic(), {
    where: [eq(conversationLabels.organizationId, actor.organizationId)],
    order: oldestFirstBy(conversationLabels.createdAt, conversationLabels.id),
    after: cursorKey(page.cursor),
    limit: page.limit,
  });
}

export const getConversationLabel = ({ db }: { db: Executor }, actor: Actor, id: string) => loadLabel(db, actor, id);

export async function updateConversationLabel(
  { db, clock }: WorkflowDeps,
  actor: Actor,
  id: string,
  input: { name?: string; color?: string },
): Promise<ConversationLabelRow> {
  return db.transaction(async (tx) => {
    const row = await loadLabel(tx, actor, id);
    const next = { name: input.name ?? row.name, color: input.color?.toLowerCase() ?? row.color };
    if (next.name === row.name && next.color === row.color) return row;
    if (next.name.toLowerCase() !== row.name.toLowerCase()) {
      await lockOrganization(tx, actor.organizationId);
      if (await nameTaken(tx, actor.organizationId, next.name, row.id)) throw takenName(next.name);
    }
    const now = clock.now();
    const [updated] = await tx
      .update(conversationLabels)
      .set({ ...next, updatedAt: now })
      .where(eq(conversationLabels.id, row.id))
      .returning();
    await recordEvent(tx, actor.organizationId, 'conversation_label.updated', labelBody(updated!), now);
    return updated!;
  });
}

/** Deletes a label; it comes off every conversation with it (one conversation_label.deleted says so). */
export async function deleteConversationLabel({ db, clock }: WorkflowDeps, actor: Actor, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await loadLabel(tx, actor, id);
    await tx.delete(conversationLabels).where(eq(conversationLabels.id, row.id));
    await recordEvent(tx, actor.organizationId, 'conversation_label.deleted', labelBody(row), clock.now());
  });
}

/** The labels named, all of the organization's; another organization's (or an unknown) id is refused naming its place. */
async function checkLabels(tx: Executor, actor: Actor, ids: string[], pointer: string): Promise<string[]> {
  const wanted = ids.map((id) => id.toLowerCase());
  const valid = wanted.filter(isUuid);
  const found = valid.length
    ? await tx
        .select({ id: conversationLabels.id })
        .from(conversationLabels)
        .where(and(eq(conversationLabels.organizationId, actor.organizationId), inArray(conversationLabels.id, valid)))
    : [];
  const known = new Set(found.map((r) => r.id));
  const missing = wanted.findIndex((id) => !known.has(id));
  if (missing >= 0)
    throw invalid(`${pointer.slice(1)} names a label this organization does not have`, [
      { pointer: `${pointer}/${missing}`, message: 'not a conversation label of this organization' },
    ]);
  return [...new Set(wanted)];
}

/** Puts labels on (add) or takes them off (remove) a loaded conversation; records conversation.labels_changed when something changed. */
async function changeLabels(tx: Executor, row: ConversationRow, add: string[], remove: string[], now: Date): Promise<boolean> {
  const added = add.length
    ? await tx
        .insert(conversationLabelLinks)
        .values(add.map((labelId) => ({ conversationId: row.id, labelId, organizationId: row.organizationId, createdAt: now })))
        .onConflictDoNothing()
        .returning({ id: conversationLabelLinks.labelId })
    : [];
  const removed = remove.length
    ? await tx
        .delete(conversationLabelLinks)
        .where(and(eq(conversationLabelLinks.conversationId, row.id), inArray(conversationLabelLinks.labelId, remove)))
        .returning({ id: conversationLabelLinks.labelId })
    : [];
  if (added.length === 0 && removed.length === 0) return false;
  const now_ = await tx
    .select({ id: conversationLabelLinks.labelId })
    .from(conversationLabelLinks)
    .where(eq(conversationLabelLinks.conversationId, row.id));
  await tx.update(conversations).set({ updatedAt: now }).where(eq(conversations.id, row.id));
  await recordEvent(
    tx,
    row.organizationId,
    'conversation.labels_changed',
    {
      conversation_id: row.id,
      label_ids: now_.map((r) => r.id).sort(),
      added: added.map((r) => r.id).sort(),
      removed: removed.map((r) => r.id).sort(),
      organization_id: row.organizationId,
    },
    now,
  );
  return true;
}

export async function addConversationLabels(
  { db, clock }: WorkflowDeps,
  actor: Actor,
  conversationId: string,
  labelIds: string[],
): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await loadConversation({ db: tx }, actor, conversationId);
    const ids = await checkLabels(tx, actor, labelIds, '/label_ids');
    await changeLabels(tx, row, ids, [], clock.now());
  });
}

export async function removeConversationLabel(
  { db, clock }: WorkflowDeps,
  actor: Actor,
  conversationId: string,
  labelId: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await loadConversation({ db: tx }, actor, conversationId);
    const label = await loadLabel(tx, actor, labelId);
    await changeLabels(tx, row, [], [label.id], clock.now());
  });
}

// Private notes

export async function createConversationNote(
  { db, clock }: WorkflowDeps,
  actor: Actor,
  conversationId: string,
  input: { body: string; mentions?: string[] },
): Promise<ConversationNoteRow> {
  return db.transaction(async (tx) => {
    const conversation = await loadConversation({ db: tx }, actor, conversationId);
    const mentions = [...new Set((input.mentions ?? []).map((id) => id.toLowerCase()))];
    for (const [n, id] of (input.mentions ?? []).entries()) await checkMember(tx, actor.organizationId, id, `/mentions/${n}`);
    const now = clock.now();
    const [row] = await tx
      .insert(conversationNotes)
      .values({
        id: uuidv7(),
        organizationId: actor.organizationId,
        conversationId: conversation.id,
        authorUserId: userOf(actor),
        body: input.body,
        mentions,
        createdAt: now,
      })
      .returning();
    await recordEvent(
      tx,
      actor.organizationId,
      'conversation.note_created',
      {
        conversation_id: conversation.id,
        note_id: row!.id,
        author_user_id: row!.authorUserId,
        mentions,
        organization_id: actor.organizationId,
      },
      now,
    );
    return row!;
  });
}

/** A conversation's notes, oldest first (as a thread reads). */
export async function listConversationNotes(
  { db }: { db: Executor },
  actor: Actor,
  conversationId: string,
  page: Page,
): Promise<PageResult<ConversationNoteRow>> {
  const conversation = await loadConversation({ db }, actor, conversationId);
  return listPage(db.select().from(conversationNotes).$dynamic(), {
    where: [eq(conversationNotes.conversationId, conversation.id), eq(conversationNotes.organizationId, actor.organizationId)],
    order: oldestFirstBy(conversationNotes.createdAt, conversationNotes.id),
    after: cursorKey(page.cursor),
    limit: page.limit,
  });
}

export async function deleteConversationNote(
  { db, clock }: WorkflowDeps,
  actor: Actor,
  conversationId: string,
  noteId: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    const conversation = await loadConversation({ db: tx }, actor, conversationId);
    const [row] = isUuid(noteId)
      ? await tx
          .delete(conversationNotes)
          .where(and(eq(conversationNotes.id, noteId.toLowerCase()), eq(conversationNotes.conversationId, conversation.id)))
          .returning()
      : [];
    if (!row) throw notFound('note');
    await recordEvent(
      tx,
      actor.organizationId,
      'conversation.note_deleted',
      { conversation_id: conversation.id, note_id: row.id, organization_id: actor.organizationId },
      clock.now(),
    );
  });
}

// Bulk actions

export const BULK_ACTIONS = ['assign', 'label', 'unlabel', 'resolve', 'reopen', 'set_priority'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];
export type BulkInput = {
  ids: string[];
  action: BulkAction;
  assigneeUserId?: string | null;
  labelIds?: string[];
  priority?: ConversationPriority;
};
export type BulkResult = { id: string; status: 'updated' | 'unchanged' | 'not_found' };

/**
 * One action on up to BULK_MAX conversations, in one transaction, each change with its own events (as
 * the single-conversation routes record them). The action's argument is checked once, before anything
 * changes (a bad one refuses the whole request, naming the field); an id that is no conversation of the
 * organization answers not_found in its place and the others go on.
 */
export async function bulkConversations({ db, clock, hooks }: WorkflowDeps, actor: Actor, input: BulkInput): Promise<BulkResult[]> {
  const missingArgument = (field: string, action: string) =>
    invalid(`${field} is required for ${action}`, [{ pointer: `/${field}`, message: `required for ${action}` }]);
  return db.transaction(async (tx) => {
    let labelIds: string[] = [];
    if (input.action === 'assign') {
      if (input.assigneeUserId === undefined) throw missingArgument('assignee_user_id', 'assign');
      if (input.assigneeUserId !== null) await checkMember(tx, actor.organizationId, input.assigneeUserId, '/assignee_user_id');
    }
    if (input.action === 'label' || input.action === 'unlabel') {
      if (!input.labelIds?.length) throw missingArgument('label_ids', input.action);
      labelIds = await checkLabels(tx, actor, input.labelIds, '/label_ids');
    }
    if (input.action === 'set_priority' && input.priority === undefined) throw missingArgument('priority', 'set_priority');
    const ids = input.ids.map((id) => id.toLowerCase());
    const valid = [...new Set(ids.filter(isUuid))];
    const rows = valid.length
      ? await tx
          .select()
          .from(conversations)
          .where(and(eq(conversations.organizationId, actor.organizationId), inArray(conversations.id, valid)))
          .orderBy(conversations.id)
          .for('update')
      : [];
    const byId = new Map(rows.map((r) => [r.id, r]));
    const now = clock.now();
    const results: BulkResult[] = [];
    const done = new Set<string>();
    for (const id of ids) {
      const row = byId.get(id);
      if (!row) {
        results.push({ id, status: 'not_found' });
        continue;
      }
      if (done.has(id)) {
        results.push({ id, status: 'unchanged' });
        continue;
      }
      done.add(id);
      let changed: boolean;
      switch (input.action) {
        case 'assign':
          changed = (await applyConversationChange(tx, row, { assigneeUserId: input.assigneeUserId }, now)) !== row;
          break;
        case 'resolve':
          changed = (await applyConversationChange(tx, row, { status: 'resolved' }, now, hooks)) !== row;
          break;
        case 'reopen':
          changed = (await applyConversationChange(tx, row, { status: 'open' }, now)) !== row;
          break;
        case 'set_priority':
          changed = (await applyConversationChange(tx, row, { priority: input.priority }, now)) !== row;
          break;
        case 'label':
          changed = await changeLabels(tx, row, labelIds, [], now);
          break;
        case 'unlabel':
          changed = await changeLabels(tx, row, [], labelIds, now);
          break;
      }
      results.push({ id, status: changed ? 'updated' : 'unchanged' });
    }
    return results;
  });
}
