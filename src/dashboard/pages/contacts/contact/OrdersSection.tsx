/**
 * The contact's orders (from catalog carts sent in a chat, or made by the API): number, items, total,
 * status and payment, each changeable where the member may write the CRM. A move the server refuses
 * (a delivered order cancelled) shows its reason.
 */
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { errorMessage } from '../../../api.ts';
import { formatDate, formatMoney } from '../../../format.ts';
import { orgKey, usePagedList } from '../../../query.ts';
import { ErrorMessage, ListState, Pager, Table } from '../../../ui.tsx';
import { contactsApi, type OrderRecord } from '../api.ts';

const STATUSES: Array<OrderRecord['status']> = ['pending', 'confirmed', 'shipped', 'delivered', 'cancelled'];
const PAYMENTS: Array<OrderRecord['payment_status']> = ['pending', 'paid', 'failed', 'refunded'];

export function OrdersSection({ contactId, canWrite }: { contactId: string; canWrite: boolean }) {
  const queryClient = useQueryClient();
  const key = orgKey('contacts', contactId, 'orders');
  const orders = usePagedList(key, (cursor) => contactsApi.orders(contactId, cursor));
  const [failure, setFailure] = useState<string | undefined>();
  const change = useMutation({
    mutationFn: (input: { id: string; status?: OrderRecord['status']; payment_status?: OrderRecord['payment_status'] }) =>
      contactsApi.updateOrder(input.id, { status: input.status, payment_status: input.payment_status }),
    onMutate: () => setFailure(undefined),
    onError: (err) => setFailure(errorMessage(err)),
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });

  return (
    <section className="section card span-all" aria-labelledby="orders-title">
      <h2 id="orders-title">Orders</h2>
      <ErrorMessage message={failure} onDismiss={() => setFailure(undefined)} />
      <ListState items={orders.items} error={orders.error} empty={<p className="muted">No orders from this contact yet.</p>}>
        {(items) => (
          <Table label="Orders table" caption="The contact's orders" columns={['Order', 'Items', 'Total', 'Status', 'Payment', 'Placed']}>
            {items.map((o) => (
              <tr key={o.id}>
                <td className="nowrap">#{o.order_no}</td>
                <td>{o.items.map((i) => `${i.quantity} × ${i.name ?? i.product_retailer_id}`).join(', ')}</td>
                <td className="nowrap">{formatMoney(o.total_amount, o.currency)}</td>
                <td>
                  <StateSelect
                    label={`Status of order ${o.order_no}`}
                    value={o.status}
                    values={STATUSES}
                    disabled={!canWrite || change.isPending}
                    onChange={(status) => change.mutate({ id: o.id, status })}
                  />
                </td>
                <td>
                  <StateSelect
                    label={`Payment of order ${o.order_no}`}
                    value={o.payment_status}
                    values={PAYMENTS}
                    disabled={!canWrite || change.isPending}
                    onChange={(payment_status) => change.mutate({ id: o.id, payment_status })}
                  />
                </td>
                <td className="nowrap">{formatDate(o.created_at)}</td>
              </tr>
            ))}
          </Table>
        )}
      </ListState>
      <Pager list={orders} />
    </section>
  );
}

function StateSelect<T extends string>({
  label,
  value,
  values,
  disabled,
  onChange,
}: {
  label: string;
  value: T;
  values: T[];
  disabled: boolean;
  onChange(value: T): void;
}) {
  return (
    <select aria-label={label} value={value} disabled={disabled} onChange={(e) => onChange(e.target.value as T)}>
      {values.map((v) => (
        <option key={v} value={v}>
          {v}
        </option>
      ))}
    </select>
  );
}
