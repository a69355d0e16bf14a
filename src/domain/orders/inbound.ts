/**
 * An inbound `order` message (a customer sent the cart of a catalog) becomes an order of its contact
 * and conversation, in the transaction that stores the message: once per message, since the message
 * is stored once and the order's message_id is unique.
 */
import type { Executor } from '../../db/client.ts';
import { CURRENCIES } from '../deals/fields.ts';
import { ORDER_ITEMS_MAX, priceItems, QUANTITY_MAX, toMinorUnits, type OrderInput } from './fields.ts';
import { insertOrder, type OrderRow } from './orders.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown, max: number): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, max) : null;

/**
 * The order an `order` message's content describes (`{catalog_id, text, product_items: [{product_retailer_id,
 * quantity, item_price, currency}]}`, prices in major units), or why it describes none: no items, an
 * item without a product or a whole quantity, a price that is no amount, items in more than one currency.
 */
export function orderOfMessage(content: Json): { ok: true; input: OrderInput } | { ok: false; reason: string } {
  const given = content.product_items;
  if (!Array.isArray(given) || given.length === 0) return { ok: false, reason: 'the order has no product_items' };
  if (given.length > ORDER_ITEMS_MAX) return { ok: false, reason: `the order has more than ${ORDER_ITEMS_MAX} product_items` };
  const currencies = new Set(given.map((item) => (isObject(item) && typeof item.currency === 'string' ? item.currency.toUpperCase() : '')));
  const [currency] = currencies;
  if (currencies.size !== 1 || !currency || !CURRENCIES.has(currency))
    return { ok: false, reason: 'the product_items are not all priced in one ISO 4217 currency' };
  const items = [];
  for (const [i, item] of given.entries()) {
    const product = isObject(item) ? text(item.product_retailer_id, 200) : null;
    const quantity = isObject(item) ? Number(item.quantity) : Number.NaN;
    const unitAmount = isObject(item) ? toMinorUnits(item.item_price, currency) : undefined;
    if (!product || !Number.isInteger(quantity) || quantity < 1 || quantity > QUANTITY_MAX || unitAmount === undefined)
      return { ok: false, reason: `product_items[${i}] needs a product_retailer_id, a whole quantity and an item_price` };
    items.push({ product_retailer_id: product, name: null, quantity, unit_amount: unitAmount });
  }
  const priced = priceItems(items);
  if (!priced.ok) return { ok: false, reason: priced.errors[0]!.message };
  return {
    ok: true,
    input: {
      contactId: null,
      conversationId: null,
      catalogId: text(content.catalog_id, 200),
      currency,
      items: priced.items,
      totalAmount: priced.total,
      note: text(content.text, 4096),
      status: 'pending',
      paymentStatus: 'pending',
    },
  };
}

/**
 * Records the order an inbound order message placed, in the caller's transaction (the one storing the
 * message, which calls this only when the message is new). Resolves to the order, or to why the
 * message describes none (the message is kept either way).
 */
export async function recordInboundOrder(
  tx: Executor,
  message: { id: string; organizationId: string; contactId: string | null; conversationId: string; content: Json },
  at: Date,
): Promise<{ ok: true; order: OrderRow } | { ok: false; reason: string }> {
  const described = orderOfMessage(message.content);
  if (!described.ok) return described;
  const order = await insertOrder(
    tx,
    message.organizationId,
    { ...described.input, contactId: message.contactId, conversationId: message.conversationId, source: 'message', messageId: message.id },
    at,
  );
  return { ok: true, order };
}
