/**
 * The settings area and the account and OAuth pages in a real browser (Debian's chromium through
 * playwright-core) against a real server: inviting a member (the one-time link shown once and copied)
 * who signs up through it in a second browser, then changing their role, a password-reset link for
 * them and removing them; more members than a page showing a Load more that brings the rest; renaming the organization (the API's refusal shown next to the field
 * first); creating a second organization and switching between the two; the account (name, a wrong
 * current password told inline, a new password); and a device approval end to end: a separate process
 * starts the device flow and polls the token endpoint while the browser approves, the process's token
 * works on /v1, the app shows under Authorized apps and revoking it ends the token. Automations: a rule
 * made in the editor runs on a customer message and its run log shows the run.
 * Needs the built dashboard (`npm run build:dashboard`).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { inArray } from 'drizzle-orm';
import type { Browser, Locator, Page } from 'playwright-core';
import { conversations, memberships, users } from '../src/db/schema.ts';
import { uuidv7 } from '../src/lib/ids.ts';
import { checkPage, closeBrowserSuite, openBrowserSuite, logIn, openContext, problemsOf } from './browser.ts';
import { eventually } from './eventually.ts';
import { createOtherOrganization, OWNER_EMAIL, OWNER_PASSWORD, request, type TestServer } from './harness.ts';
import { authorizeQuery, createOAuthClient } from './oauth-client-fixture.ts';

let server: TestServer;
let browser: Browser;

// The device's process polls every second instead of every five.
before(async () => ({ server, browser } = await openBrowserSuite({ env: { OAUTH_DEVICE_POLL_INTERVAL: '1s' } })));
after(() => closeBrowserSuite({ server, browser }));

/**
 * Console errors of a normal visit: none but the refusals the test provoked on purpose (the browser
 * logs every 4xx answer), each named by status and path. Until branch `sse` is merged, its stream's
 * 404 is expected too.
 */
function problems(recorded: Parameters<typeof problemsOf>[0], provoked: Array<[status: number, path: string]> = []) {
  const { consoleErrors, pageErrors } = problemsOf(recorded);
  const expected = (line: string) =>
    /404 \(Not Found\) \[[^\]]*\/v1\/events\/stream\?/.test(line) ||
    provoked.some(([status, path]) => line.includes(`status of ${status} `) && line.includes(`${path}]`));
  return { pageErrors, consoleErrors: consoleErrors.filter((line) => !expected(line)) };
}

/** A fresh browser profile; a password hash or a page's first load may take a while on a loaded machine. */
async function freshBrowser() {
  const recorded = await openContext(browser);
  recorded.page.setDefaultTimeout(20_000);
  return recorded;
}

/** A browser signed in as the owner, on a page of the app. */
async function ownerBrowser(at: string) {
  const recorded = await freshBrowser();
  await recorded.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
  await recorded.page.goto(`${server.baseUrl}/app${at}`);
  await recorded.page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await logIn(recorded.page, OWNER_EMAIL, OWNER_PASSWORD);
  await recorded.page.getByRole('navigation', { name: 'Main' }).waitFor();
  return recorded;
}

