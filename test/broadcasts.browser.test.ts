/**
 * The broadcast pages in a real browser against a real server with its worker, on the sandbox's official
 * channel: a broadcast made in steps (channel; template with its body previewed for a sample contact and
 * for nobody; audience by tag and a pasted number with its live count; a time in the organization's zone
 * saved as the right instant, a past one refused beside its field; pacing), scheduled to send now,
 * watched to completion, its report (chart and table) and recipients filtered by status. A slow one is
 * paused, resumed and stopped from its page. Each page checked with axe (the list, the template and
 * audience steps and the broadcast's page also at phone width, with screenshots).
 * Needs the built dashboard (`npm run build:dashboard`).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { assertAccessible, checkPage, closeBrowserSuite, logIn, openBrowserSuite, openContext, problemsOf } from './browser.ts';
import { postContact } from './contacts-fixtures.ts';
import { eventually } from './eventually.ts';
import { OWNER_EMAIL, OWNER_PASSWORD, request, type TestServer } from './harness.ts';
import { approvedTemplate, officialChannel } from './messages-helpers.ts';

let server: TestServer;
let browser: Browser;
let channelId: string;

before(async () => {
  ({ server, browser } = await openBrowserSuite({ worker: true }));
  channelId = (await officialChannel(server, 'Promotions')).id;
  await approvedTemplate(server, channelId, 'june_sale', 'en_US', [{ type: 'BODY', text: 'Hi {{1}}, our June sale starts today.' }]);
});
after(() => closeBrowserSuite({ server, browser }));

const api = async (method: string, p: string, body?: unknown) => {
  const res = await request(server, method, p, { key: server.apiKey, body });
  assert.ok(res.status < 300, `${method} ${p}: ${res.text}`);
  return res.body;
};

const next = (page: Page) => page.getByRole('button', { name: 'Next' }).click();
const stepForm = (page: Page, step: string) => page.getByRole('form', { name: `${step} step` }).waitFor();

test('a broadcast made in steps, scheduled, watched to completion, then its report and recipients; a slow one paused, resumed and stopped', async () => {
  const ada = await postContact(server, { name: 'Ada Broadcast', phone_number: '+4930511111' });
  const bob = await postContact(server, { phone_number: '+4930522222' });
  const cy = await postContact(server, { name: 'Cy Broadcast', phone_number: '+4930533333' });
  for (const c of [ada, bob, cy]) await api('POST', `/v1/contacts/${c.id}/tags`, { tag: 'june' });
  await api('POST', `/v1/contacts/${cy.id}/suppressions`, { channel: channelId, reason: 'asked to stop' });
  // The organization's time zone is its business hours' zone.
  await api('PATCH', '/v1/settings/business-hours', { time_zone: 'America/New_York' });

  const recorded = await openContext(browser);
  const { context, page } = recorded;
  try {
    await page.goto(`${server.baseUrl}/app/broadcasts`);
    await logIn(page, OWNER_EMAIL, OWNER_PASSWORD);
    await page.getByRole('heading', { name: 'Broadcasts', level: 1 }).waitFor();
    await page.getByText('No broadcasts yet').waitFor();
    await assertAccessible(page, 'the empty list');

    // 1. Channel.
    await page.getByRole('link', { name: 'New broadcast' }).click();
    await stepForm(page, 'Channel');
    await page.getByLabel('Broadcast name').fill('June sale');
    await page.getByLabel('Channel', { exact: true }).selectOption(channelId);
    await next(page);

    // 2. Template, previewed for a contact of the sample and for one with no details (the defaults).
    await stepForm(page, 'Template');
    await page.getByLabel('Template', { exact: true }).selectOption({ label: 'june_sale (en_US)' });
    await page.getByLabel('Variable {{1}}').fill('{{contact.name|there}}');
    await page.getByLabel('Preview for').selectOption({ label: 'Ada Broadcast' });
    const preview = page.getByTestId('broadcast-preview');
    await eventually('the preview for Ada', async () => (await preview.textContent()) === 'Hi Ada Broadcast, our June sale starts today.');
    await checkPage(page, 'broadcast-new-template');
    await page.getByLabel('Preview for').selectOption({ label: 'A contact with no details (every default)' });
    await eventually('the preview with the default', async () => (await preview.textContent()) === 'Hi there, our June sale starts today.');
    await next(page);

    // 3. Audience: a tag and a pasted number, counted live (Cy suppressed on the channel).
    await stepForm(page, 'Audience');
    const numbers = await page.getByLabel('Numbers').elementHandle();
    await page.getByLabel('Tags').fill('june');
    // The first save makes the draft and moves to its address; the form stays the same (what is typed meanwhile is kept).
    await page.waitForURL(/\/app\/broadcasts\/[0-9a-f-]{36}\/edit\?step=audience$/);
    assert.equal(await numbers!.evaluate((el) => el.isConnected), true, 'the same form after the draft got its address');
    await page.getByLabel('Numbers').fill('+4930544444');
    const count = page.getByRole('status').filter({ hasText: 'recipients would be sent to' });
    await eventually('the live count', async () => (await count.textContent())?.includes('3 of 4 recipients') ?? false);
    await page.getByText('Suppressed: 1 skipped').waitFor();
    const id = /\/broadcasts\/([0-9a-f-]{36})\//.exec(page.url())![1]!;
    await checkPage(page, 'broadcast-new-audience');
    await next(page);

    // 4. Schedule: a past time is refused beside its field; a later one is read in the organization's zone.
    await stepForm(page, 'Schedule');
    await page.getByLabel('At a time').check();
    await page.getByText("In the organization's time zone, America/New_York.").waitFor();
    await page.getByLabel('Send at').fill('2020-01-15T09:00');
    await next(page);
    await eventually('the field error', async () => (await page.getByLabel('Send at').getAttribute('aria-invalid')) === 'true');
    await page.getByLabel('Send at').fill('2030-01-15T09:00');
    await next(page);
    await stepForm(page, 'Pacing');
    assert.equal((await api('GET', `/v1/broadcasts/${id}`)).data.send_at, '2030-01-15T14:00:00.000Z', '09:00 in New York');
    await page.getByRole('button', { name: 'Back' }).click();
    await page.getByLabel('As soon as it is scheduled').check();
    await next(page);

    // 5. Pacing, 6. review, schedule.
    await stepForm(page, 'Pacing');
    await page.getByLabel('Messages per minute').fill('600');
    await next(page);
    await stepForm(page, 'Review');
    await page.getByText('tags june, 1 number').waitFor();
    await assertAccessible(page, 'the review step');
    await page.getByRole('button', { name: 'Schedule and send now' }).click();
    await page.waitForURL(new RegExp(`/app/broadcasts/${id}$`));
    const saved = (await api('GET', `/v1/broadcasts/${id}`)).data;
    assert.equal(saved.per_minute, 600);
    assert.equal(saved.send_at, null);
    assert.deepEqual(saved.template.variables, ['{{contact.name|there}}']);
    assert.deepEqual(saved.audience, { tags: ['june'], phones: ['+4930544444'] });

    // Watched live to completion: the badge and the report follow without a reload.
    await page.getByRole('heading', { name: 'June sale', level: 1 }).waitFor();
    await page.locator('.page-header .badge', { hasText: 'Completed' }).waitFor({ timeout: 30_000 });
    await page.getByRole('status').filter({ hasText: '4 recipients: 0 not sent yet.' }).waitFor({ timeout: 30_000 });
    const byStatus = page.getByRole('region', { name: 'Recipients by status' });
    await eventually('the skipped row', async () => (await byStatus.getByRole('row', { name: /^Skipped 1 25%$/ }).count()) === 1);
    await page.getByRole('img', { name: /^Recipients by status: pending 0, deferred 0, skipped 1, / }).waitFor();
    await page.getByRole('region', { name: 'Skipped by reason' }).getByRole('row', { name: 'Suppressed 1' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Pause' }).count(), 0, 'a completed broadcast has no actions');
    await checkPage(page, 'broadcast-report');

    // The recipients, filtered by status (kept in the address).
    const recipients = page.getByRole('region', { name: 'Recipient list' });
    await eventually('four recipients', async () => (await recipients.locator('tbody tr').count()) === 4);
    await page.getByLabel('Recipient status').selectOption('skipped');
    await page.waitForURL(/status=skipped$/);
    await eventually('only the skipped one', async () => (await recipients.locator('tbody tr').count()) === 1);
    await recipients.getByRole('row', { name: /\+4930533333 Skipped Suppressed/ }).waitFor();
    await assertAccessible(page, 'the recipients filtered');

    // In the list, by status.
    await page.getByRole('link', { name: 'Back to broadcasts' }).click();
    await page.getByLabel('Status', { exact: true }).selectOption('completed');
    await page.getByRole('link', { name: 'June sale' }).waitFor();
    await checkPage(page, 'broadcasts');

    // A slow one (one a minute): paused, resumed and stopped from its page.
    const slow = (
      await api('POST', '/v1/broadcasts', {
        name: 'Slow drip',
        channel_id: channelId,
        template: { name: 'june_sale', language: 'en_US', variables: ['{{contact.name|there}}'] },
        audience: { phones: ['+4930555551', '+4930555552'] },
        per_minute: 1,
      })
    ).data;
    await page.goto(`${server.baseUrl}/app/broadcasts/${slow.id}`);
    await page.getByRole('button', { name: 'Schedule', exact: true }).click();
    await page.getByRole('button', { name: 'Pause' }).click({ timeout: 30_000 });
    await page.locator('.page-header .badge', { hasText: 'Paused' }).waitFor();
    assert.equal((await api('GET', `/v1/broadcasts/${slow.id}`)).data.status, 'paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('.page-header .badge', { hasText: 'Sending' }).waitFor();
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByRole('button', { name: 'Stop for good' }).click();
    await page.locator('.page-header .badge', { hasText: 'Stopped' }).waitFor();
    assert.equal((await api('GET', `/v1/broadcasts/${slow.id}`)).data.status, 'stopped');

    const { consoleErrors, pageErrors } = problemsOf(recorded);
    assert.deepEqual(pageErrors, []);
    // The one refusal provoked on purpose (the send time in the past).
    assert.deepEqual(
      consoleErrors.filter((l) => !/status of 400 \(Bad Request\) \[http:\/\/127\.0\.0\.1:\d+\/v1\/broadcasts\/[0-9a-f-]+\]$/.test(l)),
      [],
    );
  } finally {
    await context.close();
  }
});
