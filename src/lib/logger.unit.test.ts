import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLogger, redactSecrets, safeUrl } from './logger.ts';

function capture() {
  const lines: Array<Record<string, any>> = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { logger: createLogger({ level: 'info', destination }), lines };
}

test('secret keys are censored at the top, one and two levels down; the logged object is not changed', () => {
  const { logger, lines } = capture();
  const given = {
    password: 'p1',
    channel: { id: 'c1', token: 't1', settings: { api_key: 'k1', secret: 's1', label: 'shown' } },
    headers: { authorization: 'Bearer b1', 'x-api-key': 'k2', cookie: 'c=1', accept: 'application/json' },
    kept: 'visible',
  };
  const before = structuredClone(given);
  logger.info(given, 'something');
  assert.deepEqual(given, before, "the caller's object was changed");
  const line = lines[0]!;
  assert.equal(line.password, '[redacted]');
  assert.equal(line.channel.token, '[redacted]');
  assert.equal(line.channel.settings.api_key, '[redacted]');
  assert.equal(line.channel.settings.secret, '[redacted]');
  assert.equal(line.channel.settings.label, 'shown');
  assert.equal(line.headers.authorization, '[redacted]');
  assert.equal(line.headers['x-api-key'], '[redacted]');
  assert.equal(line.headers.cookie, '[redacted]');
  assert.equal(line.headers.accept, 'application/json');
  assert.equal(line.kept, 'visible');
  for (const value of ['p1', 't1', 'k1', 's1', 'b1', 'k2', 'c=1']) assert.ok(!JSON.stringify(line).includes(value), value);
});

test('an object with no secret is logged as given, without a copy', () => {
  const plain = { a: 1, nested: { b: 'two' } };
  assert.equal(redactSecrets(plain), plain);
  const withSecret = { nested: { token: 'x' } };
  assert.notEqual(redactSecrets(withSecret), withSecret);
});

test('request headers as node gives them (no prototype) are censored too', () => {
  const headers = Object.assign(Object.create(null), { authorization: 'Bearer z', host: 'h' });
  const out = redactSecrets({ req: { headers } }) as { req: { headers: Record<string, string> } };
  assert.equal(out.req.headers.authorization, '[redacted]');
  assert.equal(out.req.headers.host, 'h');
});

test('a failed statement is logged with its SQL, never with its bound parameters or the values PostgreSQL quotes', async () => {
  const { DrizzleQueryError } = await import('drizzle-orm/errors');
  const { logger, lines } = capture();
  const cause = Object.assign(new Error('duplicate key value violates unique constraint "contacts_email_key"'), {
    code: '23505',
    detail: 'Key (email)=(ada@example.com) already exists.',
    query: 'insert into contacts (name, email, phone) values ($1, $2, $3)',
    params: ['Ada Lovelace', 'ada@example.com', '+4930555000111'],
    queryOptions: { rowMode: 'array' },
  });
  const err = new DrizzleQueryError(
    'insert into contacts (name, email, phone) values ($1, $2, $3)',
    ['Ada Lovelace', 'ada@example.com', '+4930555000111'],
    cause,
  );
  logger.error({ err }, 'unhandled error');
  logger.error({ err: new Error('invalid input syntax for type uuid: "ada@example.com"') }, 'unhandled error');
  const text = JSON.stringify(lines);
  for (const value of ['Ada Lovelace', 'ada@example.com', '+4930555000111'])
    assert.ok(!text.includes(value), `${value} was logged: ${text}`);
  assert.equal(lines[0]!.err.type, 'DrizzleQueryError');
  assert.equal(lines[0]!.err.query, 'insert into contacts (name, email, phone) values ($1, $2, $3)');
  assert.match(
    lines[0]!.err.message,
    /^Failed query: insert into contacts .*\nparams: \[redacted\]: duplicate key value violates unique constraint "contacts_email_key"$/s,
  );
  assert.match(lines[0]!.err.stack, /params: \[redacted\]/);
  assert.equal(lines[0]!.err.code, undefined, 'the cause is described by its message, as pino does');
  assert.equal(lines[1]!.err.message, 'invalid input syntax for type uuid: "[redacted]"');
});

test('URLs in log lines lose the personal values they carry: phones in paths, search terms and recipients in queries', () => {
  assert.equal(safeUrl('/v1/contacts/phone/%2B4915112345678'), '/v1/contacts/phone/[redacted]');
  assert.equal(safeUrl('/v1/contacts/phone/+4915112345678?x=1'), '/v1/contacts/phone/[redacted]?x=1');
  assert.equal(safeUrl('/v1/contacts?search=Ana%20Lima&limit=5'), '/v1/contacts?search=[redacted]&limit=5');
  assert.equal(safeUrl('/v1/messages?to=4915112345678&channel_id=c1'), '/v1/messages?to=[redacted]&channel_id=c1');
  assert.equal(safeUrl('/v1/channels?access_token=abc'), '/v1/channels?access_token=[redacted]');
  assert.equal(safeUrl('/sandbox/gateway/sessions/sbx_1/contacts/15551234567'), '/sandbox/gateway/sessions/sbx_1/contacts/[redacted]');
  assert.equal(safeUrl('/v1/contacts/c1/notes?limit=2'), '/v1/contacts/c1/notes?limit=2');
  // Profiles and blocking name a number in the path; the gateway's privacy-id calls a privacy id.
  assert.equal(safeUrl('/v1/channels/c1/profiles/%2B4915112345678'), '/v1/channels/c1/profiles/[redacted]');
  assert.equal(safeUrl('/v1/channels/c1/blocklist/4915112345678?x=1'), '/v1/channels/c1/blocklist/[redacted]?x=1');
  assert.equal(safeUrl('/v1/channels/c1/blocklist'), '/v1/channels/c1/blocklist');
  // A group's id is a message's `to` too.
  assert.equal(safeUrl('/v1/channels/c1/groups/120363%40g.us/participants'), '/v1/channels/c1/groups/[redacted]/participants');
  assert.equal(safeUrl('/sandbox/gateway/sessions/sbx_1/groups/120363%40g.us'), '/sandbox/gateway/sessions/sbx_1/groups/[redacted]');
  assert.equal(safeUrl('/v1/channels/c1/groups?limit=5'), '/v1/channels/c1/groups?limit=5');
  assert.equal(safeUrl('/v1/channels/c1/lids/lookup'), '/v1/channels/c1/lids/lookup');
  assert.equal(safeUrl('/v1/channels/c1/contacts/lookup'), '/v1/channels/c1/contacts/lookup');
  assert.equal(safeUrl('/sandbox/gateway/sessions/sbx_1/profiles/15551234567'), '/sandbox/gateway/sessions/sbx_1/profiles/[redacted]');
  assert.equal(safeUrl('/sandbox/gateway/sessions/sbx_1/blocklist/15551234567'), '/sandbox/gateway/sessions/sbx_1/blocklist/[redacted]');
  assert.equal(safeUrl('/sandbox/gateway/sessions/sbx_1/lids/pn/15551234567'), '/sandbox/gateway/sessions/sbx_1/lids/pn/[redacted]');
  assert.equal(safeUrl('/sandbox/gateway/sessions/sbx_1/lids/177766655544433'), '/sandbox/gateway/sessions/sbx_1/lids/[redacted]');
  assert.equal(safeUrl('/sandbox/gateway/pictures/15551234567.png'), '/sandbox/gateway/pictures/[redacted]');
});
