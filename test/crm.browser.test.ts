/**
 * The CRM pages in a real browser (Debian's chromium through playwright-core) against a real server:
 * the deals board with a deal dragged to another stage and one moved from the keyboard (each checked
 * through the API), a new deal and the deal page (stage history, contacts, company, comments, tasks);
 * companies listed, searched, created, edited and deleted with their deals, tasks and comments; and my
 * tasks due today and overdue (seeded by the server's clock), completed and reopened; the lists and
 * segments pages (a list made and filled, a segment built from conditions, previewed, saved, counted and
 * deleted); a contact's orders on the contact page (a cart sent from a catalog through the sandbox, its
 * status and payment changed, a move the server refuses shown). Every page has no axe violation at
 * desktop and phone width. One server and one browser for them all (a browser file's start costs more
 * CPU than most of its tests). Needs the built dashboard (`npm run build:dashboard`).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { checkPage, closeBrowserSuite, logIn, openBrowserSuite, openContext, problemsOf } from './browser.ts';
import { postContact } from './contacts-fixtures.ts';
import { eventually } from './eventually.ts';
import { loginCookie, OWNER_EMAIL, OWNER_PASSWORD, request, type TestServer } from './harness.ts';
import { customerWrites, officialChannel } from './messages-helpers.ts';

let server: TestServer;
let browser: Browser;
let userId: string;

before(async () => {
  // The worker gives events their stream positions (the board's live update) and applies what the
  // sandbox delivers (the customer's order).
  ({ server, browser } = await openBrowserSuite({ worker: true, env: { SANDBOX_STATUS_DELAY_MS: '0' } }));
  const cookie = await loginCookie(server);
  userId = (await request(server, 'GET', '/v1/auth/session', { cookie })).body.data.user.id;
});
after(() => closeBrowserSuite({ server, browser }));

const api = (method: string, p: string, body?: unknown) => request(server, method, p, { key: server.apiKey, body });

async function created(p: string, body: unknown) {
  const res = await api('POST', p, body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data;
}

/** A signed-in page at /app<path>, waiting for its heading. */
async function signedIn(path: string, heading: string) {
  const recorded = await openContext(browser);
  const { page } = recorded;
  await page.goto(`${server.baseUrl}/app${path}`);
  await logIn(page, OWNER_EMAIL, OWNER_PASSWORD);
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  return { ...recorded, problems: () => problemsOf(recorded) };
}

/** The default pipeline ("Sales") and its stages by name. */
async function salesPipeline() {
  const pipelines = (await api('GET', '/v1/pipelines')).body.data as Array<{
    id: string;
    is_default: boolean;
    stages: Array<{ id: string; name: string }>;
  }>;
  const sales = pipelines.find((p) => p.is_default)!;
  return { id: sales.id, stage: Object.fromEntries(sales.stages.map((s) => [s.name, s.id])) as Record<string, string> };
}

const stageOf = async (dealId: string) => (await api('GET', `/v1/deals/${dealId}`)).body.data.stage_id as string;

