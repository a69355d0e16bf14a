/**
 * Business labels of an unofficial channel's number and its status posts (capabilities `labels.manage`,
 * `status.post`; docs/channels.md, "Labels" and "Status"). The engine holds the labels (the chat app's
 * app state, on the phone and every linked device); Parley keeps them in channel_labels and
 * channel_label_chats, written both by what it asks the engine to do and by what the engine reports
 * (the phone's changes, and the echo of our own), the same way: a change that changes nothing is no
 * event, so an echo announces nothing twice (DECISIONS 113).
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { channelLabelChats, channelLabels } from '../../db/schema.ts';
import { normalizePhone } from '../../lib/phone.ts';
import { assertSafeTargetSyntax, UnsafeTargetError, type TargetPolicy } from '../../lib/safe-fetch.ts';
import { GROUP_RECIPIENT, type Operation } from '../../providers/capabilities.ts';
import type { ChannelConnection, InboundEvent, LabelCalls, ProviderError, ProviderLabel, Result } from '../../providers/provider.ts';
import type { Actor } from '../actor.ts';
import { DomainError, invalid, notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { assertOperation } from './capabilities.ts';
import { connectionOf, loadChannel, recordProviderFault, type ChannelRow } from './channels.ts';
import { providerRefusal, type ProviderCallDeps } from './pairing.ts';

export type LabelDeps = ProviderCallDeps & { targets: TargetPolicy };

export const LABEL_NAME_MAX = 100;
/** The chat app's label palette: colors 0-19. */
export const LABEL_COLORS = 20;
/** Labels a number may have (the chat app's limit). */
export const LABELS_MAX = 20;
export const STATUS_TEXT_MAX = 700;
export const STATUS_RECIPIENTS_MAX = 256;

export type Label = ProviderLabel & { chats: string[]; updatedAt: Date };

type Call = { row: ChannelRow; connection: ChannelConnection };

async function channelFor(deps: LabelDeps, actor: Actor, channelId: string, operation: Operation, label: string): Promise<Call> {
  const row = await loadChannel(deps.db, actor, channelId);
  assertOperation(row.platform, operation, label);
  if (row.status !== 'connected')
    throw new DomainError(
      'conflict',
      `channel is ${row.status}${row.statusReason ? ` (${row.statusReason})` : ''}: ${label} need its phone paired and connected`,
    );
  return { row, connection: connectionOf(row, deps.sealer) };
}

function labelCalls(deps: LabelDeps, row: ChannelRow): LabelCalls {
  const calls = deps.providers.get(row.platform).labels;
  if (!calls) throw new Error(`platform ${row.platform} lists labels.manage without label calls`);
  return calls;
}

async function unwrap<T>(deps: LabelDeps, call: Call, result: Result<T>, pointer = ''): Promise<T> {
  if (result.ok) return result.value;
  const error: ProviderError = result.error;
  switch (error.code) {
    case 'label_not_found':
      throw new DomainError('not_found', error.title);
    case 'chat_not_found':
    case 'not_on_network':
      throw invalid(error.title, [{ pointer: pointer || '/chat', message: error.title }]);
    case 'media_url_refused':
    case 'media_too_large':
    case 'media_unreachable':
      throw invalid(error.title, [{ pointer: '/url', message: error.title }]);
    default:
      if (error.channelFault) await recordProviderFault(deps, call.row, error);
      throw providerRefusal(error);
  }
}

/** A chat as given (a phone with its country code, or a group id), as Parley keeps it: digits or the group id. */
export function chatOf(given: string, pointer = '/chat'): string {
  const trimmed = given.trim();
  if (GROUP_RECIPIENT.test(trimmed)) return trimmed;
  const phone = normalizePhone(trimmed)?.slice(1);
  if (!phone)
    throw invalid(`${pointer.slice(1)} is not a phone number or a group id`, [
      { pointer, message: 'a phone number with its country code, or a group id <digits>@g.us' },
    ]);
  return phone;
}

