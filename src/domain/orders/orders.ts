/**
 * Orders: created by the API or by an inbound `order` message (inbound.ts), read, listed, and moved
 * through their status and payment status. Every query is scoped by the actor's organization;
 * another organization's order is simply not found, and a reference to another organization's
 * contact or conversation is refused naming the field, like an unknown one. Each creation and change
 * records commerce.order.updated and crm.record.* (object_kind `order`) in its transaction.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { equalWhereGiven, listPage, newestFirstBy } from '../../db/list-query.ts';
import type { Page, PageResult } from '../../db/paginate.ts';
import { contacts, conversations, orderCounters, orders } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { isUuid, uuidv7 } from '../../lib/ids.ts';
import type { Actor } from '../actor.ts';
import { recordCrmRecordEvent } from '../crm/records.ts';
import { DomainError, invalid, notFound } from '../errors.ts';
import { recordEvent } from '../events/outbox.ts';
import { cursorKey } from '../paging.ts';
import { PAYMENT_MOVES, STATUS_MOVES, type OrderInput, type OrderItem, type OrderStatus, type PaymentStatus } from './fields.ts';

export type OrderRow = Omit<typeof orders.$inferSelect, 'items'> & { items: OrderItem[] };
export type OrderDeps = { db: Executor };
export type OrderClockDeps = { db: Executor; clock: Clock };

export const orderNotFound = () => notFound('order');

/** What a person calls an order: its number. */
export const orderDisplayName = (row: Pick<OrderRow, 'orderNo'>) => `Order #${row.orderNo}`;

const bad = (pointer: string, message: string): never => {
  throw invalid(`${pointer.slice(1).replaceAll('/', '.')}: ${message}`, [{ pointer, message }]);
};

/**
 * The organization's next order number. The counter row is locked by this update until the
 * transaction ends: a concurrent order waits for it, and a transaction that rolls back takes its
 * number back, so the numbers have no gaps.
 */
async function nextOrderNo(tx: Executor, organizationId: string): Promise<number> {
  const [row] = await tx
    .insert(orderCounters)
    .values({ organizationId, lastNo: 1 })
    .onConflictDoUpdate({ target: orderCounters.organizationId, set: { lastNo: sql`${orderCounters.lastNo} + 1` } })
    .returning({ lastNo: orderCounters.lastNo });
  return row!.lastNo;
}

/** commerce.order.updated and crm.record.<change> for the order as it now is. */
async function orderEvents(tx: Executor, change: 'created' | 'updated', row: OrderRow, at: Date): Promise<void> {
  await recordEvent(
    tx,
    row.organizationId,
    'commerce.order.updated',
    { order_id: row.id, order_no: String(row.orderNo), status: row.status, payment_status: row.paymentStatus },
    at,
  );
  await recordCrmRecordEvent(tx, change, {
    kind: 'order',
    id: row.id,
    displayName: orderDisplayName(row),
    organizationId: row.organizationId,
  });
}

/**
 * Writes an order with the next number and its events, in the caller's transaction: the API's
 * creation and an inbound order message's (one per message: `messageId` is unique, and a message
 * already holding an order answers that order).
 */
export async function insertOrder(
  tx: Executor,
  organizationId: string,
  input: OrderInput & { source: 'message' | 'api'; messageId?: string },
  at: Date,
): Promise<OrderRow> {
  const orderNo = await nextOrderNo(tx, organizationId);
  const [row] = await tx
    .insert(orders)
    .values({
      id: uuidv7(),
      organizationId,
      orderNo,
      status: input.status,
      paymentStatus: input.paymentStatus,
      contactId: input.contactId,
      conversationId: input.conversationId,
      messageId: input.messageId ?? null,
      source: input.source,
      catalogId: input.catalogId,
      currency: input.currency,
      items: input.items,
      totalAmount: input.totalAmount,
      note: input.note,
      createdAt: at,
      updatedAt: at,
    })
    .returning();
  await orderEvents(tx, 'created', row as OrderRow, at);
  return row as OrderRow;
}

/**
 * Refuses a contact or conversation the organization does not have (the contact held until the
 * transaction ends), naming the field. Resolves to the customer: the contact given, else the
 * conversation's contact.
 */
async function checkReferences(
  tx: Executor,
  organizationId: string,
  input: Pick<OrderInput, 'contactId' | 'conversationId'>,
): Promise<string | null> {
  let fromConversation: string | null = null;
  if (input.conversationId) {
    const [found] = await tx
      .select({ id: conversations.id, contactId: conversations.contactId })
      .from(conversations)
      .where(and(eq(conversations.organizationId, organizationId), eq(conversations.id, input.conversationId)))
      .limit(1);
    if (!found) return bad('/conversation_id', 'not a conversation of this organization');
    fromConversation = found.contactId;
  }
  const contactId = input.contactId ?? fromConversation;
  if (!contactId) return null;
  const [found] = await tx
    .select({ id: contacts.id })
    .from(contacts)
    .where(and(eq(contacts.organizationId, organizationId), eq(contacts.id, contactId)))
    .limit(1)
    .for('key share');
  if (found) return found.id;
  // The conversation's contact was deleted since: the order has no customer, as the conversation has none.
  return input.contactId ? bad('/contact_id', 'not a contact of this organization') : null;
}

