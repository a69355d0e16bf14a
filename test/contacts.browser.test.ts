/**
 * The contacts pages in a real browser (Debian's chromium through playwright-core) against a real
 * server: creating and editing a contact (the API's refusal shown next to its field), notes, tags
 * and the list filtered by them, suppressions with an expiry, consent on a sandbox channel, the
 * conversations of a contact who wrote in, the CSV import's per-row report and its progress (on an
 * uplink slowed by Chromium's network emulation), and the list's Load more. Needs the built dashboard (`npm run build:dashboard`).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { checkPage, closeBrowserSuite, openBrowserSuite, logIn, openContext, problemsOf } from './browser.ts';
import { postContact } from './contacts-fixtures.ts';
import { eventually } from './eventually.ts';
import { OWNER_EMAIL, OWNER_PASSWORD, request, type TestServer } from './harness.ts';
import { customerWrites, officialChannel } from './messages-helpers.ts';

let server: TestServer;
let browser: Browser;

// The worker applies what the sandbox delivers (a customer writing in).
before(async () => ({ server, browser } = await openBrowserSuite({ worker: true })));
after(() => closeBrowserSuite({ server, browser }));

/** A signed-in page at /app/contacts; `problems()` leaves out only the refusals the test provokes on purpose. */
async function signedIn() {
  const recorded = await openContext(browser);
  const { page } = recorded;
  await page.goto(`${server.baseUrl}/app/contacts`);
  await logIn(page, OWNER_EMAIL, OWNER_PASSWORD);
  await page.getByRole('heading', { name: 'Contacts', level: 1 }).waitFor();
  const problems = () => {
    const { consoleErrors, pageErrors } = problemsOf(recorded);
    // The browser logs every refused request; the two refused edits are on purpose.
    return {
      pageErrors,
      consoleErrors: consoleErrors.filter(
        (l) => !/status of (400 \(Bad Request\)|409 \(Conflict\)) \[http:\/\/127\.0\.0\.1:\d+\/v1\/contacts\/[0-9a-f-]+\]$/.test(l),
      ),
    };
  };
  return { ...recorded, problems };
}

const api = (method: string, p: string, body?: unknown) => request(server, method, p, { key: server.apiKey, body });

/** The rows of the contact list, by the contact's id. */
function listRows(page: Page) {
  return page.locator('table.contacts-table tbody tr');
}