async function members(): Promise<Array<{ email: string; role: string; user_id: string }>> {
  const res = await request(server, 'GET', `/v1/organizations/${server.organizationId}/members`, { key: server.apiKey });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

/** The field's own message (tied to it by aria-describedby) once the API refused its value; `scope` is the page or one form of it. */
async function fieldError(scope: Page | Locator, label: string): Promise<string> {
  const field = scope.getByLabel(label, { exact: true });
  await field.and(scope.locator('[aria-invalid="true"]')).waitFor();
  const ids = ((await field.getAttribute('aria-describedby')) ?? '').split(' ').filter((id) => id.endsWith('-err'));
  assert.equal(ids.length, 1, `${label} names its error`);
  return (await scope.locator(`[id="${ids[0]}"]`).textContent()) ?? '';
}

test('members: an invitation link shown once and copied, accepted in another browser; the role changed, a password-reset link made, the member removed; an invitation revoked', async () => {
  const owner = await ownerBrowser('/settings/members');
  const { page } = owner;
  try {
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    await page.locator('tbody tr', { hasText: OWNER_EMAIL }).waitFor();
    await page.getByText('No pending invitations.').waitFor();
    await checkPage(page, 'settings-members');

    const invite = page.getByRole('form', { name: 'Invite someone' });
    await invite.getByLabel('Email').fill('not an email');
    await invite.getByRole('button', { name: 'Invite' }).click();
    assert.match(await fieldError(page, 'Email'), /email/i);

    await invite.getByLabel('Email').fill('ivy@example.com');
    await invite.getByLabel('Role').selectOption('member');
    await invite.getByRole('button', { name: 'Invite' }).click();
    const linkBox = page.getByRole('region', { name: 'Invitation link for ivy@example.com' });
    await linkBox.waitFor();
    const url = await linkBox.getByLabel('One-time link').inputValue();
    assert.ok(url.startsWith(`${server.config.appUrl}/invitations#token=pli_`), url);
    server.registerSensitive('an invitation link', url);
    await linkBox.getByRole('button', { name: 'Copy link' }).click();
    await linkBox.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), url, 'the link is on the clipboard');
    const pending = page.locator('tbody tr', { hasText: 'ivy@example.com' });
    await pending.waitFor();
    await checkPage(page, 'settings-invitation-link');
    await linkBox.getByRole('button', { name: 'Done' }).click();
    await linkBox.waitFor({ state: 'detached' });
    // Shown once: after a reload only the pending row is left, without the link.
    await page.reload();
    await pending.waitFor();
    assert.equal(await page.getByLabel('One-time link').count(), 0, 'the link is not shown again');

    // The invitee signs up through the link in a browser of their own and lands in the organization.
    const invitee = await freshBrowser();
    try {
      await invitee.page.goto(url);
      await invitee.page.getByRole('heading', { name: `Join ${server.config.bootstrap.organizationName}` }).waitFor();
      await invitee.page.getByLabel('Your name').fill('Ivy Invitee');
      await invitee.page.getByLabel('Password').fill('ivy has a long password');
      await invitee.page.getByRole('button', { name: 'Create account and join' }).click();
      await invitee.page.getByRole('link', { name: 'Open Parley' }).click();
      await invitee.page.getByRole('navigation', { name: 'Main' }).waitFor();
      await invitee.page.locator('aside.sidebar').getByText('Your role: member').waitFor();
      // A member sees who is in the organization, but neither invites, changes roles nor renames.
      await invitee.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members' }).click();
      await invitee.page.locator('tbody tr', { hasText: OWNER_EMAIL }).waitFor();
      assert.equal(await invitee.page.getByRole('form', { name: 'Invite someone' }).count(), 0);
      assert.equal(await invitee.page.getByRole('combobox', { name: /^Role of/ }).count(), 0);
      assert.equal(await invitee.page.getByRole('button', { name: /^Remove/ }).count(), 0);
      await invitee.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
      await invitee.page.getByText('Only owners and admins rename the organization.').waitFor();
      assert.equal(await invitee.page.getByLabel('Organization name').count(), 0);
      assert.deepEqual(problems(invitee), { pageErrors: [], consoleErrors: [] });
    } finally {
      await invitee.context.close();
    }

    // The owner sees the new member, makes them an admin, makes a reset link for them, removes them.
    await page.reload();
    const row = page.locator('tbody tr', { hasText: 'ivy@example.com' }).filter({ hasText: 'Ivy Invitee' });
    await row.waitFor();
    // The accepted invitation is no longer pending.
    await page.getByText('No pending invitations.').waitFor();
    await row.getByRole('combobox', { name: 'Role of Ivy Invitee' }).selectOption('admin');
    await eventually('Ivy is an admin', async () => (await members()).find((m) => m.email === 'ivy@example.com')?.role === 'admin');

    await row.getByRole('button', { name: 'Password-reset link for Ivy Invitee' }).click();
    const resetBox = page.getByRole('region', { name: 'Password-reset link for ivy@example.com' });
    const resetUrl = await resetBox.getByLabel('One-time link').inputValue();
    server.registerSensitive('a password-reset link', resetUrl);
    assert.match(resetUrl, /\/reset-password#token=plp_/);
    await resetBox.getByRole('button', { name: 'Done' }).click();

    await row.getByRole('button', { name: 'Remove Ivy Invitee' }).click();
    await row.getByRole('button', { name: 'Remove member' }).click();
    await row.waitFor({ state: 'detached' });
    assert.deepEqual(
      (await members()).map((m) => m.email),
      [OWNER_EMAIL],
    );

    // An invitation revoked: its row goes, and its link no longer works.
    await invite.getByLabel('Email').fill('later@example.com');
    await invite.getByRole('button', { name: 'Invite' }).click();
    const laterUrl = await page
      .getByRole('region', { name: 'Invitation link for later@example.com' })
      .getByLabel('One-time link')
      .inputValue();
    server.registerSensitive('an invitation link', laterUrl);
    const later = page.locator('tbody tr', { hasText: 'later@example.com' });
    await later.getByRole('button', { name: 'Revoke the invitation for later@example.com' }).click();
    await later.getByRole('button', { name: 'Revoke invitation' }).click();
    await later.waitFor({ state: 'detached' });
    const lookup = await request(server, 'POST', '/v1/invitations/lookup', {
      body: { token: new URL(laterUrl).hash.replace('#token=', '') },
    });
    assert.equal(lookup.status, 410);

    await page.getByRole('link', { name: 'Sessions' }).click();
    await page.locator('tbody tr[aria-current="true"]').waitFor();
    await checkPage(page, 'settings-sessions');
    assert.deepEqual(problems(owner, [[400, `/v1/organizations/${server.organizationId}/invitations`]]), {
      pageErrors: [],
      consoleErrors: [],
    });
  } finally {
    await owner.context.close();
  }
});

