/**
 * Canned responses: replies an agent inserts with `/shortcut` (docs/inbox.md). Shared ones belong to the
 * organization; personal ones to one member, seen and changed by that member only (an API key, which
 * is no member, works with the shared ones). A body may hold variables, `{{contact.name|there}}` (a
 * default after `|`), filled when the response is rendered for a conversation or contact: the
 * contact's fields and custom fields, the agent's name, the organization's name. An unknown variable is
 * refused when the response is written, so a typo never reaches a customer.
 * canned_response.created / updated / deleted record each change.
 */
import { and, eq, isNotNull, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { listSortedPage, type FieldSort } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { cannedResponses, contacts, conversations, organizations, users } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { DomainError, invalid, notFound } from '../errors.ts';
import { likeLiteral } from '../crm/records.ts';
import { recordEvent } from '../events/outbox.ts';
import { sortCursorKey } from '../paging.ts';

export type CannedResponseRow = typeof cannedResponses.$inferSelect;
export type CannedDeps = { db: Executor; clock: Clock };

export const SHORTCUT_RE = /^[a-z0-9][a-z0-9_-]{0,31}$/;
export const CANNED_BODY_MAX = 4096;
export const CANNED_SCOPES = ['all', 'shared', 'personal'] as const;
export type CannedScope = (typeof CANNED_SCOPES)[number];

/** The variables a body may name (custom fields by key: contact.custom_fields.<key>). */
export const CANNED_VARIABLES = [
  'contact.name',
  'contact.first_name',
  'contact.phone_number',
  'contact.email',
  'agent.name',
  'agent.first_name',
  'agent.email',
  'organization.name',
] as const;

const VARIABLE = /\{\{\s*([a-z_]+(?:\.[A-Za-z0-9_-]+)+)\s*(?:\|([^}]*))?\}\}/g;
const isKnown = (name: string) =>
  (CANNED_VARIABLES as readonly string[]).includes(name) || /^contact\.custom_fields\.[A-Za-z0-9_-]{1,64}$/.test(name);

/** The unknown variables a body names. */
export function unknownVariables(body: string): string[] {
  return [...body.matchAll(VARIABLE)].map((m) => m[1]!).filter((name) => !isKnown(name));
}

/** The values a body's variables take. */
export type RenderValues = Record<string, string | null | undefined>;

/** The body with its variables filled (a missing value takes the default, else nothing), and the ones that had neither. */
export function renderBody(body: string, values: RenderValues): { body: string; missing: string[] } {
  const missing = new Set<string>();
  const out = body.replace(VARIABLE, (_m, name: string, fallback: string | undefined) => {
    const value = values[name];
    if (value !== undefined && value !== null && value !== '') return value;
    if (fallback !== undefined) return fallback.trim();
    missing.add(name);
    return '';
  });
  return { body: out, missing: [...missing] };
}

const notFoundResponse = () => notFound('canned response');
const userOf = (actor: Actor): string | undefined => (actor.kind === 'user' || actor.kind === 'oauth' ? actor.userId : undefined);

/** The responses the actor sees: the shared ones and, for a member, their own. */
function visibleTo(actor: Actor): SQL {
  const user = userOf(actor);
  return and(
    eq(cannedResponses.organizationId, actor.organizationId),
    user ? or(isNull(cannedResponses.ownerUserId), eq(cannedResponses.ownerUserId, user)) : isNull(cannedResponses.ownerUserId),
  )!;
}

async function load(db: Executor, actor: Actor, id: string, lock = false): Promise<CannedResponseRow> {
  if (!isUuid(id)) throw notFoundResponse();
  const query = db
    .select()
    .from(cannedResponses)
    .where(and(eq(cannedResponses.id, id.toLowerCase()), visibleTo(actor)))
    .limit(1);
  const [row] = lock ? await query.for('update') : await query;
  if (!row) throw notFoundResponse();
  return row;
}

function checkFields(input: { shortcut?: string; body?: string; name?: string }) {
  if (input.shortcut !== undefined && !SHORTCUT_RE.test(input.shortcut)) {
    throw invalid('shortcut must be 1 to 32 lower-case letters, digits, - or _, starting with a letter or digit', [
      { pointer: '/shortcut', message: 'lower-case letters, digits, - and _ (1 to 32), first a letter or digit' },
    ]);
  }
  if (input.body !== undefined) {
    const unknown = unknownVariables(input.body);
    if (unknown.length > 0) {
      throw invalid(`body names unknown variables: ${unknown.join(', ')}`, [
        {
          pointer: '/body',
          message: `unknown variables ${unknown.join(', ')}; known: ${CANNED_VARIABLES.join(', ')}, contact.custom_fields.<key>`,
        },
      ]);
    }
  }
}