/** A chat as the API shows it: a phone with `+`, a group id as it is. */
export const presentChat = (chat: string) => (GROUP_RECIPIENT.test(chat) ? chat : `+${chat}`);

async function readLabels(db: Executor, channelId: string, labelIds?: string[]): Promise<Label[]> {
  const rows = await db
    .select()
    .from(channelLabels)
    .where(and(eq(channelLabels.channelId, channelId), labelIds ? inArray(channelLabels.labelId, labelIds) : undefined))
    .orderBy(asc(channelLabels.name), asc(channelLabels.labelId));
  if (rows.length === 0) return [];
  const chats = await db
    .select({ labelId: channelLabelChats.labelId, chat: channelLabelChats.chat })
    .from(channelLabelChats)
    .where(
      and(
        eq(channelLabelChats.channelId, channelId),
        inArray(
          channelLabelChats.labelId,
          rows.map((r) => r.labelId),
        ),
        eq(channelLabelChats.messageId, ''),
      ),
    )
    .orderBy(asc(channelLabelChats.createdAt), asc(channelLabelChats.chat));
  return rows.map((r) => ({
    id: r.labelId,
    name: r.name,
    color: r.color,
    updatedAt: r.updatedAt,
    chats: chats.filter((c) => c.labelId === r.labelId).map((c) => c.chat),
  }));
}

async function oneLabel(db: Executor, channelId: string, labelId: string): Promise<Label> {
  const [label] = await readLabels(db, channelId, [labelId]);
  if (!label) throw notFound(`label ${JSON.stringify(labelId.slice(0, 64))}`);
  return label;
}

// ---------------------------------------------------------------------------------------------------
// Applying what the engine reports (and what Parley asked it): idempotent, an event only for a change.

type LabelEdit = Extract<InboundEvent, { kind: 'label.edit' }>;
type LabelAssociation = Extract<InboundEvent, { kind: 'label.association' }>;

/** A label made, changed or deleted: kept, and `label.updated` when anything changed. */
export async function applyLabelEdit(
  tx: Executor,
  channel: ChannelRow,
  event: Omit<LabelEdit, 'ref' | 'kind'>,
  at: Date,
): Promise<boolean> {
  const key = and(eq(channelLabels.channelId, channel.id), eq(channelLabels.labelId, event.labelId));
  let changed: boolean;
  if (event.deleted) {
    changed = (await tx.delete(channelLabels).where(key).returning({ id: channelLabels.labelId })).length > 0;
  } else {
    const rows = await tx
      .insert(channelLabels)
      .values({
        channelId: channel.id,
        organizationId: channel.organizationId,
        labelId: event.labelId,
        name: event.name,
        color: event.color,
        createdAt: at,
        updatedAt: at,
      })
      .onConflictDoUpdate({
        target: [channelLabels.channelId, channelLabels.labelId],
        set: { name: event.name, color: event.color, updatedAt: at },
        setWhere: sql`(${channelLabels.name}, ${channelLabels.color}) is distinct from (${event.name}, ${event.color})`,
      })
      .returning({ id: channelLabels.labelId });
    changed = rows.length > 0;
  }
  if (!changed) return false;
  await labelUpdated(tx, channel, event, at);
  return true;
}

async function labelUpdated(tx: Executor, channel: ChannelRow, event: Omit<LabelEdit, 'ref' | 'kind'>, at: Date): Promise<void> {
  await recordEvent(
    tx,
    channel.organizationId,
    'label.updated',
    {
      channel_id: channel.id,
      organization_id: channel.organizationId,
      label_id: event.labelId,
      name: event.name,
      color: event.color,
      deleted: event.deleted,
      occurred_at: event.timestamp.toISOString(),
    },
    at,
  );
}

