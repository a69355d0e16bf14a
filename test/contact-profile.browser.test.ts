/**
 * A contact's chat-app profile on the contact page, in a real browser against a real server: for a
 * contact who writes on a sandbox gateway channel, the profile through that channel (the picture, the
 * About text, a business's profile) and blocking and unblocking them on that phone; none for a contact
 * reached only on an official channel. A gateway channel's page: its own profile and privacy settings. The contact's timeline
 * and deals, and merging a duplicate into it after a preview. No accessibility violation, nothing wider than the screen. Needs
 * the built dashboard (`npm run build:dashboard`).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { checkPage, closeBrowserSuite, logIn, openBrowserSuite, openContext, problemsOf } from './browser.ts';
import { eventually } from './eventually.ts';
import { OWNER_EMAIL, OWNER_PASSWORD, request, type TestServer } from './harness.ts';
import { customerWrites, officialChannel, pairedGatewayChannel } from './messages-helpers.ts';

let server: TestServer;
let browser: Browser;

// The worker applies what the sandbox delivers (a customer writing in).
before(async () => ({ server, browser } = await openBrowserSuite({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '0' } })));
after(() => closeBrowserSuite({ server, browser }));

const api = (method: string, p: string, body?: unknown) => request(server, method, p, { key: server.apiKey, body });

async function contactOf(messageId: string): Promise<string> {
  return (await api('GET', `/v1/messages/${messageId}`)).body.data.contact_id;
}

test('a contact on a gateway channel: their chat-app profile and picture, blocked and unblocked from the contact page', async () => {
  const gateway = await pairedGatewayChannel(server, 'Shop phone');
  // A business account in the sandbox (docs/sandbox.md): its number ends 0003.
  const phone = '4915166660003';
  const contactId = await contactOf(await customerWrites(server, gateway.id, phone, 'text', { body: 'Hi' }, { name: 'Kiez Bakery' }));
  const recorded = await openContext(browser);
  const { page, context } = recorded;
  try {
    await page.goto(`${server.baseUrl}/app/contacts/${contactId}`);
    await logIn(page, OWNER_EMAIL, OWNER_PASSWORD);
    const section = page.getByRole('region', { name: 'Chat app profile' });
    await section.waitFor();
    await section.getByText('As the chat app shows this number to Shop phone.').waitFor();
    const picture = section.getByRole('img', { name: 'Profile picture of Sandbox 0003' });
    await picture.waitFor();
    assert.ok(await picture.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), 'the picture loaded');
    await section.getByText('Hey there! I am using the sandbox.').waitFor();
    await section.getByText('Shopping & retail: A business the sandbox plays').waitFor();
    await checkPage(page, 'contact-profile');

    await section.getByRole('button', { name: 'Block' }).click();
    await section.getByRole('button', { name: 'Unblock' }).waitFor();
    assert.deepEqual(
      (await api('GET', `/v1/channels/${gateway.id}/blocklist`)).body.data.map((b: { phone: string }) => b.phone),
      [`+${phone}`],
    );
    await section.getByText('blocked', { exact: true }).waitFor();
    await section.getByRole('button', { name: 'Unblock' }).click();
    await section.getByRole('button', { name: 'Block' }).waitFor();
    assert.deepEqual((await api('GET', `/v1/channels/${gateway.id}/blocklist`)).body.data, []);
    assert.deepEqual(problemsOf(recorded), { consoleErrors: [], pageErrors: [] });
  } finally {
    await context.close();
  }
});

test('a contact reached only on an official channel has no chat-app profile section', async () => {
  const official = await officialChannel(server, 'Support line');
  const contactId = await contactOf(await customerWrites(server, official.id, '4915166660001'));
  const recorded = await openContext(browser);
  const { page, context } = recorded;
  try {
    // The page asks the channel's capabilities (no profiles.read there), and nothing more comes of it.
    const asked = page.waitForResponse((r) => r.url().endsWith(`/v1/channels/${official.id}/capabilities`));
    await page.goto(`${server.baseUrl}/app/contacts/${contactId}`);
    await logIn(page, OWNER_EMAIL, OWNER_PASSWORD);
    await page.getByRole('region', { name: 'Conversations' }).getByText('Support line').waitFor();
    assert.equal((await asked).status(), 200);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    assert.equal(await page.getByRole('region', { name: 'Chat app profile' }).count(), 0);
    assert.deepEqual(problemsOf(recorded), { consoleErrors: [], pageErrors: [] });
  } finally {
    await context.close();
  }
});

test("a gateway channel's page: its own profile renamed and its privacy changed", async () => {
  const gateway = await pairedGatewayChannel(server, 'Front desk');
  const recorded = await openContext(browser);
  const { page, context } = recorded;
  try {
    await page.goto(`${server.baseUrl}/app/channels/${gateway.id}`);
    await logIn(page, OWNER_EMAIL, OWNER_PASSWORD);
    const profile = page.getByRole('region', { name: 'Profile' });
    await profile.getByText('Sandbox Business').waitFor();
    const privacy = page.getByRole('region', { name: 'Privacy' });
    await privacy.getByLabel('Read receipts').waitFor();
    await checkPage(page, 'channel-profile');

    const form = profile.getByRole('form', { name: 'Change the profile' });
    await form.getByLabel('Name').fill('Front Desk Shop');
    await form.getByLabel('About').fill('Open 9 to 6');
    await form.getByRole('button', { name: 'Save profile' }).click();
    await profile.locator('dd', { hasText: 'Front Desk Shop' }).waitFor();
    const own = (await api('GET', `/v1/channels/${gateway.id}/profile`)).body.data;
    assert.deepEqual([own.name, own.about], ['Front Desk Shop', 'Open 9 to 6']);

    await privacy.getByLabel('Read receipts').selectOption('none');
    await privacy.getByRole('button', { name: 'Save privacy' }).click();
    await eventually('the privacy saved', async () =>
      (await api('GET', `/v1/channels/${gateway.id}/privacy`)).body.data.read_receipts === 'none' ? true : undefined,
    );
    assert.deepEqual(problemsOf(recorded), { consoleErrors: [], pageErrors: [] });
  } finally {
    await context.close();
  }
});

test('the contact page shows its timeline, deals, companies and tasks (one added there), the timeline filtered by kind; a duplicate is merged into it after a preview', async () => {
  const official = await officialChannel(server, 'Timeline line');
  const contactId = await contactOf(await customerWrites(server, official.id, '4915166660021', 'text', { body: 'Where is my order?' }));
  await api('PATCH', `/v1/contacts/${contactId}`, { name: 'Tina Timeline' });
  await api('POST', `/v1/contacts/${contactId}/notes`, { body: 'Prefers mornings' });
  const deal = (await api('POST', '/v1/deals', { name: 'Tina: 5 seats', contact_ids: [contactId], amount: 50000, currency: 'EUR' })).body
    .data;
  const pipeline = (await api('GET', `/v1/pipelines/${deal.pipeline_id}`)).body.data;
  await api('PATCH', `/v1/deals/${deal.id}`, { stage_id: pipeline.stages[1].id });
  await api('POST', '/v1/tasks', { title: 'Call Tina back', targets: [{ kind: 'contact', id: contactId }] });
  const company = (await api('POST', '/v1/companies', { name: 'Timeline Traders' })).body.data;
  const worksAt = (await api('POST', '/v1/relationship-labels', { name: 'works at', from_kind: 'contact', to_kind: 'company' })).body.data;
  await api('POST', '/v1/relationships', { label_id: worksAt.id, from_id: contactId, to_id: company.id });
  const duplicate = (await api('POST', '/v1/contacts', { email: 'tina.dup@example.com', name: 'Tina T.' })).body.data;
  await api('POST', `/v1/contacts/${duplicate.id}/notes`, { body: 'Met at the fair' });

  const recorded = await openContext(browser);
  const { page, context } = recorded;
  try {
    await page.goto(`${server.baseUrl}/app/contacts/${contactId}`);
    await logIn(page, OWNER_EMAIL, OWNER_PASSWORD);
    const timeline = page.getByRole('region', { name: 'Timeline' });
    await timeline.getByText('Where is my order?').waitFor();
    await timeline.getByText('Prefers mornings').waitFor();
    await timeline.getByText('Call Tina back').waitFor();
    await timeline.getByText(`Tina: 5 seats: ${pipeline.stages[0].name} → ${pipeline.stages[1].name}`).waitFor();
    const dealLink = page.getByRole('region', { name: 'Deals' }).getByRole('link', { name: 'Tina: 5 seats' });
    await dealLink.waitFor();
    assert.equal(await dealLink.getAttribute('href'), `/app/deals/${deal.id}`);
    // Its company (by a relationship) and its tasks, one added from the page.
    const companyLink = page.getByRole('region', { name: 'Companies' }).getByRole('link', { name: 'Timeline Traders' });
    await companyLink.waitFor();
    assert.equal(await companyLink.getAttribute('href'), `/app/companies/${company.id}`);
    const tasks = page.getByRole('region', { name: 'Tasks' });
    await tasks.getByText('Call Tina back').waitFor();
    await tasks.getByLabel('Task', { exact: true }).fill('Send Tina the offer');
    await tasks.getByRole('button', { name: 'Add task' }).click();
    await tasks.getByText('Send Tina the offer').waitFor();
    const made = (await api('GET', `/v1/tasks?record=contact:${contactId}`)).body.data as Array<{ title: string }>;
    assert.ok(
      made.some((t) => t.title === 'Send Tina the offer'),
      'the task is linked to the contact',
    );
    await timeline.getByLabel('Show').selectOption('deal_stage');
    await timeline.getByText(`Tina: 5 seats: created in ${pipeline.stages[0].name}`).waitFor();
    await eventually('only deals shown', async () => ((await timeline.getByText('Prefers mornings').count()) === 0 ? true : undefined));
    await timeline.getByLabel('Show').selectOption('');

    const merge = page.getByRole('region', { name: 'Merge a duplicate' });
    await merge.getByLabel('Find the duplicate').fill('tina.dup');
    await merge.getByRole('button', { name: 'Preview merging Tina T.' }).click();
    const preview = merge.getByRole('group', { name: 'Merge preview' });
    await preview.getByText(/Moves .*1 notes/).waitFor();
    await preview.getByRole('list', { name: 'Conflicts' }).getByText('Tina Timeline / Tina T.').waitFor();
    await checkPage(page, 'contact-timeline');
    await preview.getByRole('button', { name: 'Merge' }).click();
    await timeline.getByText('Met at the fair').waitFor();
    assert.equal((await api('GET', `/v1/contacts/${duplicate.id}`)).status, 404);
    assert.equal((await api('GET', `/v1/contacts/${contactId}`)).body.data.email, 'tina.dup@example.com');
    assert.deepEqual(problemsOf(recorded), { consoleErrors: [], pageErrors: [] });
  } finally {
    await context.close();
  }
});