test('members page: more members than a page (50) show the first page and a Load more that brings the rest', async () => {
  // 51 members besides the owner, joined one after another: the last one is on the second page.
  const { db } = server.container.database;
  const seeded: string[] = [];
  const start = Date.now();
  for (let i = 1; i <= 51; i++) {
    const id = uuidv7();
    const at = new Date(start + i * 1000);
    const n = String(i).padStart(2, '0');
    await db
      .insert(users)
      .values({ id, email: `paged-${n}@example.com`, name: `Paged Member ${n}`, passwordHash: 'not a hash', createdAt: at, updatedAt: at });
    await db.insert(memberships).values({ organizationId: server.organizationId, userId: id, role: 'member', createdAt: at });
    seeded.push(id);
  }
  const owner = await ownerBrowser('/settings/members');
  try {
    const { page } = owner;
    const section = page.locator('section[aria-labelledby="members-title"]');
    const table = section.locator('table');
    await table.getByText('Paged Member 49', { exact: true }).waitFor();
    assert.equal(await table.locator('tbody tr').count(), 50, 'one page of 50: the owner and 49 of the seeded');
    assert.equal(await table.getByText('Paged Member 50', { exact: true }).count(), 0);
    await section.getByRole('button', { name: 'Load more' }).click();
    await table.getByText('Paged Member 51', { exact: true }).waitFor();
    assert.equal(await table.locator('tbody tr').count(), 52, 'every member once');
    await section.getByRole('button', { name: 'Load more' }).waitFor({ state: 'detached' });
    assert.deepEqual(problems(owner), { pageErrors: [], consoleErrors: [] });
  } finally {
    await owner.context.close();
    await db.delete(users).where(inArray(users.id, seeded));
  }
});