/** A label put on a chat (or one of its messages) or taken off: kept, and `label.assigned` / `label.unassigned` when it changed. */
export async function applyLabelAssociation(
  tx: Executor,
  channel: ChannelRow,
  event: Omit<LabelAssociation, 'ref' | 'kind'>,
  at: Date,
): Promise<void> {
  const messageId = event.messageId ?? '';
  let changed: boolean;
  if (event.action === 'add') {
    // The phone may report the association before the label itself (app state syncs in any order).
    await tx
      .insert(channelLabels)
      .values({
        channelId: channel.id,
        organizationId: channel.organizationId,
        labelId: event.labelId,
        name: '',
        createdAt: at,
        updatedAt: at,
      })
      .onConflictDoNothing();
    const rows = await tx
      .insert(channelLabelChats)
      .values({ channelId: channel.id, labelId: event.labelId, chat: event.chat, messageId, createdAt: at })
      .onConflictDoNothing()
      .returning({ chat: channelLabelChats.chat });
    changed = rows.length > 0;
  } else {
    const rows = await tx
      .delete(channelLabelChats)
      .where(
        and(
          eq(channelLabelChats.channelId, channel.id),
          eq(channelLabelChats.labelId, event.labelId),
          eq(channelLabelChats.chat, event.chat),
          eq(channelLabelChats.messageId, messageId),
        ),
      )
      .returning({ chat: channelLabelChats.chat });
    changed = rows.length > 0;
  }
  if (!changed) return;
  await recordEvent(
    tx,
    channel.organizationId,
    event.action === 'add' ? 'label.assigned' : 'label.unassigned',
    {
      channel_id: channel.id,
      organization_id: channel.organizationId,
      label_id: event.labelId,
      chat_id: presentChat(event.chat),
      message_id: event.messageId ?? null,
      occurred_at: event.timestamp.toISOString(),
    },
    at,
  );
}

// ---------------------------------------------------------------------------------------------------
// The routes' calls.

export async function listLabels(deps: LabelDeps, actor: Actor, input: { channelId: string; chat?: string }): Promise<Label[]> {
  const row = await loadChannel(deps.db, actor, input.channelId);
  assertOperation(row.platform, 'labels.manage', 'labels');
  const labels = await readLabels(deps.db, row.id);
  if (input.chat === undefined) return labels;
  const chat = chatOf(input.chat, '/chat');
  return labels.filter((l) => l.chats.includes(chat));
}

export async function getLabel(deps: LabelDeps, actor: Actor, input: { channelId: string; labelId: string }): Promise<Label> {
  const row = await loadChannel(deps.db, actor, input.channelId);
  assertOperation(row.platform, 'labels.manage', 'labels');
  return oneLabel(deps.db, row.id, input.labelId);
}

function assertColor(color: number | undefined) {
  if (color !== undefined && !(Number.isInteger(color) && color >= 0 && color < LABEL_COLORS))
    throw invalid(`color must be 0 to ${LABEL_COLORS - 1}`, [
      { pointer: '/color', message: `one of the chat app's ${LABEL_COLORS} colors: 0 to ${LABEL_COLORS - 1}` },
    ]);
}

/**
 * Makes a label on the number, its id the next the number has (the chat app's ids are small numbers). The
 * id and name are reserved first (the label's row, under a lock per channel), so two labels made at once get
 * two ids and one name is taken once; the row goes if the engine refused, and its label.updated is
 * recorded once the engine made it (the engine's report of it finds nothing to change).
 */
