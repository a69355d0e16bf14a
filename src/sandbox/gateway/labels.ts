/**
 * The gateway protocol's business labels and status posts (docs/gateway-protocol.md, "Labels" and
 * "Status"), as the sandbox plays them (docs/sandbox.md): a session's labels are rows of
 * sandbox_labels, each with the chats it is on; every change, the session's own and the phone's (the
 * /sandbox/labels door), is reported back in a `label.edit` or `label.association` callback, as a
 * phone's app-state changes are. A status post is kept as an outbound sandbox message to
 * status@broadcast. The network's rules are the sandbox's own: numbers ending in 0002 are not on it.
 */
import { randomBytes } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { sandboxLabels, sandboxMessages } from '../../db/schema.ts';
import { GROUP_RECIPIENT } from '../../providers/capabilities.ts';
import type { AccountRow, SandboxContext } from '../context.ts';
import { fail, gateway, ok, type GatewayError, type GatewayResult } from '../errors.ts';
import { pairedSession } from '../phone.ts';
import { normalizePhone, recipientOutcome } from '../rules.ts';
import { isHttpUrl, isObject, type Json } from './parse-send.ts';

type LabelRow = typeof sandboxLabels.$inferSelect;

const LABEL_ID = /^[A-Za-z0-9_-]{1,64}$/;
const NAME_MAX = 100;
const LABELS_MAX = 20;
const STATUS_TEXT_MAX = 700;
const RECIPIENTS_MAX = 256;
const STATUS_BROADCAST = 'status@broadcast';

const labelNotFound = (id: string): GatewayError => ({
  status: 404,
  code: 'label_not_found',
  message: `label ${id} not found on the session's number`,
  retryable: false,
});
const notWorking = (account: AccountRow) =>
  gateway.conflict('session_not_working', `the session is ${account.status}, not paired: labels and status posts need a paired phone`);

/** A chat: a group id, or a phone (digits) on the network. */
function chatOf(value: unknown): GatewayResult<string> {
  if (typeof value === 'string' && GROUP_RECIPIENT.test(value)) return ok(value);
  const phone = normalizePhone(value);
  if (!phone) return fail(gateway.invalid('chat must be a phone number (international digits) or a group id <digits>@g.us'));
  if (recipientOutcome(phone) === 'refuse')
    return fail({ status: 400, code: 'chat_not_found', message: `not on the chat network: +${phone}`, retryable: false });
  return ok(phone);
}

const wire = (row: LabelRow) => ({ id: row.id, name: row.name, color: row.color, chats: row.chats });