test('the organization: renamed after a refusal shown at the field; a second organization created, then the switcher moves between the two', async () => {
  const owner = await ownerBrowser('/settings/organization');
  const { page } = owner;
  const sidebar = page.locator('aside.sidebar');
  try {
    const name = page.getByLabel('Organization name');
    await name.waitFor();
    await checkPage(page, 'settings-organization');
    await name.fill('   ');
    await page.getByRole('button', { name: 'Save name' }).click();
    assert.match(await fieldError(page, 'Organization name'), /character|least|empty|required/i);
    await name.fill('x'.repeat(201));
    await page.getByRole('button', { name: 'Save name' }).click();
    assert.match(await fieldError(page, 'Organization name'), /200/);
    await name.fill('Renamed Co');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    assert.equal(await name.getAttribute('aria-invalid'), null, 'the error is gone');
    await sidebar.getByText('Renamed Co', { exact: true }).waitFor();
    const renamed = await request(server, 'GET', `/v1/organizations/${server.organizationId}`, { key: server.apiKey });
    assert.equal(renamed.body.data.name, 'Renamed Co');

    await page.getByRole('link', { name: 'New organization' }).click();
    await page.getByRole('heading', { name: 'New organization' }).waitFor();
    await checkPage(page, 'settings-new-organization');
    await page.getByLabel('Organization name').fill('Second Co');
    await page.getByRole('button', { name: 'Create organization' }).click();
    // Created and switched to: the organization page now shows it, and the switcher says so.
    await page.waitForURL(`${server.baseUrl}/app/settings/organization`);
    const switcher = page.getByRole('combobox', { name: /^Organization/ });
    await switcher.waitFor();
    assert.equal(await switcher.locator('option:checked').textContent(), 'Second Co');
    await page.locator('dl').getByText('Second Co').waitFor();
    await page.locator('dl').getByText('owner').waitFor();

    await switcher.selectOption({ label: 'Renamed Co' });
    await page.locator('dl').getByText('Renamed Co').waitFor();
    assert.equal(await switcher.inputValue(), server.organizationId);
    await switcher.selectOption({ label: 'Second Co' });
    await page.locator('dl').getByText('Second Co').waitFor();
    // The choice is remembered across a reload.
    await page.reload();
    await page.locator('dl').getByText('Second Co').waitFor();
    // Its only owner cannot leave it: the API's refusal is shown, and nothing changes.
    const secondId = await switcher.inputValue();
    await page.getByRole('button', { name: 'Leave the organization' }).click();
    await page.getByRole('button', { name: 'Leave now' }).click();
    await page.getByRole('alert').filter({ hasText: /owner/ }).waitFor();
    assert.equal(await switcher.locator('option').count(), 2, 'still in both organizations');
    await switcher.selectOption({ label: 'Renamed Co' });
    await page.locator('dl').getByText('Renamed Co').waitFor();
    assert.deepEqual(
      problems(owner, [
        [400, `/v1/organizations/${server.organizationId}`],
        [409, `/v1/organizations/${secondId}/leave`],
      ]),
      { pageErrors: [], consoleErrors: [] },
    );
  } finally {
    await owner.context.close();
  }
});