test('the deals board: a deal dragged to another stage, one moved from the keyboard, totals per currency, a new deal', async () => {
  const sales = await salesPipeline();
  const dragged = await created('/v1/deals', { name: 'Drag me', amount: 150000, currency: 'EUR' });
  const keyed = await created('/v1/deals', { name: 'Key me', amount: 2500, currency: 'USD' });
  const { context, page, problems } = await signedIn('/deals', 'Deals');
  try {
    const column = (name: string) => page.locator('section.board-column', { has: page.getByRole('heading', { name, level: 2 }) });
    const card = (id: string) => page.locator(`li.deal-card[data-deal-id="${id}"]`);
    await column('New').locator(card(dragged.id)).waitFor();
    assert.match((await column('New').locator('header').textContent()) ?? '', /€1,500\.00/);
    assert.match((await column('New').locator('header').textContent()) ?? '', /\$25\.00/);
    await checkPage(page, 'crm-board');

    // Drag: the card to the Qualified column; the API has the deal there.
    await card(dragged.id).dragTo(column('Qualified'));
    await column('Qualified').locator(card(dragged.id)).waitFor();
    await eventually('the dragged deal in Qualified', async () => (await stageOf(dragged.id)) === sales.stage.Qualified);
    await page.getByTestId('board-announcer').getByText('Moved Drag me to Qualified.').waitFor();

    // Keyboard: focus the card's Move button, Enter, pick Proposal by typing, Tab to Move, Enter.
    await page.getByRole('button', { name: 'Move Key me to another stage' }).focus();
    await page.keyboard.press('Enter');
    const picker = page.getByLabel('Stage for Key me');
    await eventually('the stage picker focused', () => picker.evaluate((el) => el === document.activeElement));
    await page.keyboard.type('Proposal');
    assert.equal(await picker.inputValue(), sales.stage.Proposal);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await column('Proposal').locator(card(keyed.id)).waitFor();
    await eventually('the keyed deal in Proposal', async () => (await stageOf(keyed.id)) === sales.stage.Proposal);
    await page.getByTestId('board-announcer').getByText('Moved Key me to Proposal.').waitFor();
    await eventually('focus stays on the moved card', () =>
      page.getByRole('button', { name: 'Move Key me to another stage' }).evaluate((el) => el === document.activeElement),
    );
    const history = (await api('GET', `/v1/deals/${keyed.id}/stage-history`)).body.data as Array<{ stage_name: string }>;
    assert.deepEqual(
      history.map((h) => h.stage_name),
      ['New', 'Proposal'],
    );
    // The totals follow the server: Qualified holds the euros now.
    await eventually('Qualified totals', async () => /€1,500\.00/.test((await column('Qualified').locator('header').textContent()) ?? ''));

    // A deal moved elsewhere (an integration) moves on the board too, through the live event stream.
    await api('PATCH', `/v1/deals/${dragged.id}`, { stage_id: sales.stage.Negotiation });
    await column('Negotiation').locator(card(dragged.id)).waitFor();

    // A new deal from the board lands on its page, in the first stage.
    await page.getByRole('link', { name: 'New deal' }).click();
    await page.getByRole('heading', { name: 'New deal', level: 1 }).waitFor();
    await page.getByLabel('Name').fill('Board deal');
    await page.getByLabel('Amount').fill('12,500.50');
    await page.getByRole('button', { name: 'Create deal' }).click();
    await page.getByRole('heading', { name: 'Board deal', level: 1 }).waitFor();
    const dealId = /\/app\/deals\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
    assert.ok(dealId, page.url());
    const deal = (await api('GET', `/v1/deals/${dealId}`)).body.data;
    assert.deepEqual([deal.amount, deal.currency, deal.stage_id], [1250050, 'EUR', sales.stage.New]);
    assert.deepEqual(problems(), { consoleErrors: [], pageErrors: [] });
  } finally {
    await context.close();
  }
});

test('the board of another pipeline, picked in the address: a stage pages its cards with Load more', async () => {
  const pipeline = await created('/v1/pipelines', {
    name: 'Partnerships',
    stages: [
      { name: 'Lead', probability: 10 },
      { name: 'Signed', probability: 100, kind: 'won' },
    ],
  });
  const lead = pipeline.stages[0].id;
  for (let i = 1; i <= 22; i++)
    await created('/v1/deals', { name: `Partner ${i}`, pipeline_id: pipeline.id, amount: 100, currency: 'EUR' });
  const { context, page, problems } = await signedIn('/deals', 'Deals');
  try {
    await page.getByLabel('Pipeline').selectOption({ label: 'Partnerships' });
    await page.waitForURL(new RegExp(`/app/deals\\?pipeline=${pipeline.id}$`));
    const column = page.locator(`section.board-column[data-stage-id="${lead}"]`);
    const cards = column.locator('li.deal-card');
    await eventually('the first page', async () => (await cards.count()) === 20);
    assert.match((await column.locator('header').textContent()) ?? '', /Lead 22.*€22\.00/s);
    await page.getByRole('button', { name: 'Load more deals in Lead' }).click();
    await eventually('the second page', async () => (await cards.count()) === 22);
    assert.equal(await page.getByRole('button', { name: 'Load more deals in Lead' }).count(), 0, 'nothing more to load');
    // Newest arrival first: the oldest deal comes last.
    assert.equal(await cards.last().locator('a').textContent(), 'Partner 1');
    // A deep link after a reload shows the same pipeline.
    await page.reload();
    await eventually('the board again', async () => (await cards.count()) === 20);
    assert.equal(await page.getByLabel('Pipeline').inputValue(), pipeline.id);
    assert.deepEqual(problems(), { consoleErrors: [], pageErrors: [] });
  } finally {
    await context.close();
  }
});