/** A datetime-local value a day ahead, in the browser's (and this process's) time zone. */
function tomorrowLocal(): string {
  const d = new Date(Date.now() + 24 * 3_600_000);
  d.setSeconds(0, 0);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

test('a contact is created, edited (the API refusal shown at its field), noted, tagged, found by tag and search, suppressed, consented and deleted', async () => {
  const channel = await officialChannel(server, 'Support line');
  await postContact(server, { name: 'Eve Other', email: 'eve@example.com' });
  const { context, page, problems } = await signedIn();
  try {
    // Create.
    await page.getByRole('link', { name: 'New contact' }).click();
    await page.waitForURL(/\/app\/contacts\/new$/);
    await page.getByLabel('Name').fill('Dora Diaz');
    await page.getByLabel('Phone number').fill('+49 30 1234567');
    await page.getByLabel('Email').fill('dora@example.com');
    await page.getByRole('button', { name: 'Create contact' }).click();
    await page.getByRole('heading', { name: 'Dora Diaz', level: 1 }).waitFor();
    const contactId = /\/app\/contacts\/([0-9a-f-]{36})$/.exec(page.url())?.[1];
    assert.ok(contactId, page.url());
    const created = await api('GET', `/v1/contacts/${contactId}`);
    assert.equal(created.body.data.phone_number, '+49301234567');

    // Edit: an impossible number is refused by the API and the message sits next to the phone field.
    await page.getByRole('button', { name: 'Edit' }).click();
    const phone = page.getByLabel('Phone number');
    await phone.fill('12');
    await page.getByLabel('Name').fill('Dora D. Diaz');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await eventually('the phone field marked invalid', async () => (await phone.getAttribute('aria-invalid')) === 'true');
    const describedBy = (await phone.getAttribute('aria-describedby')) ?? '';
    const fieldErrorText = await page.locator('.field-error').first().textContent();
    assert.match(fieldErrorText ?? '', /not a possible phone number/);
    const errorId = await page.locator('.field-error').first().getAttribute('id');
    assert.ok(errorId && describedBy.split(' ').includes(errorId), 'the error is tied to the phone field');
    assert.equal(await page.getByLabel('Email').getAttribute('aria-invalid'), null, 'only the field at fault is marked');
    assert.equal((await api('GET', `/v1/contacts/${contactId}`)).body.data.name, 'Dora Diaz', 'nothing saved');
    // An email another contact holds: refused (409), the message at the email field this time.
    await phone.fill('+49 30 7654321');
    const email = page.getByLabel('Email');
    await email.fill('eve@example.com');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await eventually('the email field marked invalid', async () => (await email.getAttribute('aria-invalid')) === 'true');
    assert.equal(await phone.getAttribute('aria-invalid'), null, 'the phone is accepted now');
    assert.match((await page.locator('.field-error').textContent()) ?? '', /another contact has this value/);
    await email.fill('dora@example.com');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Dora D. Diaz', level: 1 }).waitFor();
    await page.locator('.details dd', { hasText: '+49307654321' }).waitFor();
    const edited = (await api('GET', `/v1/contacts/${contactId}`)).body.data;
    assert.equal(edited.phone_number, '+49307654321');
    assert.equal(edited.email, 'dora@example.com', 'an untouched field is kept');

    // A note, added and deleted.
    await page.getByLabel('New note').fill('Called about the invoice.');
    await page.getByRole('button', { name: 'Add note' }).click();
    const notes = page.getByRole('list', { name: 'Notes' });
    await notes.getByText('Called about the invoice.').waitFor();
    assert.match((await notes.textContent()) ?? '', /by you/);
    assert.equal(await page.getByLabel('New note').inputValue(), '', 'the form is emptied');
    assert.equal((await api('GET', `/v1/contacts/${contactId}/notes`)).body.data.length, 1);
    await notes.getByRole('button', { name: /^Delete note/ }).click();
    await page.getByText('No notes yet.').waitFor();
    assert.equal((await api('GET', `/v1/contacts/${contactId}/notes`)).body.data.length, 0);

    // A tag; the list filtered by it and searched.
    await page.getByLabel('New tag').fill('vip');
    await page.getByRole('button', { name: 'Add tag' }).click();
    const tags = page.getByRole('list', { name: 'Tags of this contact' });
    await tags.getByRole('link', { name: 'vip' }).waitFor();
    assert.deepEqual(
      (await api('GET', `/v1/contacts/${contactId}/tags`)).body.data.map((t: { name: string }) => t.name),
      ['vip'],
    );
    await tags.getByRole('link', { name: 'vip' }).click();
    await page.waitForURL(/\/app\/contacts\?tag=vip$/);
    await page.getByRole('link', { name: 'Dora D. Diaz' }).waitFor();
    await eventually('only the tagged contact listed', async () => (await listRows(page).count()) === 1);
    assert.equal(await page.getByLabel('Tag', { exact: true }).inputValue(), 'vip', 'the filter shows what the URL holds');
    // After a reload the deep link still filters.
    await page.reload();
    await page.getByRole('link', { name: 'Dora D. Diaz' }).waitFor();
    assert.equal(await listRows(page).count(), 1);
    await page.getByLabel('Search', { exact: true }).fill('eve');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/search=eve/);
    await page.getByRole('heading', { name: 'No contacts match' }).waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByRole('link', { name: 'Eve Other' }).waitFor();
    await page.getByLabel('Search', { exact: true }).fill('dora');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/\/app\/contacts\?search=dora$/);
    await eventually(
      'the search result',
      async () => (await listRows(page).count()) === 1 && (await listRows(page).textContent())?.includes('Dora D. Diaz'),
    );
    await page.getByLabel('Search', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('link', { name: 'Eve Other' }).waitFor();
    await checkPage(page, 'contacts-list');

    // Back on the contact: a suppression with an expiry, then lifted.
    await page.getByRole('link', { name: 'Dora D. Diaz' }).click();
    await page.getByRole('heading', { name: 'Dora D. Diaz', level: 1 }).waitFor();
    await page.getByLabel('Suppression channel').selectOption({ label: `Support line (${channel.phone})` });
    await page.getByLabel('Reason').fill('asked for a pause');
    const expires = tomorrowLocal();
    await page.getByLabel('Expires').fill(expires);
    await page.getByRole('button', { name: 'Suppress', exact: true }).click();
    const suppressions = page.getByRole('table', { name: 'Suppressions by channel' });
    await suppressions.getByRole('cell', { name: 'asked for a pause' }).waitFor();
    const [suppression] = (await api('GET', `/v1/contacts/${contactId}/suppressions`)).body.data;
    assert.equal(suppression.channel, channel.id);
    assert.equal(suppression.expires_at, new Date(expires).toISOString());
    assert.equal(suppression.active, true);
    assert.equal(await suppressions.getByRole('cell', { name: 'Until lifted' }).count(), 0, 'the expiry is shown, not "until lifted"');

    // Consent for the channel.
    await page.getByLabel('Consent channel').selectOption({ label: `Support line (${channel.phone})` });
    await page.getByLabel('Consent', { exact: true }).selectOption('revoked');
    await page.getByLabel('Source').fill('replied STOP');
    await page.getByRole('button', { name: 'Save consent' }).click();
    const consents = page.getByRole('table', { name: 'Consents by channel' });
    await consents.getByRole('cell', { name: 'replied STOP' }).waitFor();
    assert.match((await consents.locator('tbody tr').textContent()) ?? '', /Support line.*revoked/);
    const [consent] = (await api('GET', `/v1/contacts/${contactId}/consents`)).body.data;
    assert.deepEqual([consent.channel, consent.state, consent.source], [channel.id, 'revoked', 'replied STOP']);
    await checkPage(page, 'contact');

    await page.getByRole('button', { name: 'Lift suppression on Support line' }).click();
    await page.getByText('Not suppressed anywhere.').waitFor();
    assert.deepEqual((await api('GET', `/v1/contacts/${contactId}/suppressions`)).body.data, []);

    // The tag removed.
    await tags.getByRole('button', { name: 'Remove tag vip' }).click();
    await page.getByText('No tags.').waitFor();
    assert.deepEqual((await api('GET', `/v1/contacts/${contactId}/tags`)).body.data, []);

    // Deleted.
    await page.getByRole('button', { name: 'Delete…' }).click();
    await page.getByRole('button', { name: 'Delete contact' }).click();
    await page.waitForURL(/\/app\/contacts$/);
    await page.getByRole('link', { name: 'Eve Other' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Dora D. Diaz' }).count(), 0);
    assert.equal((await api('GET', `/v1/contacts/${contactId}`)).status, 404);

    assert.deepEqual(problems(), { consoleErrors: [], pageErrors: [] });
  } finally {
    await context.close();
  }
});

test('a customer who wrote in has the conversation on their contact page, linked to the inbox, and the page follows live events; the search finds both', async () => {
  const channel = await officialChannel(server, 'Sales line');
  await customerWrites(server, channel.id, '4917612345678', 'text', { body: 'Is my order on its way?' });
  const contact = (await api('GET', `/v1/contacts/phone/${encodeURIComponent('+4917612345678')}`)).body.data;
  assert.ok(contact?.id, 'the inbound message made a contact');
  const [conversation] = (await api('GET', `/v1/conversations?contact_id=${contact.id}`)).body.data;
  const { context, page, problems } = await signedIn();
  try {
    await page.goto(`${server.baseUrl}/app/contacts/${contact.id}`);
    const list = page.getByRole('list', { name: 'Conversations' });
    const link = list.getByRole('link', { name: /Sales line.*Is my order on its way\?/ });
    await link.waitFor();
    assert.equal(await link.getAttribute('href'), `/app/inbox/${conversation.id}`);
    // The ids the person is known by include the chat app's.
    await page.getByRole('list', { name: 'Identities' }).getByText('4917612345678', { exact: true }).waitFor();

    // Live, without a reload: the contact renamed elsewhere (contact.updated), and the customer writing again (message.new).
    const renamed = await api('PATCH', `/v1/contacts/${contact.id}`, { name: 'Gustav Gruber' });
    assert.equal(renamed.status, 200, renamed.text);
    await page.getByRole('heading', { name: 'Gustav Gruber', level: 1 }).waitFor();
    await customerWrites(server, channel.id, '4917612345678', 'text', { body: 'Never mind, it arrived.' });
    await list.getByRole('link', { name: /Never mind, it arrived\./ }).waitFor();

    // The sidebar's search box: the words of a message lead to its conversation, a name to the contact.
    const box = page.getByRole('search', { name: 'Quick search' }).getByRole('searchbox');
    await box.fill('arriv');
    await box.press('Enter');
    await page.getByRole('heading', { name: 'Search', level: 1 }).waitFor();
    const results = page.getByRole('list', { name: 'Search results' });
    const message = results.getByRole('link', { name: 'Never mind, it arrived.' });
    await message.waitFor();
    assert.equal(await message.getAttribute('href'), `/app/inbox/${conversation.id}`);
    assert.equal(new URL(page.url()).searchParams.get('q'), 'arriv', 'the words are in the address');
    await checkPage(page, 'search');
    const form = page.locator('main').getByRole('search', { name: 'Search everything' });
    await form.getByLabel('Words').fill('gustav gru');
    await form.getByLabel('Kind').selectOption('contact');
    await form.getByRole('button', { name: 'Search' }).click();
    const person = results.getByRole('link', { name: 'Gustav Gruber' });
    await person.waitFor();
    assert.equal(await person.getAttribute('href'), `/app/contacts/${contact.id}`);
    assert.equal(await results.getByRole('listitem').count(), 1, 'only contacts');
    assert.deepEqual(problems(), { consoleErrors: [], pageErrors: [] });
  } finally {
    await context.close();
  }
});

test('a CSV import shows its progress and the rows it refused; the list pages with Load more', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'parley-contacts-import-'));
  const file = path.join(dir, 'contacts.csv');
  writeFileSync(
    file,
    [
      'phone_number,name,email,custom_fields.plan',
      '+49 30 5550001,Imported One,one@example.com,pro',
      '12,Bad Number,bad-number@example.com,pro',
      '+49 30 5550003,Imported Three,three@example.com,basic',
      '+49 30 5550004,Bad Email,not-an-email,basic',
      '+49 30 5550005,Imported Five,,',
    ].join('\n'),
  );
  const { context, page, problems } = await signedIn();
  try {
    await page.getByRole('link', { name: 'Import CSV' }).click();
    await page.waitForURL(/\/app\/contacts\/import$/);
    await page.getByLabel('CSV file').setInputFiles(file);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const progress = page.getByRole('progressbar', { name: 'Import progress' });
    await progress.waitFor();
    await page.getByRole('status').filter({ hasText: 'Import finished' }).waitFor();
    assert.equal(await progress.getAttribute('value'), '100');
    const counts = page.locator('.import-counts');
    assert.match((await counts.textContent()) ?? '', /Rows read5Created3Updated0Unchanged0Failed2/);
    const report = page.getByRole('table', { name: 'Rows not imported and why' });
    const rows = await report.locator('tbody tr').allTextContents();
    assert.equal(rows.length, 2, rows.join(' | '));
    assert.match(rows[0]!, /^23phone_numbernot a possible phone number/);
    assert.match(rows[1]!, /^45emailnot an email address/);
    const imported = (await api('GET', `/v1/contacts/phone/${encodeURIComponent('+49305550003')}`)).body.data;
    assert.equal(imported.name, 'Imported Three');
    assert.deepEqual(imported.custom_fields, { plan: 'basic' });
    await checkPage(page, 'contacts-import');

    // More contacts than a page (50): the rest come with Load more.
    const seeded = [];
    for (let i = 0; i < 56; i++)
      seeded.push(postContact(server, { name: `Paged ${String(i).padStart(2, '0')}`, email: `paged${i}@example.com` }));
    await Promise.all(seeded);
    const total = await countContacts();
    assert.ok(total > 50);
    await page.getByRole('link', { name: 'Back to contacts' }).click();
    await page.waitForURL(/\/app\/contacts$/);
    await eventually('the first page', async () => (await listRows(page).count()) === 50);
    await page.getByRole('button', { name: 'Load more' }).click();
    await eventually('every contact listed', async () => (await listRows(page).count()) === total);
    assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0, 'no more pages');
    const ids = await listRows(page).evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-contact-id')));
    assert.equal(new Set(ids).size, total, 'no contact listed twice');
    assert.deepEqual(problems(), { consoleErrors: [], pageErrors: [] });
  } finally {
    await context.close();
  }
});