/** Runs the device's process: the first line is what the person needs, the second the outcome. */
function startDevice(clientId: string, scope: string) {
  const child = spawn(
    path.resolve('node_modules/.bin/node'),
    [path.resolve(import.meta.dirname, 'device-flow-client.ts'), server.baseUrl, clientId, scope],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const next = async () => {
    const line = await lines.next();
    assert.ok(!line.done, 'the device process printed a line');
    return JSON.parse(line.value) as Record<string, string>;
  };
  return { child, next, exited };
}

test('a device approved end to end: a separate process polls the token endpoint while the browser approves; its token works on /v1, shows under Authorized apps, and revoking it ends it', {
  timeout: 90_000,
}, async () => {
  const client = await createOAuthClient(server, { name: 'Terminal CLI', scopes: ['channels:read', 'messages:read'] });
  const device = startDevice(client.clientId, 'channels:read');
  const recorded = await freshBrowser();
  const { page } = recorded;
  try {
    const shown = await device.next();
    assert.match(shown.verification_uri!, /\/app\/device$/);
    assert.equal(shown.verification_uri_complete, `${shown.verification_uri}?user_code=${encodeURIComponent(shown.user_code!)}`);

    await page.goto(shown.verification_uri_complete!);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await checkPage(page, 'login');
    await logIn(page, OWNER_EMAIL, OWNER_PASSWORD);
    await page.getByRole('heading', { name: 'Connect a device' }).waitFor();
    assert.equal(await page.getByRole('textbox', { name: 'Code' }).inputValue(), shown.user_code);
    await checkPage(page, 'oauth-device');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Connect Terminal CLI' }).waitFor();
    // The organization picker: a fieldset with a legend, one checkbox per organization of the person.
    const picker = page.getByRole('group', { name: 'Organizations it may reach' });
    const boxes = picker.getByRole('checkbox');
    assert.equal(await boxes.count(), 2, 'both organizations of the owner');
    await checkPage(page, 'oauth-device-consent');
    await picker.getByRole('checkbox', { name: /Renamed Co/ }).check();
    await picker.getByRole('checkbox', { name: /Second Co/ }).uncheck();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('heading', { name: 'Device connected' }).waitFor();

    // The process was polling all along; it now has its token.
    const outcome = await device.next();
    assert.equal(await device.exited, 0);
    const token = outcome.access_token;
    assert.match(token ?? '', /^pla_/);
    server.registerSensitive('an access token', token);
    const reached = await request(server, 'GET', '/v1/organizations', { bearer: token });
    assert.equal(reached.status, 200, reached.text);
    assert.deepEqual(
      reached.body.data.map((o: { name: string }) => o.name),
      ['Renamed Co'],
    );
    const channels = await request(server, 'GET', '/v1/channels', {
      bearer: token,
      headers: { 'x-organization-id': server.organizationId },
    });
    assert.equal(channels.status, 200, channels.text);

    // Authorized apps: the approval is listed; revoking it ends the token.
    await page.goto(`${server.baseUrl}/app/settings/authorized-apps`);
    const row = page.locator('tbody tr', { hasText: 'Terminal CLI' });
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /channels:read/);
    assert.match((await row.textContent()) ?? '', /Renamed Co/);
    await checkPage(page, 'settings-authorized-apps');
    await row.getByRole('button', { name: 'Revoke Terminal CLI' }).click();
    await row.getByRole('button', { name: 'Revoke access' }).click();
    await page.getByRole('heading', { name: 'No authorized apps' }).waitFor();
    assert.equal((await request(server, 'GET', '/v1/organizations', { bearer: token })).status, 401);

    // The consent page of the code flow, in the same look, with the same picker.
    const codeClient = await createOAuthClient(server, { name: 'Web Integration', redirectUris: ['http://127.0.0.1:9/callback'] });
    await page.goto(`${server.baseUrl}/v1/oauth/authorize?${authorizeQuery(codeClient)}`);
    await page.getByRole('heading', { name: 'Authorize Web Integration' }).waitFor();
    await page.getByRole('group', { name: 'Organizations it may reach' }).waitFor();
    await checkPage(page, 'oauth-consent');
    assert.deepEqual(problems(recorded), { pageErrors: [], consoleErrors: [] });
  } finally {
    device.child.kill();
    await recorded.context.close();
  }
});

test('the account: a new name, a wrong current password told at its field, a new password that signs in, a new email that asks for the password', async () => {
  const owner = await ownerBrowser('/settings/account');
  const { page } = owner;
  try {
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await checkPage(page, 'settings-account');
    const profile = page.getByRole('form', { name: 'Profile' });
    await profile.getByLabel('Name').fill('Olivia Owner');
    await profile.getByRole('button', { name: 'Save profile' }).click();
    await profile.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await page.locator('aside.sidebar').getByText('Olivia Owner').waitFor();

    const password = page.getByRole('form', { name: 'Password' });
    await password.getByLabel('Current password').fill('not the password at all');
    await password.getByLabel('New password').fill('a brand new passphrase');
    await password.getByRole('button', { name: 'Change password' }).click();
    assert.match(await fieldError(password, 'Current password'), /not your current password/);
    // Too short: the new password's own field says so.
    await password.getByLabel('Current password').fill(OWNER_PASSWORD);
    await password.getByLabel('New password').fill('short');
    await password.getByRole('button', { name: 'Change password' }).click();
    assert.match(await fieldError(page, 'New password'), /8/);

    await password.getByLabel('New password').fill('a brand new passphrase');
    await password.getByRole('button', { name: 'Change password' }).click();
    await password.getByRole('status').filter({ hasText: 'Your password is changed' }).waitFor();
    const login = await request(server, 'POST', '/v1/auth/login', { body: { email: OWNER_EMAIL, password: 'a brand new passphrase' } });
    assert.equal(login.status, 200, login.text);

    // A new email asks for the current password, in a field of its own that says when it is missing.
    await profile.getByLabel('Email').fill('olivia@example.com');
    await profile.getByRole('button', { name: 'Save profile' }).click();
    assert.match(await fieldError(profile, 'Current password'), /required to change the email/);
    await profile.getByLabel('Current password').fill('a brand new passphrase');
    await profile.getByRole('button', { name: 'Save profile' }).click();
    await page.locator('aside.sidebar').getByText('olivia@example.com').waitFor();
    await profile.getByLabel('Current password').waitFor({ state: 'detached' });
    const again = await request(server, 'POST', '/v1/auth/login', {
      body: { email: 'olivia@example.com', password: 'a brand new passphrase' },
    });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(
      problems(owner, [
        [403, '/v1/auth/password'],
        [400, '/v1/auth/password'],
        [400, '/v1/auth/account'],
      ]),
      { pageErrors: [], consoleErrors: [] },
    );
  } finally {
    await owner.context.close();
  }
});