export function createGatewayLabels(ctx: SandboxContext) {
  const { clock } = ctx;

  const report = (tx: Executor, account: AccountRow, event: 'label.edit' | 'label.association', payload: Json) =>
    ctx.enqueueCallback(tx, { kind: 'gateway.event', session_id: account.id, event, payload, at: clock.now().toISOString() }, 0);

  const working = (account: AccountRow) => account.status === 'WORKING' && Boolean(account.displayPhoneNumber);

  async function labelOf(tx: Executor, account: AccountRow, id: string): Promise<LabelRow | undefined> {
    const [row] = await tx
      .select()
      .from(sandboxLabels)
      .where(and(eq(sandboxLabels.accountId, account.id), eq(sandboxLabels.id, id)))
      .for('update')
      .limit(1);
    return row;
  }

  /** Makes or changes a label (body {name, color}); reported as label.edit. */
  async function save(db: Executor, account: AccountRow, id: string, body: unknown): Promise<GatewayResult<Json>> {
    if (!working(account)) return fail(notWorking(account));
    if (!LABEL_ID.test(id)) return fail(gateway.invalid('the label id must be 1 to 64 letters, digits, - or _'));
    if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {name, color}'));
    if (typeof body.name !== 'string' || body.name.trim() === '' || body.name.length > NAME_MAX)
      return fail(gateway.invalid(`name must be a string of 1 to ${NAME_MAX} characters`));
    const color = body.color ?? 0;
    if (!Number.isInteger(color) || (color as number) < 0 || (color as number) > 19) return fail(gateway.invalid('color must be 0 to 19'));
    return db.transaction(async (tx) => {
      const known = await labelOf(tx, account, id);
      if (!known) {
        const count = (await tx.select({ id: sandboxLabels.id }).from(sandboxLabels).where(eq(sandboxLabels.accountId, account.id))).length;
        if (count >= LABELS_MAX)
          return fail(gateway.conflict('too_many_labels', `the number has ${LABELS_MAX} labels, the chat app's most`));
      }
      const [row] = await tx
        .insert(sandboxLabels)
        .values({ accountId: account.id, id, name: (body.name as string).trim(), color: color as number, updatedAt: clock.now() })
        .onConflictDoUpdate({
          target: [sandboxLabels.accountId, sandboxLabels.id],
          set: { name: (body.name as string).trim(), color: color as number, updatedAt: clock.now() },
        })
        .returning();
      await report(tx, account, 'label.edit', { id, name: row!.name, color: row!.color, deleted: false });
      return ok(wire(row!));
    });
  }

  async function remove(db: Executor, account: AccountRow, id: string): Promise<GatewayResult<Json>> {
    if (!working(account)) return fail(notWorking(account));
    return db.transaction(async (tx) => {
      const known = await labelOf(tx, account, id);
      if (!known) return fail(labelNotFound(id));
      await tx.delete(sandboxLabels).where(and(eq(sandboxLabels.accountId, account.id), eq(sandboxLabels.id, id)));
      await report(tx, account, 'label.edit', { id, name: known.name, color: known.color, deleted: true });
      return ok({ id, deleted: true });
    });
  }

  /** Puts a label on a chat or takes it off (body {chat, action, message_id?}); reported as label.association. */
  async function associate(db: Executor, account: AccountRow, id: string, body: unknown): Promise<GatewayResult<Json>> {
    if (!working(account)) return fail(notWorking(account));
    if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {chat, action, message_id?}'));
    if (body.action !== 'add' && body.action !== 'remove') return fail(gateway.invalid('action must be add or remove'));
    if (body.message_id !== undefined && (typeof body.message_id !== 'string' || body.message_id === '' || body.message_id.length > 128))
      return fail(gateway.invalid('message_id must be a message id'));
    const chat = chatOf(body.chat);
    if (!chat.ok) return chat;
    const action = body.action;
    return db.transaction(async (tx) => {
      const known = await labelOf(tx, account, id);
      if (!known) return fail(labelNotFound(id));
      if (body.message_id === undefined) {
        const chats = action === 'add' ? [...new Set([...known.chats, chat.value])] : known.chats.filter((c) => c !== chat.value);
        await tx
          .update(sandboxLabels)
          .set({ chats, updatedAt: clock.now() })
          .where(and(eq(sandboxLabels.accountId, account.id), eq(sandboxLabels.id, id)));
      }
      await report(tx, account, 'label.association', {
        label_id: id,
        chat: chat.value,
        action,
        ...(body.message_id !== undefined ? { message_id: body.message_id } : {}),
      });
      return ok({ label_id: id, chat: chat.value, action });
    });
  }

  return {
    /** GET /sessions/{session}/labels. */
    async list(db: Executor, account: AccountRow): Promise<GatewayResult<Json>> {
      const rows = await db.select().from(sandboxLabels).where(eq(sandboxLabels.accountId, account.id)).orderBy(asc(sandboxLabels.id));
      return ok({ labels: rows.map(wire) });
    },
    save,
    remove,
    associate,

    /** POST /sessions/{session}/status {type, text | url, caption?, background_color?, font?, recipients}: a status post. */
    async postStatus(db: Executor, account: AccountRow, body: unknown): Promise<GatewayResult<Json>> {
      if (!working(account)) return fail(notWorking(account));
      if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {type, text | url, recipients}'));
      if (!Array.isArray(body.recipients) || body.recipients.length === 0 || body.recipients.length > RECIPIENTS_MAX)
        return fail(gateway.invalid(`recipients must be an array of 1 to ${RECIPIENTS_MAX} phone numbers`));
      const recipients = body.recipients.map((r) => normalizePhone(r));
      if (recipients.some((r) => r === undefined)) return fail(gateway.invalid('recipients must be phone numbers (international digits)'));
      let stored: Json;
      if (body.type === 'text') {
        if (typeof body.text !== 'string' || body.text.trim() === '' || body.text.length > STATUS_TEXT_MAX)
          return fail(gateway.invalid(`text must be a string of 1 to ${STATUS_TEXT_MAX} characters`));
        if (
          body.background_color !== undefined &&
          (typeof body.background_color !== 'string' || !/^#[0-9a-fA-F]{6}$/.test(body.background_color))
        )
          return fail(gateway.invalid('background_color must be #RRGGBB'));
        if (body.font !== undefined && (!Number.isInteger(body.font) || (body.font as number) < 0 || (body.font as number) > 9))
          return fail(gateway.invalid('font must be 0 to 9'));
        stored = { text: body.text, background_color: body.background_color ?? null, font: body.font ?? 0 };
      } else if (body.type === 'image' || body.type === 'video') {
        if (!isHttpUrl(body.url)) return fail(gateway.invalid('url must be an http(s) URL'));
        if (body.caption !== undefined && (typeof body.caption !== 'string' || body.caption.length > STATUS_TEXT_MAX))
          return fail(gateway.invalid(`caption must be a string of at most ${STATUS_TEXT_MAX} characters`));
        stored = { url: body.url, ...(body.caption !== undefined ? { caption: body.caption } : {}) };
      } else return fail(gateway.invalid('type must be text, image or video'));
      const id = `status_${randomBytes(10).toString('hex')}`;
      await db.insert(sandboxMessages).values({
        id,
        accountId: account.id,
        direction: 'outbound',
        recipient: STATUS_BROADCAST,
        type: body.type,
        body: { ...stored, recipients: [...new Set(recipients as string[])] },
        status: 'sent',
        createdAt: clock.now(),
      });
      return ok({ id });
    },

    /**
     * POST /sandbox/labels {channel_id, label_id, name?, color?, deleted?} or {channel_id, label_id, chat, action}:
     * the business's phone makes, changes or deletes a label, or labels a chat (a door for tests and demos).
     */
    async phone(db: Executor, organizationId: string, body: unknown): Promise<GatewayResult<Json>> {
      if (!isObject(body)) return fail(gateway.invalid('the body must be a JSON object {channel_id, label_id, ...}'));
      const account = await pairedSession(db, organizationId, body.channel_id);
      if (!account.ok) return account;
      if (typeof body.label_id !== 'string' || !LABEL_ID.test(body.label_id)) return fail(gateway.invalid('label_id must be a label id'));
      if (body.chat !== undefined) return associate(db, account.value, body.label_id, body);
      if (body.deleted === true) return remove(db, account.value, body.label_id);
      return save(db, account.value, body.label_id, body);
    },
  };
}
