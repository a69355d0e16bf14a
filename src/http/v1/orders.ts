/** Orders: create, list (filters), get, and status / payment status changes. An inbound order message creates one too. */
import { z } from 'zod';
import {
  ORDER_STATUSES,
  OrderCreateSchema,
  PAYMENT_MOVES,
  PAYMENT_STATUSES,
  STATUS_MOVES,
  normalizeOrderFields,
} from '../../domain/orders/fields.ts';
import { createOrder, getOrder, listOrders, updateOrder, type OrderClockDeps } from '../../domain/orders/orders.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { crmRead, crmWrite, normalizedBody } from './crm.schemas.ts';
import { presentOrder } from './orders.presenters.ts';

const TAG = 'orders';

const moves = (table: Record<string, readonly string[]>) =>
  Object.entries(table)
    .map(([from, to]) => `${from} → ${to.length ? to.join(', ') : '(final)'}`)
    .join('; ');

const OrderItemSchema = z
  .object({
    product_retailer_id: z.string(),
    name: z.string().nullable(),
    quantity: z.number().int(),
    unit_amount: z.number().int().meta({ description: 'The price of one, in minor units' }),
    amount: z.number().int().meta({ description: 'quantity × unit_amount' }),
  })
  .meta({ id: 'OrderItem' });

export const OrderSchema = z
  .object({
    id: z.uuid(),
    order_no: z.string().meta({ description: 'The order’s number in the organization: 1, 2, 3, … without gaps', example: '1042' }),
    status: z.enum(ORDER_STATUSES),
    payment_status: z.enum(PAYMENT_STATUSES),
    contact_id: z.uuid().nullable().meta({ description: 'The customer; null when none was given or the contact was deleted' }),
    conversation_id: z.uuid().nullable(),
    message_id: z.uuid().nullable().meta({ description: 'The inbound order message that placed it; null for an order created by the API' }),
    source: z.enum(['message', 'api']),
    catalog_id: z.string().nullable(),
    currency: z.string().meta({ description: 'ISO 4217, upper case' }),
    items: z.array(OrderItemSchema),
    total_amount: z.number().int().meta({ description: 'The sum of the items’ amounts, in minor units' }),
    note: z.string().nullable().meta({ description: 'What the customer wrote with the order, or the note given' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Order' });

const CreateOrderBody = OrderCreateSchema.meta({
  id: 'CreateOrderRequest',
  description:
    'Numbered with the organization’s next order_no; total_amount is computed from the items. Without contact_id the customer is the conversation’s contact. Records commerce.order.updated and crm.record.created (object_kind `order`).',
  examples: [
    {
      contact_id: '0196b1f2-0a00-7000-8000-0000000000c1',
      conversation_id: '0196b1f2-0a00-7000-8000-0000000000d1',
      currency: 'EUR',
      items: [
        { product_retailer_id: 'beans-1kg', name: 'Espresso beans 1 kg', quantity: 2, unit_amount: 1890 },
        { product_retailer_id: 'filter-100', quantity: 1, unit_amount: 450 },
      ],
      note: 'Deliver after 5 pm',
    },
  ],
});

const UpdateOrderBody = z
  .strictObject({
    status: z
      .enum(ORDER_STATUSES)
      .optional()
      .meta({ description: `Allowed moves: ${moves(STATUS_MOVES)}` }),
    payment_status: z
      .enum(PAYMENT_STATUSES)
      .optional()
      .meta({ description: `Allowed moves: ${moves(PAYMENT_MOVES)}` }),
    note: z.string().trim().max(4096).nullable().optional().meta({ description: 'null or "" clears it' }),
  })
  .meta({
    id: 'UpdateOrderRequest',
    description:
      'Moves the status or the payment status (409 naming the field for a move not allowed; the same value is no change) or changes the note. Records commerce.order.updated and crm.record.updated when something changed.',
    examples: [{ status: 'confirmed' }, { status: 'shipped', payment_status: 'paid' }],
  });

const Params = z.object({ orderID: PathId });

/** What the orders routes use: the database and the clock. */
export type OrderServices = OrderClockDeps;

export async function registerOrderRoutes(app: App, deps: OrderServices) {
  app.post(
    '/v1/orders',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Create an order',
        description: CreateOrderBody.description,
        body: CreateOrderBody,
        response: { 201: dataOf(OrderSchema).describe('Created'), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request, reply) => {
      const input = normalizedBody(normalizeOrderFields(request.body));
      const row = await inputFrom('body', createOrder(deps, actorOf(request), input));
      return reply.code(201).send({ data: presentOrder(row) });
    },
  );

  app.get(
    '/v1/orders',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'List orders',
        description: 'Newest first, by cursor. Filters combine.',
        querystring: PageQuerySchema.extend({
          status: z.enum(ORDER_STATUSES).optional(),
          payment_status: z.enum(PAYMENT_STATUSES).optional(),
          contact_id: z.uuid().optional().meta({ description: 'The orders of this contact' }),
          conversation_id: z.uuid().optional().meta({ description: 'The orders placed in this conversation' }),
        }),
        response: { 200: listOf(OrderSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await inputFrom(
        'query',
        listOrders(deps, actorOf(request), {
          limit: q.limit,
          cursor: q.cursor,
          status: q.status,
          paymentStatus: q.payment_status,
          contactId: q.contact_id,
          conversationId: q.conversation_id,
        }),
      );
      return { data: page.items.map(presentOrder), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/orders/:orderID',
    {
      config: crmRead,
      schema: {
        tags: [TAG],
        summary: 'Get an order',
        params: Params,
        response: { 200: dataOf(OrderSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentOrder(await getOrder(deps, actorOf(request), { orderId: request.params.orderID })) }),
  );

  app.patch(
    '/v1/orders/:orderID',
    {
      config: crmWrite,
      schema: {
        tags: [TAG],
        summary: 'Change an order’s status or payment status',
        description: UpdateOrderBody.description,
        params: Params,
        body: UpdateOrderBody,
        response: { 200: dataOf(OrderSchema), ...errorResponses([400, 401, 403, 404, 409]) },
      },
    },
    async (request) => {
      const body = request.body;
      const row = await inputFrom(
        'body',
        updateOrder(deps, actorOf(request), {
          orderId: request.params.orderID,
          change: {
            status: body.status,
            paymentStatus: body.payment_status,
            ...(body.note !== undefined ? { note: body.note || null } : {}),
          },
        }),
      );
      return { data: presentOrder(row) };
    },
  );
}