export async function createLabel(
  deps: LabelDeps,
  actor: Actor,
  input: { channelId: string; name: string; color?: number },
): Promise<Label> {
  const call = await channelFor(deps, actor, input.channelId, 'labels.manage', 'labels');
  assertColor(input.color);
  const asked = await deps.db.transaction(async (tx): Promise<ProviderLabel> => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`channel_labels:${call.row.id}`}))`);
    const existing = await readLabels(tx, call.row.id);
    if (existing.length >= LABELS_MAX)
      throw new DomainError('conflict', `the number has ${LABELS_MAX} labels, the chat app's most: delete one first`);
    const clash = existing.find((l) => l.name.toLowerCase() === input.name.toLowerCase());
    if (clash)
      throw invalid(`a label named ${JSON.stringify(clash.name)} exists (id ${clash.id})`, [
        { pointer: '/name', message: 'taken by another label' },
      ]);
    const next = existing.reduce((max, l) => (/^\d+$/.test(l.id) ? Math.max(max, Number(l.id)) : max), 0) + 1;
    const now = deps.clock.now();
    await tx.insert(channelLabels).values({
      channelId: call.row.id,
      organizationId: call.row.organizationId,
      labelId: String(next),
      name: input.name,
      color: input.color ?? (next - 1) % LABEL_COLORS,
      createdAt: now,
      updatedAt: now,
    });
    return { id: String(next), name: input.name, color: input.color ?? (next - 1) % LABEL_COLORS };
  });
  const result = await labelCalls(deps, call.row).save(call.connection, asked);
  if (!result.ok)
    await deps.db.delete(channelLabels).where(and(eq(channelLabels.channelId, call.row.id), eq(channelLabels.labelId, asked.id)));
  const saved = await unwrap(deps, call, result);
  const now = deps.clock.now();
  const made = { labelId: saved.id, name: saved.name, color: saved.color, deleted: false, timestamp: now };
  await deps.db.transaction(async (tx) => {
    // A gateway that chose another id: the reserved row is not the label's.
    if (saved.id !== asked.id)
      await tx.delete(channelLabels).where(and(eq(channelLabels.channelId, call.row.id), eq(channelLabels.labelId, asked.id)));
    if (!(await applyLabelEdit(tx, call.row, made, now)) && saved.id === asked.id) await labelUpdated(tx, call.row, made, now);
  });
  return oneLabel(deps.db, call.row.id, saved.id);
}

export async function updateLabel(
  deps: LabelDeps,
  actor: Actor,
  input: { channelId: string; labelId: string; name?: string; color?: number },
): Promise<Label> {
  const call = await channelFor(deps, actor, input.channelId, 'labels.manage', 'labels');
  const current = await oneLabel(deps.db, call.row.id, input.labelId);
  if (input.name === undefined && input.color === undefined)
    throw invalid('nothing to change: give name or color', [{ pointer: '', message: 'no field to change' }]);
  assertColor(input.color);
  const name = input.name;
  if (name !== undefined) {
    const clash = (await readLabels(deps.db, call.row.id)).find((l) => l.id !== current.id && l.name.toLowerCase() === name.toLowerCase());
    if (clash)
      throw invalid(`a label named ${JSON.stringify(clash.name)} exists (id ${clash.id})`, [
        { pointer: '/name', message: 'taken by another label' },
      ]);
  }
  const asked: ProviderLabel = { id: current.id, name: input.name ?? current.name, color: input.color ?? current.color };
  const saved = await unwrap(deps, call, await labelCalls(deps, call.row).save(call.connection, asked));
  const now = deps.clock.now();
  await deps.db.transaction((tx) =>
    applyLabelEdit(tx, call.row, { labelId: current.id, name: saved.name, color: saved.color, deleted: false, timestamp: now }, now),
  );
  return oneLabel(deps.db, call.row.id, current.id);
}

export async function deleteLabel(deps: LabelDeps, actor: Actor, input: { channelId: string; labelId: string }): Promise<void> {
  const call = await channelFor(deps, actor, input.channelId, 'labels.manage', 'labels');
  const current = await oneLabel(deps.db, call.row.id, input.labelId);
  await unwrap(deps, call, await labelCalls(deps, call.row).remove(call.connection, current.id));
  const now = deps.clock.now();
  await deps.db.transaction((tx) =>
    applyLabelEdit(tx, call.row, { labelId: current.id, name: current.name, color: current.color, deleted: true, timestamp: now }, now),
  );
}

