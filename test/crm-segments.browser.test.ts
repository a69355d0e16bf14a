/**
 * The lists and segments pages in a real browser against a real server: a list made, a contact added
 * to it by id and removed; a segment built from conditions (a tag and the list), previewed (the count
 * and the contacts), saved, counted in the segments table, and deleted. Each page checked at desktop
 * and phone width with axe (no violation). Needs the built dashboard (`npm run build:dashboard`).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { checkPage, closeBrowserSuite, logIn, openBrowserSuite, openContext, problemsOf } from './browser.ts';
import { postContact } from './contacts-fixtures.ts';
import { eventually } from './eventually.ts';
import { OWNER_EMAIL, OWNER_PASSWORD, request, type TestServer } from './harness.ts';

let server: TestServer;
let browser: Browser;

before(async () => ({ server, browser } = await openBrowserSuite()));
after(() => closeBrowserSuite({ server, browser }));

const api = (method: string, p: string, body?: unknown) => request(server, method, p, { key: server.apiKey, body });

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