describe('automations', () => {
  test('a rule made in the editor (trigger, a condition, an action) runs on a customer message, and its run log shows it; axe finds nothing', async () => {
    // The worker role (off for the rest of this file) takes the customer's message and runs the rule. An
    // organization of its own: the tests above changed the owner's password.
    await server.container.queue.work(server.container.jobHandlers());
    const other = await createOtherOrganization(server, 'automations');
    const made = await request(server, 'POST', '/v1/channels', {
      key: other.apiKey,
      body: { platform: 'chatapp_official', name: 'Automations page' },
    });
    assert.equal(made.status, 201, made.text);
    const owner = await freshBrowser();
    // The sign-in hashes a password and this case starts the worker: a loaded machine takes longer.
    owner.page.setDefaultTimeout(60_000);
    await owner.page.goto(`${server.baseUrl}/app/settings/automations`);
    await owner.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await logIn(owner.page, other.email, other.password);
    try {
      const { page } = owner;
      await page.getByRole('heading', { name: 'Automations' }).waitFor();
      await page.getByText('No automation rules').waitFor();
      await page.getByRole('button', { name: 'New rule' }).click();
      const editor = page.locator('section[aria-labelledby="rule-editor-title"]');
      await editor.getByLabel('Name', { exact: true }).fill('Refund desk');
      await editor.getByLabel('Trigger', { exact: true }).selectOption('message_received');
      await editor.getByRole('button', { name: 'Add condition' }).click();
      await editor.getByLabel('Text or pattern', { exact: true }).fill('refund');
      await editor.getByLabel('Text', { exact: true }).fill('Our billing team will answer.');
      await editor.getByRole('button', { name: 'Save rule' }).click();
      const row = page.getByRole('row').filter({ hasText: 'Refund desk' });
      await row.getByText('send text').waitFor();
      await editor.waitFor({ state: 'detached' });

      const inbound = await request(server, 'POST', '/sandbox/inbound', {
        key: other.apiKey,
        body: { channel_id: made.body.data.id, from: '4915140000001', type: 'text', content: { body: 'I want a refund' } },
      });
      assert.ok(inbound.status < 300, inbound.text);
      // The log is read when opened: open it once the worker has run the rule.
      const rules = await request(server, 'GET', '/v1/automations', { key: other.apiKey });
      const ruleId = (rules.body.data as Array<{ id: string; name: string }>).find((r) => r.name === 'Refund desk')!.id;
      await eventually(
        'the run',
        async () => {
          const runs = await request(server, 'GET', `/v1/automations/${ruleId}/runs`, { key: other.apiKey });
          return (runs.body.data as Array<{ actions: Array<{ status: string }> }>)[0]?.actions.every((a) => a.status !== 'pending')
            ? true
            : undefined;
        },
        60_000,
      );
      await page.getByRole('button', { name: 'Runs of Refund desk' }).click();
      const log = page.locator('section[aria-labelledby="run-log-title"]');
      await log.getByText('send text: done', { exact: false }).waitFor({ timeout: 30_000 });
      await log.getByText('Matched', { exact: true }).waitFor();
      await page.getByRole('button', { name: 'Edit Refund desk' }).click();
      await editor.getByLabel('Text or pattern', { exact: true }).and(page.locator('[value="refund"]')).waitFor();
      await checkPage(page, 'automations');
      assert.deepEqual(problems(owner), { pageErrors: [], consoleErrors: [] });
    } finally {
      await owner.context.close();
    }
  });
});

