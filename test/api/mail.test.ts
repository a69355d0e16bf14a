/**
 * Mail over a real SMTP conversation with a local sink (smtp-server on 127.0.0.1): the generic mailer,
 * invitations mailed after they are stored, a refusing server never failing the request, and the SMTP
 * URL (with its password) never in a log.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { createMailer } from '../../src/lib/mail.ts';
import { eventually } from '../eventually.ts';
import { loginCookie, request, startTestServer, type TestServer } from '../harness.ts';

type Received = { from: string | undefined; to: string[]; data: string; user: string | undefined };

const SMTP_USER = 'parley-smtp-user';
const SMTP_PASSWORD = 'smtp-password-never-logged';
const received: Received[] = [];
/** Recipients the sink refuses (a 550 for RCPT TO). */
const refused = new Set<string>();
let sink: SMTPServer;
let smtpUrl: string;
let server: TestServer;
let owner: string;

before(async () => {
  sink = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === SMTP_USER && auth.password === SMTP_PASSWORD) return callback(null, { user: auth.username });
      return callback(new Error('invalid credentials'));
    },
    onRcptTo(address, _session, callback) {
      if (refused.has(address.address)) return callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
      return callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((r) => r.address),
          data: Buffer.concat(chunks).toString('utf8'),
          user: session.user as string | undefined,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', () => resolve()));
  const { port } = sink.server.address() as AddressInfo;
  smtpUrl = `smtp://${SMTP_USER}:${SMTP_PASSWORD}@127.0.0.1:${port}`;
  server = await startTestServer({ env: { SMTP_URL: smtpUrl, SMTP_FROM: 'Parley Test <invites@parley.test>', LOG_LEVEL: 'debug' } });
  server.registerSensitive('the SMTP URL', smtpUrl);
  server.registerSensitive('the SMTP password', SMTP_PASSWORD);
  owner = await loginCookie(server);
});
after(async () => {
  await server?.close();
  await new Promise<void>((resolve) => sink.close(() => resolve()));
});

/** The body of a received mail with quoted-printable soft breaks undone. */
const bodyOf = (mail: Received) => mail.data.replace(/=\r?\n/g, '').replace(/=3D/g, '=');

test('the mailer sends a plain mail through a real SMTP conversation, authenticated, from SMTP_FROM', async () => {
  const mailer = createMailer({ smtpUrl, from: 'Parley Test <invites@parley.test>' });
  assert.ok(mailer);
  await mailer.send({ to: 'reader@example.com', subject: 'Hello there', text: 'A plain line.\n' });
  mailer.close();
  const mail = received.find((m) => m.to.includes('reader@example.com'));
  assert.ok(mail, 'the sink received it');
  assert.equal(mail.from, 'invites@parley.test');
  assert.equal(mail.user, SMTP_USER, 'the URL credentials authenticated');
  assert.match(mail.data, /^Subject: Hello there$/m);
  assert.match(mail.data, /^From: Parley Test <invites@parley\.test>$/m);
  assert.match(bodyOf(mail), /A plain line\./);
  assert.equal(createMailer({ smtpUrl: undefined, from: 'x@example.com' }), undefined, 'no SMTP_URL: no mailer');
});

test('an invitation is mailed with its link after it is stored', async () => {
  const res = await request(server, 'POST', `/v1/organizations/${server.organizationId}/invitations`, {
    cookie: owner,
    body: { email: 'invitee@example.com', role: 'member' },
  });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.data.mailed, true);
  const mail = await eventually('the invitation mail', () => received.find((m) => m.to.includes('invitee@example.com')));
  assert.match(mail.data, /^Subject: You are invited to My organization on Parley$/m);
  const body = bodyOf(mail);
  assert.ok(body.includes(res.body.data.url), `the mail holds the link: ${body}`);
  assert.match(body, /as member/);
  // The link in the mail works.
  const lookup = await request(server, 'POST', '/v1/invitations/lookup', { body: { token: res.body.data.token } });
  assert.equal(lookup.status, 200, lookup.text);
});

test('a server that refuses the mail never fails the invitation; the failure is logged without the URL or the link', async () => {
  refused.add('bounced@example.com');
  const res = await request(server, 'POST', `/v1/organizations/${server.organizationId}/invitations`, {
    cookie: owner,
    body: { email: 'bounced@example.com', role: 'member' },
  });
  assert.equal(res.status, 201, res.text);
  const line = await eventually('the failure in the log', () => server.logs.find((l) => l.includes('mail not sent')));
  assert.match(line, /"to_domain":"example.com"/);
  assert.equal(line.includes('bounced@example.com'), false, 'not even the address');
  assert.equal(
    (await request(server, 'POST', '/v1/invitations/lookup', { body: { token: res.body.data.token } })).status,
    200,
    'the invitation stands',
  );
  // The log audit on close checks the SMTP URL, its password and every token never appeared.
  assert.equal(
    server.logs.some((l) => l.includes(SMTP_PASSWORD)),
    false,
  );
});

test("a member's password-reset link is mailed to them; without SMTP it is only in the answer", async () => {
  const invited = await request(server, 'POST', `/v1/organizations/${server.organizationId}/invitations`, {
    cookie: owner,
    body: { email: 'resettable@example.com', role: 'member' },
  });
  assert.equal(invited.status, 201, invited.text);
  const joined = await request(server, 'POST', '/v1/invitations/accept', {
    body: { token: invited.body.data.token, name: 'Resettable', password: 'resettable member password' },
  });
  assert.equal(joined.status, 200, joined.text);
  const res = await request(
    server,
    'POST',
    `/v1/organizations/${server.organizationId}/members/${joined.body.data.user_id}/password-reset`,
    { cookie: owner },
  );
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.data.mailed, true);
  const token = decodeURIComponent(new URL(res.body.data.url).hash.replace(/^#token=/, ''));
  server.registerSensitive('a reset token', token);
  const mail = await eventually('the reset mail', () =>
    received.find((m) => m.to.includes('resettable@example.com') && /password/i.test(m.data)),
  );
  assert.match(mail.data, /^Subject: Set a new Parley password$/m);
  assert.ok(bodyOf(mail).includes(res.body.data.url), 'the mail holds the link');
  // The mailed link works.
  const reset = await request(server, 'POST', '/v1/auth/password-reset', { body: { token, new_password: 'a brand new member password' } });
  assert.equal(reset.status, 204, reset.text);

  const plain = await startTestServer();
  try {
    const cookie = await loginCookie(plain);
    const member = await request(plain, 'POST', `/v1/organizations/${plain.organizationId}/invitations`, {
      cookie,
      body: { email: 'unmailed@example.com', role: 'member' },
    });
    assert.equal(member.body.data.mailed, false);
    const accepted = await request(plain, 'POST', '/v1/invitations/accept', {
      body: { token: member.body.data.token, name: 'Unmailed', password: 'unmailed member password' },
    });
    const link = await request(
      plain,
      'POST',
      `/v1/organizations/${plain.organizationId}/members/${accepted.body.data.user_id}/password-reset`,
      { cookie },
    );
    assert.equal(link.status, 201, link.text);
    assert.equal(link.body.data.mailed, false);
    plain.registerSensitive('a reset link', link.body.data.url);
  } finally {
    await plain.close();
  }
});