const takenShortcut = (shortcut: string) =>
  new DomainError('conflict', `a canned response with the shortcut /${shortcut} exists already`, {
    fieldErrors: [{ pointer: '/shortcut', message: 'taken' }],
  });

async function shortcutTaken(
  tx: Executor,
  organizationId: string,
  owner: string | null,
  shortcut: string,
  except?: string,
): Promise<boolean> {
  const [row] = await tx
    .select({ id: cannedResponses.id })
    .from(cannedResponses)
    .where(
      and(
        eq(cannedResponses.organizationId, organizationId),
        eq(cannedResponses.shortcut, shortcut),
        owner ? eq(cannedResponses.ownerUserId, owner) : isNull(cannedResponses.ownerUserId),
        except ? sql`${cannedResponses.id} <> ${except}` : undefined,
      ),
    )
    .limit(1);
  return row !== undefined;
}

async function recordChange(tx: Executor, change: 'created' | 'updated' | 'deleted', row: CannedResponseRow, at: Date) {
  await recordEvent(
    tx,
    row.organizationId,
    `canned_response.${change}`,
    { canned_response_id: row.id, shortcut: row.shortcut, owner_user_id: row.ownerUserId, organization_id: row.organizationId },
    at,
  );
}

export async function createCannedResponse(
  { db, clock }: CannedDeps,
  actor: Actor,
  input: { name: string; shortcut: string; body: string; personal?: boolean },
): Promise<CannedResponseRow> {
  checkFields(input);
  const owner = input.personal ? userOf(actor) : undefined;
  if (input.personal && !owner) {
    throw invalid('a personal canned response belongs to a member: use a dashboard session or an OAuth token', [
      { pointer: '/personal', message: 'an API key has no member to own it' },
    ]);
  }
  return db.transaction(async (tx) => {
    // One writer per organization at a time: the shortcut's uniqueness is answered as a 409 naming it.
    await tx.execute(sql`select 1 from ${organizations} where ${organizations.id} = ${actor.organizationId} for no key update`);
    if (await shortcutTaken(tx, actor.organizationId, owner ?? null, input.shortcut)) throw takenShortcut(input.shortcut);
    const now = clock.now();
    const [row] = await tx
      .insert(cannedResponses)
      .values({
        id: uuidv7(),
        organizationId: actor.organizationId,
        ownerUserId: owner ?? null,
        name: input.name,
        shortcut: input.shortcut,
        body: input.body,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await recordChange(tx, 'created', row!, now);
    return row!;
  });
}

/** The responses the actor sees, by shortcut; `q` a prefix of the shortcut or words of the name or body; `scope` shared or personal only. */
export async function listCannedResponses(
  { db }: Pick<CannedDeps, 'db'>,
  actor: Actor,
  query: Page & { q?: string; scope?: CannedScope },
): Promise<PageResult<CannedResponseRow>> {
  const q = query.q?.trim().replace(/^\//, '').toLowerCase() || undefined;
  const sort: FieldSort<CannedResponseRow> = {
    name: 'shortcut',
    expr: cannedResponses.shortcut,
    id: cannedResponses.id,
    direction: 'asc',
    type: 'text',
    keyOf: (row) => ({ v: row.shortcut, id: row.id }),
  };
  const prefix = q ? `${likeLiteral(q)}%` : undefined;
  const part = q ? `%${likeLiteral(q)}%` : undefined;
  return listSortedPage(db.select().from(cannedResponses).$dynamic(), {
    where: [
      visibleTo(actor),
      query.scope === 'shared' ? isNull(cannedResponses.ownerUserId) : undefined,
      query.scope === 'personal' ? isNotNull(cannedResponses.ownerUserId) : undefined,
      q
        ? sql`(${cannedResponses.shortcut} like ${prefix} or lower(${cannedResponses.name}) like ${part} or lower(${cannedResponses.body}) like ${part})`
        : undefined,
    ],
    sort,
    after: sortCursorKey(query.cursor, sort),
    limit: query.limit,
  });
}

export async function getCannedResponse({ db }: Pick<CannedDeps, 'db'>, actor: Actor, id: string): Promise<CannedResponseRow> {
  return load(db, actor, id);
}

export async function updateCannedResponse(
  { db, clock }: CannedDeps,
  actor: Actor,
  id: string,
  input: { name?: string; shortcut?: string; body?: string },
): Promise<CannedResponseRow> {
  checkFields(input);
  return db.transaction(async (tx) => {
    const row = await load(tx, actor, id, true);
    if (input.shortcut !== undefined && input.shortcut !== row.shortcut) {
      await tx.execute(sql`select 1 from ${organizations} where ${organizations.id} = ${actor.organizationId} for no key update`);
      if (await shortcutTaken(tx, actor.organizationId, row.ownerUserId, input.shortcut, row.id)) throw takenShortcut(input.shortcut);
    }
    const next = { name: input.name ?? row.name, shortcut: input.shortcut ?? row.shortcut, body: input.body ?? row.body };
    if (next.name === row.name && next.shortcut === row.shortcut && next.body === row.body) return row;
    const now = clock.now();
    const [updated] = await tx
      .update(cannedResponses)
      .set({ ...next, updatedAt: now })
      .where(eq(cannedResponses.id, row.id))
      .returning();
    await recordChange(tx, 'updated', updated!, now);
    return updated!;
  });
}

export async function deleteCannedResponse({ db, clock }: CannedDeps, actor: Actor, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await load(tx, actor, id, true);
    await tx.delete(cannedResponses).where(eq(cannedResponses.id, row.id));
    await recordChange(tx, 'deleted', row, clock.now());
  });
}

/**
 * A response filled for a conversation's contact (or a contact): the contact's fields, the agent (the
 * actor's member, none for an API key) and the organization. Another organization's conversation or
 * contact is refused as an unknown one, naming the field.
 */
export async function renderCannedResponse(
  { db }: Pick<CannedDeps, 'db'>,
  actor: Actor,
  id: string,
  input: { conversationId?: string; contactId?: string },
): Promise<{ response: CannedResponseRow; body: string; missing: string[] }> {
  const response = await load(db, actor, id);
  let contactId = input.contactId;
  if (input.conversationId !== undefined) {
    const [conversation] = isUuid(input.conversationId)
      ? await db
          .select({ contactId: conversations.contactId })
          .from(conversations)
          .where(and(eq(conversations.id, input.conversationId.toLowerCase()), eq(conversations.organizationId, actor.organizationId)))
          .limit(1)
      : [];
    if (!conversation)
      throw invalid('conversation_id is not a conversation of the organization', [{ pointer: '/conversation_id', message: 'not found' }]);
    contactId ??= conversation.contactId ?? undefined;
  }
  const values: RenderValues = {};
  if (contactId !== undefined) {
    const [contact] = isUuid(contactId)
      ? await db
          .select()
          .from(contacts)
          .where(and(eq(contacts.id, contactId.toLowerCase()), eq(contacts.organizationId, actor.organizationId)))
          .limit(1)
      : [];
    if (!contact) throw invalid('contact_id is not a contact of the organization', [{ pointer: '/contact_id', message: 'not found' }]);
    values['contact.name'] = contact.name;
    values['contact.first_name'] = contact.name?.trim().split(/\s+/)[0];
    values['contact.phone_number'] = contact.phoneNumber;
    values['contact.email'] = contact.email;
    for (const [key, value] of Object.entries(contact.customFields ?? {})) {
      if (value !== null && typeof value !== 'object') values[`contact.custom_fields.${key}`] = String(value);
    }
  }
  const user = userOf(actor);
  if (user) {
    const [agent] = await db.select({ name: users.name, email: users.email }).from(users).where(eq(users.id, user)).limit(1);
    values['agent.name'] = agent?.name;
    values['agent.first_name'] = agent?.name?.trim().split(/\s+/)[0];
    values['agent.email'] = agent?.email;
  }
  const [organization] = await db
    .select({ name: organizations.name })
    .from(organizations)
    .where(eq(organizations.id, actor.organizationId))
    .limit(1);
  values['organization.name'] = organization?.name;
  return { response, ...renderBody(response.body, values) };
}
