/**
 * A contact's orders on the contact page, in a real browser against a real server: a cart the customer
 * sent from a catalog (played through the sandbox) shows as an order with its items and total; its
 * status and payment are changed from the page, and a move the server refuses (a delivered order
 * cancelled) shows why. No accessibility violation, nothing wider than the screen. Needs the built
 * dashboard (`npm run build:dashboard`).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { checkPage, closeBrowserSuite, logIn, openBrowserSuite, openContext, problemsOf } from './browser.ts';
import { eventually } from './eventually.ts';
import { OWNER_EMAIL, OWNER_PASSWORD, request, type TestServer } from './harness.ts';
import { customerWrites, officialChannel } from './messages-helpers.ts';

let server: TestServer;
let browser: Browser;

// The worker applies what the sandbox delivers (a customer writing in).
before(async () => ({ server, browser } = await openBrowserSuite({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '0' } })));
after(() => closeBrowserSuite({ server, browser }));

const api = (method: string, p: string, body?: unknown) => request(server, method, p, { key: server.apiKey, body });

test('an order sent from a catalog shows on its contact’s page, where its status and payment change', async () => {
  const channel = await officialChannel(server, 'Shop line');
  const messageId = await customerWrites(server, channel.id, '4915166660021', 'order', {
    catalog_id: 'cat-1',
    product_items: [
      { product_retailer_id: 'beans-1kg', quantity: 2, item_price: 18.9, currency: 'EUR' },
      { product_retailer_id: 'filter-100', quantity: 1, item_price: 4.5, currency: 'EUR' },
    ],
  });
  const contactId = (await api('GET', `/v1/messages/${messageId}`)).body.data.contact_id;
  const order = await eventually('the order', async () => (await api('GET', `/v1/orders?contact_id=${contactId}`)).body.data[0]);
  const current = async () => (await api('GET', `/v1/orders/${order.id}`)).body.data;

  const recorded = await openContext(browser);
  const { page, context } = recorded;
  try {
    await page.goto(`${server.baseUrl}/app/contacts/${contactId}`);
    await logIn(page, OWNER_EMAIL, OWNER_PASSWORD);
    const section = page.getByRole('region', { name: 'Orders' });
    const row = section.getByRole('row').filter({ hasText: `#${order.order_no}` });
    await row.waitFor();
    await row.getByText('2 × beans-1kg, 1 × filter-100').waitFor();
    await row.getByText(/42[.,]30/).waitFor();
    await checkPage(page, 'contact-orders');

    const status = section.getByRole('combobox', { name: `Status of order ${order.order_no}` });
    const payment = section.getByRole('combobox', { name: `Payment of order ${order.order_no}` });
    await status.selectOption('shipped');
    await eventually('shipped', async () => (await current()).status === 'shipped');
    await payment.selectOption('paid');
    await eventually('paid', async () => (await current()).payment_status === 'paid');
    await status.selectOption('delivered');
    await eventually('delivered', async () => (await current()).status === 'delivered');
    assert.deepEqual(problemsOf(recorded), { consoleErrors: [], pageErrors: [] });

    // Delivered is final: the server's refusal is shown, and the order stays as it was.
    await status.selectOption('cancelled');
    await section.getByText(/delivered is final/).waitFor();
    await eventually('the select shows the order as it is', async () => (await status.inputValue()) === 'delivered');
    assert.equal((await current()).status, 'delivered');
    assert.deepEqual(problemsOf(recorded).pageErrors, []);
  } finally {
    await context.close();
  }
});