test('the deal page: details, stage history, contacts, company, comments and tasks; edited and deleted', async () => {
  const sales = await salesPipeline();
  const company = await created('/v1/companies', { name: 'Umbrella Ltd' });
  const contact = await postContact(server, { name: 'Carla Contact', email: 'carla@example.com' });
  const deal = await created('/v1/deals', {
    name: 'Umbrella renewal',
    amount: 990000,
    currency: 'EUR',
    company_id: company.id,
    contact_ids: [contact.id],
    expected_close_date: '2031-03-31',
  });
  await api('PATCH', `/v1/deals/${deal.id}`, { stage_id: sales.stage.Negotiation });
  const { context, page, problems } = await signedIn(`/deals/${deal.id}`, 'Umbrella renewal');
  try {
    await page.getByRole('link', { name: 'Umbrella Ltd' }).waitFor();
    await page.getByRole('list', { name: 'Contacts of this deal' }).getByRole('link', { name: 'Carla Contact' }).waitFor();
    const history = page.getByRole('list', { name: 'Stage history' });
    await history.getByText('Negotiation').waitFor();
    await history.getByText('New', { exact: true }).waitFor();
    assert.match((await page.locator('.details').textContent()) ?? '', /€9,900\.00.*Negotiation \(Sales\)/s);

    await page.getByLabel('New comment').fill('They want to start in July.');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await page.getByRole('list', { name: 'Comments' }).getByText('They want to start in July.').waitFor();
    const comments = (await api('GET', `/v1/comments?record=deal:${deal.id}`)).body.data;
    assert.equal(comments.length, 1);

    await page.getByLabel('Task', { exact: true }).fill('Send the offer');
    await page.getByRole('button', { name: 'Add task' }).click();
    await page.getByRole('list', { name: 'Tasks of this deal' }).getByText('Send the offer').waitFor();
    const tasks = (await api('GET', `/v1/tasks?record=deal:${deal.id}`)).body.data;
    assert.deepEqual(
      tasks.map((t: { title: string; assignee_user_id: string }) => [t.title, t.assignee_user_id]),
      [['Send the offer', userId]],
    );
    await checkPage(page, 'crm-deal');

    // Edit: the stage picker moves it too; an unknown currency is refused at its field.
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Currency').fill('XXQ');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const currency = page.getByLabel('Currency');
    await eventually('the currency marked invalid', async () => (await currency.getAttribute('aria-invalid')) === 'true');
    await currency.fill('EUR');
    await page.getByLabel('Stage', { exact: true }).selectOption({ label: 'Won' });
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Details' }).waitFor();
    assert.equal(await stageOf(deal.id), sales.stage.Won);
    await history.getByText('Won').waitFor();

    await page.getByRole('button', { name: 'Delete…' }).click();
    await page.getByRole('button', { name: 'Delete deal' }).click();
    await page.getByRole('heading', { name: 'Deals', level: 1 }).waitFor();
    assert.equal((await api('GET', `/v1/deals/${deal.id}`)).status, 404);
    const { consoleErrors, pageErrors } = problems();
    assert.deepEqual(
      {
        consoleErrors: consoleErrors.filter((l) => !/status of 400 \(Bad Request\) \[http:\/\/127\.0\.0\.1:\d+\/v1\/deals\//.test(l)),
        pageErrors,
      },
      { consoleErrors: [], pageErrors: [] },
    );
  } finally {
    await context.close();
  }
});

test('companies: listed, searched and sorted, created, edited, with their deals, tasks and comments, and deleted', async () => {
  await created('/v1/companies', { name: 'Globex Corporation', domain: 'globex.example' });
  await created('/v1/companies', { name: 'Initech', domain: 'initech.example' });
  const { context, page, problems } = await signedIn('/companies', 'Companies');
  try {
    const rows = page.locator('table.companies-table tbody tr');
    await page.getByRole('link', { name: 'Globex Corporation' }).waitFor();
    await page.getByLabel('Name').fill('lobe');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/\/app\/companies\?name=lobe$/);
    await eventually('only Globex listed', async () => (await rows.count()) === 1);
    await page.getByRole('link', { name: 'Globex Corporation' }).waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('Sort').selectOption('name');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/sort=name/);
    await eventually('sorted by name', async () => {
      const names = await page.locator('table.companies-table tbody tr td:first-child').allTextContents();
      return names.indexOf('Globex Corporation') < names.indexOf('Initech') && names.indexOf('Globex Corporation') >= 0;
    });
    await checkPage(page, 'crm-companies');

    // Create; the API's refusal (a domain another company has) at its field.
    await page.getByRole('link', { name: 'New company' }).click();
    await page.getByLabel('Name').fill('Acme GmbH');
    await page.getByLabel('Domain').fill('https://www.globex.example');
    await page.getByLabel('City').fill('Berlin');
    await page.getByLabel('Country').fill('de');
    await page.getByRole('button', { name: 'Create company' }).click();
    const domain = page.getByLabel('Domain');
    await eventually('the domain marked invalid', async () => (await domain.getAttribute('aria-invalid')) === 'true');
    await domain.fill('https://www.Acme.com/about');
    await page.getByRole('button', { name: 'Create company' }).click();
    await page.getByRole('heading', { name: 'Acme GmbH', level: 1 }).waitFor();
    const companyId = /\/app\/companies\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
    assert.ok(companyId, page.url());
    const company = (await api('GET', `/v1/companies/${companyId}`)).body.data;
    assert.deepEqual([company.domain, company.address.country, company.owner_user_id], ['acme.com', 'DE', userId]);

    // Edit.
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Phone').fill('+49 30 1234567');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('.details dd', { hasText: '+49301234567' }).waitFor();
    assert.equal((await api('GET', `/v1/companies/${companyId}`)).body.data.address.city, 'Berlin', 'the address is kept');

    // The owner filter: only this one is mine.
    await page.goto(`${server.baseUrl}/app/companies?owner=me`);
    await page.getByRole('link', { name: 'Acme GmbH' }).waitFor();
    await eventually('only my company listed', async () => (await rows.count()) === 1);
    assert.equal(await page.getByLabel('Owner').inputValue(), 'me');
    await page.getByRole('link', { name: 'Acme GmbH' }).click();
    await page.getByRole('heading', { name: 'Acme GmbH', level: 1 }).waitFor();

    // Its deals (one made through the API shows up), a task and a comment.
    await created('/v1/deals', { name: 'Acme: 40 seats', company_id: companyId });
    await page.reload();
    await page.getByRole('list', { name: 'Deals of this company' }).getByRole('link', { name: 'Acme: 40 seats' }).waitFor();
    await page.getByLabel('Task', { exact: true }).fill('Call Acme');
    await page.getByRole('button', { name: 'Add task' }).click();
    await page.getByRole('list', { name: 'Tasks of this company' }).getByText('Call Acme').waitFor();
    await page.getByLabel('New comment').fill('Met at the fair.');
    await page.getByRole('button', { name: 'Add comment' }).click();
    const comments = page.getByRole('list', { name: 'Comments' });
    await comments.getByText('Met at the fair.').waitFor();
    assert.match((await comments.textContent()) ?? '', /by you/);
    await checkPage(page, 'crm-company');
    await comments.getByRole('button', { name: /^Delete comment/ }).click();
    await page.getByText('No comments yet.').waitFor();
    assert.equal((await api('GET', `/v1/comments?record=company:${companyId}`)).body.data.length, 0);

    await page.getByRole('button', { name: 'Delete…' }).click();
    await page.getByRole('button', { name: 'Delete company' }).click();
    await page.getByRole('heading', { name: 'Companies', level: 1 }).waitFor();
    assert.equal((await api('GET', `/v1/companies/${companyId}`)).status, 404);
    const { consoleErrors, pageErrors } = problems();
    assert.deepEqual(
      {
        consoleErrors: consoleErrors.filter((l) => !/status of 409 \(Conflict\) \[http:\/\/127\.0\.0\.1:\d+\/v1\/companies\]$/.test(l)),
        pageErrors,
      },
      { consoleErrors: [], pageErrors: [] },
    );
  } finally {
    await context.close();
  }
});