describe('bots', () => {
  test('a bot added with its secret shown once; a conversation it owns shows it, and Take over gives it to the team', async () => {
    // The account test before changes the owner's email and password: whichever sign in works.
    const first = await request(server, 'POST', '/v1/auth/login', { body: { email: OWNER_EMAIL, password: OWNER_PASSWORD } });
    const [email, password] = first.status === 200 ? [OWNER_EMAIL, OWNER_PASSWORD] : ['olivia@example.com', 'a brand new passphrase'];
    const owner = await freshBrowser();
    const { page } = owner;
    try {
      await page.goto(`${server.baseUrl}/app/settings/bots`);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await logIn(page, email, password);
      await page.getByRole('heading', { name: 'Bots', level: 1 }).waitFor();
      await page.getByText('No bots yet').waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Order assistant');
      await page.getByLabel('URL', { exact: true }).fill('http://127.0.0.1:9/bot');
      await page.getByLabel('Starts on').selectOption('contains');
      // A keyword trigger with no keyword: the API's refusal shown at the field.
      await page.getByRole('button', { name: 'Add bot' }).click();
      assert.match(await fieldError(page, 'Keywords'), /keyword/i);
      await page.getByLabel('Keywords').fill('order, delivery');
      await page.getByRole('button', { name: 'Add bot' }).click();
      const secret = page.getByLabel('Signing secret');
      await secret.waitFor();
      assert.match(await secret.inputValue(), /^whsec_/);
      await page.getByRole('button', { name: 'Disable Order assistant' }).waitFor();
      await page.getByText('contains: order, delivery').waitFor();
      await checkPage(page, 'settings-bots');
      await page.getByRole('button', { name: 'Done' }).click();
      await secret.waitFor({ state: 'detached' });
      const listed = await request(server, 'GET', '/v1/bots', { key: server.apiKey });
      const bot = (listed.body.data as Array<{ id: string; name: string }>).find((b) => b.name === 'Order assistant');
      assert.ok(bot, listed.text);

      // A conversation of the organization, handed to the bot through the API.
      const channel = await request(server, 'POST', '/v1/channels', {
        key: server.apiKey,
        body: { platform: 'chatapp_official', name: 'Bots' },
      });
      assert.equal(channel.status, 201, channel.text);
      const conversationId = uuidv7();
      await server.container.database.db.insert(conversations).values({
        id: conversationId,
        organizationId: server.organizationId,
        channelId: channel.body.data.id,
        peerPhone: '4915112399001',
      });
      const handed = await request(server, 'POST', `/v1/conversations/${conversationId}/handoff`, {
        key: server.apiKey,
        body: { to: 'bot', bot_id: bot.id },
      });
      assert.equal(handed.status, 200, handed.text);
      await page.goto(`${server.baseUrl}/app/inbox/${conversationId}`);
      const note = page.getByRole('status').filter({ hasText: 'The bot Order assistant is answering this conversation' });
      await note.waitFor();
      await checkPage(page, 'inbox-bot-owner');
      await page.getByRole('button', { name: 'Take over' }).click();
      await note.waitFor({ state: 'detached' });
      const owned = await request(server, 'GET', `/v1/conversations/${conversationId}/owner`, { key: server.apiKey });
      assert.equal(owned.body.data.owner, 'human', owned.text);
      assert.deepEqual(problems(owner, [[400, '/v1/bots']]), { pageErrors: [], consoleErrors: [] });
    } finally {
      await owner.context.close();
    }
  });
});