/** Creates an order (by the API): numbered, priced from its items; records commerce.order.updated and crm.record.created. */
export async function createOrder({ db, clock }: OrderClockDeps, actor: Actor, input: OrderInput): Promise<OrderRow> {
  const org = actor.organizationId;
  return db.transaction(async (tx) => {
    const contactId = await checkReferences(tx, org, input);
    return insertOrder(tx, org, { ...input, contactId, source: 'api' }, clock.now());
  });
}

async function loadOrderRow(db: Executor, organizationId: string, orderId: string, lock?: 'update'): Promise<OrderRow | undefined> {
  if (!isUuid(orderId)) return undefined;
  const query = db
    .select()
    .from(orders)
    .where(and(eq(orders.id, orderId.toLowerCase()), eq(orders.organizationId, organizationId)))
    .limit(1);
  const [row] = lock ? await query.for(lock) : await query;
  return row as OrderRow | undefined;
}

export async function getOrder({ db }: OrderDeps, actor: Actor, { orderId }: { orderId: string }): Promise<OrderRow> {
  const row = await loadOrderRow(db, actor.organizationId, orderId);
  if (!row) throw orderNotFound();
  return row;
}

export type OrderChange = { status?: OrderStatus; paymentStatus?: PaymentStatus; note?: string | null };

function refused(field: string, from: string, to: string, allowed: readonly string[]): DomainError {
  const why = allowed.length
    ? `${from} moves only to ${allowed.join(', ')}`
    : `${from} is final: the ${field === 'status' ? 'order' : 'payment'} no longer changes`;
  return new DomainError('conflict', `${field} cannot go from ${from} to ${to}: ${why}`, {
    fieldErrors: [{ pointer: `/${field}`, message: why }],
  });
}

/**
 * Moves an order's status or payment status (STATUS_MOVES, PAYMENT_MOVES: `409` naming the field for
 * a move not allowed) and changes its note. The same value again is no change. Records
 * commerce.order.updated and crm.record.updated when something changed.
 */
export async function updateOrder(
  { db, clock }: OrderClockDeps,
  actor: Actor,
  { orderId, change }: { orderId: string; change: OrderChange },
): Promise<OrderRow> {
  const org = actor.organizationId;
  return db.transaction(async (tx) => {
    const row = await loadOrderRow(tx, org, orderId, 'update');
    if (!row) throw orderNotFound();
    const status = change.status ?? (row.status as OrderStatus);
    const paymentStatus = change.paymentStatus ?? (row.paymentStatus as PaymentStatus);
    if (status !== row.status && !STATUS_MOVES[row.status as OrderStatus].includes(status))
      throw refused('status', row.status, status, STATUS_MOVES[row.status as OrderStatus]);
    if (paymentStatus !== row.paymentStatus && !PAYMENT_MOVES[row.paymentStatus as PaymentStatus].includes(paymentStatus))
      throw refused('payment_status', row.paymentStatus, paymentStatus, PAYMENT_MOVES[row.paymentStatus as PaymentStatus]);
    const note = change.note === undefined ? row.note : change.note;
    if (status === row.status && paymentStatus === row.paymentStatus && note === row.note) return row;
    const now = clock.now();
    const [updated] = await tx
      .update(orders)
      .set({ status, paymentStatus, note, updatedAt: now })
      .where(and(eq(orders.id, row.id), eq(orders.organizationId, org)))
      .returning();
    await orderEvents(tx, 'updated', updated as OrderRow, now);
    return updated as OrderRow;
  });
}

export type OrderListQuery = Page & {
  status?: OrderStatus;
  paymentStatus?: PaymentStatus;
  contactId?: string;
  conversationId?: string;
};

/** The organization's orders, newest first; filters combine. */
export async function listOrders({ db }: OrderDeps, actor: Actor, query: OrderListQuery): Promise<PageResult<OrderRow>> {
  const page = await listPage(db.select().from(orders).$dynamic(), {
    where: [
      eq(orders.organizationId, actor.organizationId),
      ...equalWhereGiven([
        [orders.status, query.status],
        [orders.paymentStatus, query.paymentStatus],
        [orders.contactId, query.contactId?.toLowerCase()],
        [orders.conversationId, query.conversationId?.toLowerCase()],
      ]),
    ],
    order: newestFirstBy(orders.createdAt, orders.id),
    after: cursorKey(query.cursor),
    limit: query.limit,
  });
  return page as PageResult<OrderRow>;
}