test('my tasks: overdue and due today by the server clock, completed and reopened, and a new one', async () => {
  const now = server.container.clock.now().getTime();
  // Later today in the browser's (this process's) time zone, at least a minute from now, unless the day ends first.
  const endOfDay = new Date(now);
  endOfDay.setHours(23, 59, 0, 0);
  const today = new Date(Math.min(now + 10 * 60_000, Math.max(endOfDay.getTime(), now + 60_000)));
  const overdue = await created('/v1/tasks', {
    title: 'Chase the invoice',
    due_at: new Date(now - 3_600_000).toISOString(),
    assignee_user_id: userId,
    priority: 'high',
  });
  const dueToday = await created('/v1/tasks', { title: 'Call Dora back', due_at: today.toISOString(), assignee_user_id: userId });
  await created('/v1/tasks', { title: 'Not mine', due_at: new Date(now - 3_600_000).toISOString(), assignee_user_id: null });
  const { context, page, problems } = await signedIn('/tasks', 'My tasks');
  try {
    const overdueList = page.getByRole('list', { name: 'Overdue' });
    const todayList = page.getByRole('list', { name: 'Due today' });
    await overdueList.getByText('Chase the invoice').waitFor();
    await todayList.getByText('Call Dora back').waitFor();
    assert.match((await overdueList.textContent()) ?? '', /overdue · high priority/);
    assert.equal(await page.getByText('Not mine').count(), 0, 'a task assigned to nobody is not mine');
    assert.equal(await todayList.getByText('Chase the invoice').count(), 0);
    await checkPage(page, 'crm-tasks');

    await page.getByRole('button', { name: 'Complete Chase the invoice' }).click();
    await page.getByText('Nothing overdue.').waitFor();
    await page.getByRole('list', { name: 'Recently completed' }).getByText('Chase the invoice').waitFor();
    assert.equal((await api('GET', `/v1/tasks/${overdue.id}`)).body.data.status, 'completed');
    await page.getByRole('button', { name: 'Reopen Chase the invoice' }).click();
    await overdueList.getByText('Chase the invoice').waitFor();
    assert.equal((await api('GET', `/v1/tasks/${overdue.id}`)).body.data.status, 'open');

    // A new task due tomorrow goes under Later.
    const tomorrow = new Date(now + 24 * 3_600_000);
    const pad = (n: number) => String(n).padStart(2, '0');
    await page.getByLabel('Task', { exact: true }).fill('Prepare the demo');
    await page
      .getByLabel('Due', { exact: true })
      .fill(`${tomorrow.getFullYear()}-${pad(tomorrow.getMonth() + 1)}-${pad(tomorrow.getDate())}T${pad(tomorrow.getHours())}:00`);
    await page.getByRole('button', { name: 'Add task' }).click();
    await page.getByRole('list', { name: 'Later' }).getByText('Prepare the demo').waitFor();
    const mine = (await api('GET', `/v1/tasks?assignee=${userId}&status=open`)).body.data.map((t: { title: string }) => t.title);
    assert.ok(mine.includes('Prepare the demo') && mine.includes(dueToday.title), mine.join(', '));
    assert.deepEqual(problems(), { consoleErrors: [], pageErrors: [] });
  } finally {
    await context.close();
  }
});