/** Every contact of the organization, counted through the API's pages. */
async function countContacts(): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const res = await api('GET', `/v1/contacts?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    count += res.body.data.length;
    cursor = res.body.meta.next_cursor;
  } while (cursor);
  return count;
}

test('a large import shows its upload progressing before it finishes', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'parley-contacts-import-'));
  const file = path.join(dir, 'large.csv');
  // The same contact on every row (created, then updated by each note), so the file is large but the list is not.
  const rows = Array.from({ length: 2500 }, (_, i) => `Bulk Person,bulk@example.com,note ${String(i).padStart(40, '.')}`);
  writeFileSync(file, ['name,email,custom_fields.note', ...rows].join('\n'));
  const { context, page, problems } = await signedIn();
  try {
    await page.goto(`${server.baseUrl}/app/contacts/import`);
    await page.getByLabel('CSV file').setInputFiles(file);
    // A slow uplink (Chromium's own network emulation), so the upload takes seconds.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 60 * 1024 });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const status = page.getByRole('status').filter({ hasText: /Uploading…|writing the rows|Import finished/ });
    const seen = new Set<string>();
    await eventually(
      'the import finished',
      async () => {
        const text = (await status.textContent().catch(() => null)) ?? '';
        const percent = /Uploading… (\d+)%/.exec(text)?.[1];
        if (percent !== undefined && Number(percent) > 0 && Number(percent) < 100) seen.add('part');
        return text.includes('Import finished');
      },
      60_000,
    );
    assert.ok(seen.has('part'), 'the upload was seen part-way');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    assert.match((await page.locator('.import-counts').textContent()) ?? '', /Rows read2,500Created1Updated2,499Unchanged0Failed0/);
    await page.getByRole('heading', { name: 'Every row was imported' }).waitFor();
    assert.deepEqual(problems(), { consoleErrors: [], pageErrors: [] });
  } finally {
    await context.close();
  }
});
