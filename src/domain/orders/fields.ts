/**
 * An order's writable fields (the API's and an inbound order message's), its states and the moves
 * between them, and the arithmetic of its amounts (minor units of its one currency).
 */
import { z } from 'zod';
import { AMOUNT_MAX, CURRENCIES } from '../deals/fields.ts';
import type { FieldError } from '../errors.ts';

export const ORDER_STATUSES = ['pending', 'confirmed', 'shipped', 'delivered', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export const PAYMENT_STATUSES = ['pending', 'paid', 'failed', 'refunded'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/**
 * Where each status may go (DECISIONS: order states). Forward along pending → confirmed → shipped →
 * delivered, steps may be skipped (a shop that ships at once); cancelled from any state before
 * delivered; delivered and cancelled are final (a return after delivery is a refund of the payment).
 */
export const STATUS_MOVES: Record<OrderStatus, readonly OrderStatus[]> = {
  pending: ['confirmed', 'shipped', 'delivered', 'cancelled'],
  confirmed: ['shipped', 'delivered', 'cancelled'],
  shipped: ['delivered', 'cancelled'],
  delivered: [],
  cancelled: [],
};

/** A payment fails and is tried again (failed → pending or paid); paid may be refunded; refunded is final. */
export const PAYMENT_MOVES: Record<PaymentStatus, readonly PaymentStatus[]> = {
  pending: ['paid', 'failed'],
  failed: ['pending', 'paid'],
  paid: ['refunded'],
  refunded: [],
};

export const ORDER_ITEMS_MAX = 100;
export const QUANTITY_MAX = 1_000_000;

export const OrderItemInputSchema = z.strictObject({
  product_retailer_id: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .meta({ description: 'The product’s id in the catalog (its SKU)', example: 'sku-42' }),
  name: z
    .string()
    .trim()
    .max(200)
    .nullable()
    .optional()
    .meta({ description: 'What the product is called', example: 'Espresso beans 1 kg' }),
  quantity: z.number().int().min(1).max(QUANTITY_MAX).meta({ example: 2 }),
  unit_amount: z
    .number()
    .int()
    .min(0)
    .max(AMOUNT_MAX)
    .meta({ description: 'The price of one, in the currency’s minor units (cents: 1250 is 12.50)', example: 1250 }),
});

export const OrderCreateSchema = z.strictObject({
  contact_id: z.uuid().nullable().optional().meta({ description: 'The customer: a contact of the organization' }),
  conversation_id: z.uuid().nullable().optional().meta({ description: 'The conversation the order came from (of the organization)' }),
  catalog_id: z.string().trim().min(1).max(200).nullable().optional().meta({ description: 'The catalog the products are from' }),
  currency: z.string().trim().max(3).meta({ description: 'ISO 4217 code (any case): every item is priced in it', example: 'EUR' }),
  items: z.array(OrderItemInputSchema).min(1).max(ORDER_ITEMS_MAX),
  note: z.string().trim().max(4096).nullable().optional().meta({ description: 'Free text: what the customer said with the order' }),
  status: z.enum(ORDER_STATUSES).optional().meta({ description: 'Default `pending`' }),
  payment_status: z.enum(PAYMENT_STATUSES).optional().meta({ description: 'Default `pending`' }),
});

export type OrderItem = { product_retailer_id: string; name: string | null; quantity: number; unit_amount: number; amount: number };

export type OrderInput = {
  contactId: string | null;
  conversationId: string | null;
  catalogId: string | null;
  currency: string;
  items: OrderItem[];
  totalAmount: number;
  note: string | null;
  status: OrderStatus;
  paymentStatus: PaymentStatus;
};

export type NormalizedOrder = { ok: true; input: OrderInput } | { ok: false; errors: FieldError[] };

/** Each item's amount and the total, or the field at fault when one passes AMOUNT_MAX. */
export function priceItems(
  items: Array<Omit<OrderItem, 'amount'>>,
): { ok: true; items: OrderItem[]; total: number } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  let total = 0;
  const priced = items.map((item, i) => {
    const amount = item.quantity * item.unit_amount;
    if (!Number.isSafeInteger(amount) || amount > AMOUNT_MAX)
      errors.push({ pointer: `/items/${i}/quantity`, message: `quantity × unit_amount passes ${AMOUNT_MAX}` });
    total += amount;
    return { ...item, amount };
  });
  if (errors.length === 0 && total > AMOUNT_MAX)
    errors.push({ pointer: '/items', message: `the order’s total passes ${AMOUNT_MAX} minor units` });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, items: priced, total };
}

/** Checks what the schema cannot: a currency in use, the amounts' sum; ids in one case. */
export function normalizeOrderFields(given: z.infer<typeof OrderCreateSchema>): NormalizedOrder {
  const errors: FieldError[] = [];
  const currency = given.currency.toUpperCase();
  if (!CURRENCIES.has(currency)) errors.push({ pointer: '/currency', message: 'not an ISO 4217 currency code in use (such as EUR)' });
  const priced = priceItems(
    given.items.map((item) => ({
      product_retailer_id: item.product_retailer_id,
      name: item.name || null,
      quantity: item.quantity,
      unit_amount: item.unit_amount,
    })),
  );
  if (!priced.ok) errors.push(...priced.errors);
  if (errors.length > 0 || !priced.ok) return { ok: false, errors };
  return {
    ok: true,
    input: {
      contactId: given.contact_id?.toLowerCase() ?? null,
      conversationId: given.conversation_id?.toLowerCase() ?? null,
      catalogId: given.catalog_id || null,
      currency,
      items: priced.items,
      totalAmount: priced.total,
      note: given.note || null,
      status: given.status ?? 'pending',
      paymentStatus: given.payment_status ?? 'pending',
    },
  };
}

/** The currency's minor-unit digits (2 for EUR, 0 for JPY, 3 for KWD). */
export function minorDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/**
 * A price as a provider sends it (a number of major units, or its decimal text: `12.5` EUR) in minor
 * units (`1250`); undefined when it is no such price.
 */
export function toMinorUnits(price: unknown, currency: string): number | undefined {
  const text = typeof price === 'number' ? (Number.isFinite(price) ? String(price) : '') : typeof price === 'string' ? price.trim() : '';
  const match = /^(\d{1,15})(?:\.(\d+))?$/.exec(text);
  if (!match) return undefined;
  const digits = minorDigits(currency);
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  // More precision than the currency has: rounded half up to its minor unit.
  const kept = fraction.slice(0, digits).padEnd(digits, '0');
  let minor = Number(match[1]) * 10 ** digits + Number(kept || '0');
  if (fraction.length > digits && Number(fraction[digits]) >= 5) minor += 1;
  return Number.isSafeInteger(minor) && minor <= AMOUNT_MAX ? minor : undefined;
}