test('a list is made and filled, and a segment is built, previewed, saved, counted and deleted', async () => {
  const ada = await postContact(server, { name: 'Ada Segment', phone_number: '+4930555001' });
  const bob = await postContact(server, { name: 'Bob Segment', phone_number: '+4930555002' });
  await postContact(server, { name: 'Cy Segment', phone_number: '+4930555003' });
  for (const c of [ada, bob]) await api('POST', `/v1/contacts/${c.id}/tags`, { tag: 'vip' });

  const recorded = await openContext(browser);
  const { context, page } = recorded;
  try {
    await page.goto(`${server.baseUrl}/app/lists`);
    await logIn(page, OWNER_EMAIL, OWNER_PASSWORD);
    await page.getByRole('heading', { name: 'Lists', level: 1 }).waitFor();

    // A list of contacts, with Ada added by her id.
    await page.getByLabel('List name').fill('Newsletter');
    await page.getByRole('button', { name: 'Create list' }).click();
    await page.getByRole('link', { name: 'Newsletter' }).click();
    await page.getByRole('heading', { name: 'Newsletter', level: 1 }).waitFor();
    await page.getByLabel('Add contacts by id').fill(ada.id);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('status').filter({ hasText: '1 added' }).waitFor();
    await page.getByRole('link', { name: 'Ada Segment' }).waitFor();
    await checkPage(page, 'list');
    const [list] = (await api('GET', '/v1/lists')).body.data;
    assert.equal(list.entry_count, 1);

    // A segment: tagged vip and not in the list, which is Bob.
    await page.getByRole('link', { name: 'Segments' }).click();
    await page.getByRole('heading', { name: 'Segments', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'New segment' }).click();
    await page.getByRole('heading', { name: 'New segment', level: 1 }).waitFor();
    await page.getByLabel('Segment name').fill('VIPs not on the newsletter');
    await page.getByLabel('Value 1').fill('vip');
    await page.getByRole('button', { name: 'Add condition' }).click();
    await page.getByLabel('Field 2').selectOption('lists');
    await page.getByLabel('Operator 2').selectOption('not_in');
    await page.getByLabel('Value 2').selectOption({ label: 'Newsletter' });
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('status').filter({ hasText: '1 contact matches' }).waitFor();
    await page.getByRole('region', { name: 'Preview of the matching contacts' }).getByRole('link', { name: 'Bob Segment' }).waitFor();
    await checkPage(page, 'segment-builder');

    await page.getByRole('button', { name: 'Save segment' }).click();
    await page.waitForURL(/\/app\/segments\/[0-9a-f-]{36}$/);
    const segmentId = /\/segments\/([0-9a-f-]{36})$/.exec(page.url())![1]!;
    const saved = (await api('GET', `/v1/segments/${segmentId}`)).body.data;
    assert.deepEqual(saved.filter, {
      and: [
        { field: 'tags', op: 'has', value: 'vip' },
        { field: 'lists', op: 'not_in', value: list.id },
      ],
    });
    // Reopened, the builder shows the saved conditions.
    await page.reload();
    await page.getByRole('heading', { name: 'VIPs not on the newsletter', level: 1 }).waitFor();
    assert.equal(await page.getByLabel('Operator 2').inputValue(), 'not_in');

    // Counted in the table.
    await page.getByRole('link', { name: 'Back to segments' }).click();
    const row = page.locator(`tr[data-segment-id="${segmentId}"]`);
    await eventually('the count in the table', async () => (await row.textContent())?.includes('VIPs not on the newsletter1') ?? false);
    await checkPage(page, 'segments');

    // A bad filter is refused, the API's message shown.
    await row.getByRole('link').click();
    await page.getByLabel('Field 1').selectOption('custom_fields.');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('alert').filter({ hasText: 'custom_fields.' }).waitFor();

    await page.reload();
    await page.getByRole('button', { name: 'Delete segment' }).click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('heading', { name: 'Segments', level: 1 }).waitFor();
    assert.equal((await api('GET', `/v1/segments/${segmentId}`)).status, 404);

    // The list goes too; its contacts stay.
    await page.getByRole('link', { name: 'Lists' }).click();
    await page.getByRole('link', { name: 'Newsletter' }).click();
    await page.getByRole('button', { name: 'Delete list' }).click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('heading', { name: 'Lists', level: 1 }).waitFor();
    await page.getByText('No lists yet').waitFor();
    await checkPage(page, 'lists');
    assert.equal((await api('GET', `/v1/contacts/${ada.id}`)).status, 200);

    const { consoleErrors, pageErrors } = problemsOf(recorded);
    assert.deepEqual(pageErrors, []);
    // The one refusal provoked on purpose (the filter without a custom field key).
    assert.deepEqual(
      consoleErrors.filter((l) => !/status of 400 \(Bad Request\) \[http:\/\/127\.0\.0\.1:\d+\/v1\/segments\/[0-9a-f-]+\]$/.test(l)),
      [],
    );
  } finally {
    await context.close();
  }
});

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
