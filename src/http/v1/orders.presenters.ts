/** The orders routes' records (orders.ts): the presenter that turns the domain's rows into them, typed from the response schema. */
import type { z } from 'zod';
import type { OrderStatus, PaymentStatus } from '../../domain/orders/fields.ts';
import type { OrderRow } from '../../domain/orders/orders.ts';
import type { OrderSchema } from './orders.ts';

export type OrderRecord = z.infer<typeof OrderSchema>;

export function presentOrder(row: OrderRow): OrderRecord {
  return {
    id: row.id,
    order_no: String(row.orderNo),
    status: row.status as OrderStatus,
    payment_status: row.paymentStatus as PaymentStatus,
    contact_id: row.contactId,
    conversation_id: row.conversationId,
    message_id: row.messageId,
    source: row.source as 'message' | 'api',
    catalog_id: row.catalogId,
    currency: row.currency,
    items: row.items.map((item) => ({
      product_retailer_id: item.product_retailer_id,
      name: item.name ?? null,
      quantity: item.quantity,
      unit_amount: item.unit_amount,
      amount: item.amount,
    })),
    total_amount: row.totalAmount,
    note: row.note,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