/** Puts a label on a chat (a contact's phone or a group), or one message of it, or takes it off; answers the label as it now is. */
export async function assignLabel(
  deps: LabelDeps,
  actor: Actor,
  input: { channelId: string; labelId: string; chat: string; messageId?: string; action: 'add' | 'remove' },
): Promise<Label> {
  const call = await channelFor(deps, actor, input.channelId, 'labels.manage', 'labels');
  const current = await oneLabel(deps.db, call.row.id, input.labelId);
  const chat = chatOf(input.chat);
  await unwrap(
    deps,
    call,
    await labelCalls(deps, call.row).assign(call.connection, {
      labelId: current.id,
      chat,
      action: input.action,
      ...(input.messageId ? { messageId: input.messageId } : {}),
    }),
  );
  const now = deps.clock.now();
  await deps.db.transaction((tx) =>
    applyLabelAssociation(
      tx,
      call.row,
      { labelId: current.id, chat, action: input.action, ...(input.messageId ? { messageId: input.messageId } : {}), timestamp: now },
      now,
    ),
  );
  return oneLabel(deps.db, call.row.id, current.id);
}

// ---------------------------------------------------------------------------------------------------
// Status posts.

export type StatusInput =
  | { type: 'text'; text: string; backgroundColor?: string; font?: number; recipients: string[] }
  | { type: 'image' | 'video'; url: string; caption?: string; recipients: string[] };

export const STATUS_FONTS = 10;
const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

/** Posts a status (a story) that the recipients see for a day: its id on the chat network. */
export async function postStatus(
  deps: LabelDeps,
  actor: Actor,
  input: StatusInput & { channelId: string },
): Promise<{ id: string; recipients: string[] }> {
  const call = await channelFor(deps, actor, input.channelId, 'status.post', 'status posts');
  const bad: Array<{ pointer: string; message: string }> = [];
  const recipients = input.recipients.map((r, i) => {
    const phone = normalizePhone(r)?.slice(1);
    if (!phone) bad.push({ pointer: `/recipients/${i}`, message: 'not a valid phone number (write it with its country code)' });
    return phone ?? '';
  });
  if (bad.length > 0) throw invalid(`${bad.length === 1 ? 'a recipient is' : 'recipients are'} not a valid phone number`, bad);
  const unique = [...new Set(recipients)];
  const post =
    input.type === 'text'
      ? (() => {
          const backgroundColor = input.backgroundColor ?? '#128C7E';
          if (!HEX_COLOR.test(backgroundColor))
            throw invalid('background_color must be a color #RRGGBB', [{ pointer: '/background_color', message: 'a color #RRGGBB' }]);
          const font = input.font ?? 0;
          if (!Number.isInteger(font) || font < 0 || font >= STATUS_FONTS)
            throw invalid(`font must be 0 to ${STATUS_FONTS - 1}`, [{ pointer: '/font', message: `0 to ${STATUS_FONTS - 1}` }]);
          return { type: 'text' as const, text: input.text, backgroundColor, font, recipients: unique };
        })()
      : (() => {
          try {
            assertSafeTargetSyntax(input.url, deps.targets);
          } catch (err) {
            if (err instanceof UnsafeTargetError)
              throw invalid(`media URL refused: ${err.message}`, [{ pointer: '/url', message: err.message }]);
            throw err;
          }
          return { type: input.type, url: input.url, ...(input.caption ? { caption: input.caption } : {}), recipients: unique };
        })();
  const send = deps.providers.get(call.row.platform).postStatus;
  if (!send) throw new Error(`platform ${call.row.platform} lists status.post without the call`);
  const { id } = await unwrap(deps, call, await send(call.connection, post), '/recipients');
  return { id, recipients: unique.map((p) => `+${p}`) };
}
