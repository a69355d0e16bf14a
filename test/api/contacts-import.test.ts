// stores: both
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { eventually } from '../eventually.ts';
import { queryRows } from '../../src/db/client.ts';
import { IMPORT_MAX_ROW_CHARS, IMPORT_MAX_ROWS, importContacts } from '../../src/domain/contacts/import.ts';
import { CsvReader } from '../../src/lib/csv.ts';
import { assertCodeError, eventsSince, outboxMark, postContact } from '../contacts-fixtures.ts';
import { createOtherOrganization, request, startTestServer, type TestServer } from '../harness.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const importBody = (body: string | Buffer, contentType = 'text/csv', key = server.apiKey) =>
  request(server, 'POST', '/v1/contacts/import', { key, rawBody: body, contentType });

async function contactCount(organizationId = server.organizationId): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    server.container.database.db,
    sql`select count(*)::int as n from contacts where organization_id = ${organizationId}`,
  );
  return row!.n;
}

test('CSV: good rows are upserted, bad ones listed by row, line and field; one crm.import.committed', async () => {
  const existing = await postContact(server, { phone_number: '+1 202 555 0100', name: 'Old Name', custom_fields: { keep: 'yes' } });
  await postContact(server, { email: 'taken@example.com' });
  const csv = [
    '\uFEFFPhone,Name,email,external_source,external_id,custom_fields.plan,custom.Region',
    '+1 202 555 0101,"Souza, Ana",ana@example.com,crm,1,pro,North', // row 1: created
    '0012025550100,"Renamed ""Bob""",,,,,', // row 2: updates the existing contact (matched by phone)
    'not a phone,Carl,,,,,', // row 3: bad phone
    ',Dee,not-an-email,,,,', // row 4: bad email
    ',Eve,,crm,,,', // row 5: external_source without external_id
    ',Nobody,,,,basic,', // row 6: no identifier
    '+1 202 555 0100,Fay,taken@example.com,,,,', // row 7: matched by phone, but the email is another contact's
    '+1 202 555 0103,Gus,,,,,,extra', // row 8: too many cells
    '',
    '+1 202 555 0101,"Ana ', // row 9: a quoted field across lines updates row 1's contact
    'Souza",,,,,',
    '+1 202 555 0104;semicolons are text here,Hal,,,,,', // row 10: bad phone (letters)
    '+1 202 555 0105,Ida,,,,,', // row 11: created, no trailing newline
  ].join('\r\n');
  const mark = await outboxMark(server);
  const res = await importBody(csv);
  assert.equal(res.status, 200, res.text);
  const data = res.body.data;
  assert.equal(data.format, 'csv');
  assert.deepEqual(
    {
      rows: data.rows,
      created: data.created,
      updated: data.updated,
      unchanged: data.unchanged,
      failed: data.failed,
      truncated: data.truncated,
      errors_truncated: data.errors_truncated,
    },
    { rows: 11, created: 2, updated: 2, unchanged: 0, failed: 7, truncated: false, errors_truncated: false },
  );
  assert.deepEqual(
    data.errors.map((e: { row: number; line: number; field: string | null }) => [e.row, e.line, e.field]),
    [
      [3, 4, 'phone_number'],
      [4, 5, 'email'],
      [5, 6, 'external_id'],
      [6, 7, 'phone_number'],
      [7, 8, 'email'],
      [8, 9, null],
      [10, 13, 'phone_number'],
    ],
  );
  assert.match(data.errors[4].message, /another contact has this email/);
  assert.match(data.errors[5].message, /8 cells; the header has 7/);

  const ana = await request(server, 'POST', '/v1/contacts/lookup', {
    key: server.apiKey,
    body: { identifiers: [{ type: 'email', value: 'ana@example.com' }] },
  });
  assert.equal(ana.body.data.name, 'Ana \r\nSouza', 'the later row updated it, line break and all');
  assert.equal(ana.body.data.phone_number, '+12025550101');
  assert.deepEqual(ana.body.data.custom_fields, { plan: 'pro', Region: 'North' });
  assert.equal(ana.body.data.external_source, 'crm');
  const bob = await request(server, 'GET', `/v1/contacts/${existing.id}`, { key: server.apiKey });
  assert.equal(bob.body.data.name, 'Renamed "Bob"');
  assert.deepEqual(bob.body.data.custom_fields, { keep: 'yes' }, 'empty cells leave values as they are');
  assert.equal(
    (await request(server, 'GET', `/v1/contacts/phone/${encodeURIComponent('+12025550105')}`, { key: server.apiKey })).body.data.name,
    'Ida',
  );

  const events = await eventsSince(server, mark);
  assert.deepEqual(events, [
    {
      type: 'crm.import.committed',
      payload: {
        import_id: data.import_id,
        object_kind: 'contact',
        created: 2,
        updated: 2,
        unchanged: 0,
        failed: 7,
        organization_id: server.organizationId,
      },
    },
  ]);

  // Rows that match and change nothing are counted as unchanged.
  const again = await importBody(
    ['phone,name', '+1 202 555 0100,"Renamed ""Bob"""', '+1 202 555 0105,Ida', '+1 202 555 0106,New'].join('\n'),
  );
  assert.deepEqual([again.body.data.created, again.body.data.updated, again.body.data.unchanged, again.body.data.failed], [1, 0, 2, 0]);
});

test('CSV with semicolons or tabs, and JSON lines, import the same way', async () => {
  const semi = await importBody('phone_number;name;custom_fields.note\n+1 303 555 0101;Semi;"a;b"\n');
  assert.equal(semi.status, 200, semi.text);
  assert.deepEqual([semi.body.data.created, semi.body.data.failed], [1, 0]);
  const tabbed = await importBody('name\tphone\n"Tab"\t+1 303 555 0102\n', 'text/csv; charset=utf-8');
  assert.deepEqual([tabbed.body.data.created, tabbed.body.data.failed], [1, 0]);
  const semiContact = await request(server, 'GET', `/v1/contacts/phone/${encodeURIComponent('+13035550101')}`, { key: server.apiKey });
  assert.deepEqual(semiContact.body.data.custom_fields, { note: 'a;b' });

  const lines = [
    JSON.stringify({ phone_number: '+1 303 555 0103', name: 'Jay', custom_fields: { score: 7, tags: ['a'] } }),
    '',
    '{"phone_number": "+1 303 555 0104", "name": ', // row 2: broken JSON
    '[1, 2]', // row 3: not an object
    JSON.stringify({ phone_number: 3035550105 }), // row 4: wrong type
    JSON.stringify({ phone: '+1 303 555 0106', nickname: 'J' }), // row 5: unknown key
    JSON.stringify({ external_source: 'shop', external_id: 'S-1', email: 'KAY@example.com', name: 'Kay' }), // row 6
    JSON.stringify({ email: 'kay@example.com', name: 'Kay K.', phone_number: '' }) + '\r', // row 7: updates row 6's contact by email
  ].join('\n');
  const mark = await outboxMark(server);
  const res = await importBody(lines, 'application/x-ndjson');
  assert.equal(res.status, 200, res.text);
  const d = res.body.data;
  assert.equal(d.format, 'ndjson');
  assert.deepEqual([d.rows, d.created, d.updated, d.failed], [7, 2, 1, 4]);
  assert.deepEqual(
    d.errors.map((e: { row: number; line: number; field: string | null }) => [e.row, e.line, e.field]),
    [
      [2, 3, null],
      [3, 4, null],
      [4, 5, 'phone_number'],
      [5, 6, null],
    ],
  );
  assert.match(d.errors[0].message, /not valid JSON/);
  assert.match(d.errors[3].message, /nickname/);
  const kay = await request(server, 'POST', '/v1/contacts/lookup', {
    key: server.apiKey,
    body: { identifiers: [{ type: 'external_id', value: 'S-1', source: 'shop' }] },
  });
  assert.equal(kay.body.data.name, 'Kay K.');
  const jay = await request(server, 'GET', `/v1/contacts/phone/${encodeURIComponent('+13035550103')}`, { key: server.apiKey });
  assert.deepEqual(jay.body.data.custom_fields, { score: 7, tags: ['a'] });
  assert.equal((await eventsSince(server, mark, 'crm.import')).length, 1);
  assert.equal((await eventsSince(server, mark, 'crm.record')).length, 0, 'imports record no per-contact events');
});

test('tags: a CSV tags column (split on ; or |) and a JSON lines tags array add tags; phone is phone_number in both', async () => {
  const zed = await postContact(server, { phone_number: '+1 505 555 0100', name: 'Zed' });
  await request(server, 'POST', `/v1/contacts/${zed.id}/tags`, { key: server.apiKey, body: { tag: 'Old' } });
  const long = 'x'.repeat(101);
  const csv = [
    'phone,name,tags',
    '+1 505 555 0101,Tia,"VIP; Wholesale"', // row 1: created with two tags
    '+1 505 555 0102,Uma,vip|Retail|', // row 2: created; vip is the VIP just made
    '+1 505 555 0100,,New', // row 3: only a tag added: updated
    '+1 505 555 0100,,old', // row 4: a tag it has: unchanged
    `+1 505 555 0103,Vic,ok;${long}`, // row 5: a tag too long
  ].join('\n');
  const mark = await outboxMark(server);
  const res = await importBody(csv);
  assert.equal(res.status, 200, res.text);
  const d = res.body.data;
  assert.deepEqual([d.rows, d.created, d.updated, d.unchanged, d.failed], [5, 2, 1, 1, 1], res.text);
  assert.deepEqual(
    d.errors.map((e: { row: number; field: string | null }) => [e.row, e.field]),
    [[5, 'tags']],
  );
  assert.match(d.errors[0].message, /1 to 100 printable characters/);

  const lines = [
    JSON.stringify({ phone: '+1 505 555 0104', name: 'Wes', tags: ['Wholesale', 'Gold'] }), // row 1: created
    JSON.stringify({ phone_number: '+1 505 555 0105', tags: 'a; b' }), // row 2: created, a string split the same way
    JSON.stringify({ phone: '+1 505 555 0106', phone_number: '+1 505 555 0106' }), // row 3: the same field twice
    JSON.stringify({ phone_number: '+1 505 555 0107', tags: [1] }), // row 4: not a tag name
  ].join('\n');
  const json = await importBody(lines, 'application/x-ndjson');
  assert.equal(json.status, 200, json.text);
  const j = json.body.data;
  assert.deepEqual([j.rows, j.created, j.failed], [4, 2, 2], json.text);
  assert.deepEqual(
    j.errors.map((e: { row: number; field: string | null }) => [e.row, e.field]),
    [
      [3, 'phone'],
      [4, 'tags'],
    ],
  );

  const tagsOf = async (phone: string) =>
    (await request(server, 'GET', `/v1/contacts/phone/${encodeURIComponent(phone)}`, { key: server.apiKey })).body.data.tags;
  assert.deepEqual(await tagsOf('+15055550101'), ['VIP', 'Wholesale']);
  assert.deepEqual(await tagsOf('+15055550102'), ['Retail', 'VIP']);
  assert.deepEqual(await tagsOf('+15055550100'), ['New', 'Old']);
  assert.deepEqual(await tagsOf('+15055550104'), ['Gold', 'Wholesale']);
  assert.deepEqual(await tagsOf('+15055550105'), ['a', 'b']);
  const vip = await request(server, 'GET', '/v1/contacts?tag=vip&limit=200', { key: server.apiKey });
  assert.deepEqual(vip.body.data.map((c: { name: string }) => c.name).sort(), ['Tia', 'Uma']);
  assert.equal((await eventsSince(server, mark, 'crm.list')).length, 0, 'imports record no per-contact events');
});

test('whole-request problems: unknown column, empty body, other content types', async () => {
  const before = await contactCount();
  const unknown = await importBody('phone_number,nickname,name,name\n+1 404 555 0101,x,y,z\n');
  assertCodeError(unknown, 400, 'invalid', /unknown column "nickname"/);
  assert.deepEqual(
    unknown.body.errors.map((e: { pointer: string }) => e.pointer),
    ['/columns/1', '/columns/3'],
  );
  assertCodeError(await importBody(''), 400, 'invalid');
  assertCodeError(await importBody('\n\n'), 400, 'invalid');
  assertCodeError(await importBody('phone_number,name\n'), 400, 'invalid', /no rows/);
  assertCodeError(await importBody('', 'application/x-ndjson'), 400, 'invalid');
  assertCodeError(await importBody('{"phone_number":"+1 404 555 0102"}', 'application/json'), 415, 'unsupported_media_type');
  assertCodeError(await importBody('phone_number\n+1 404 555 0103\n', 'text/plain'), 415, 'unsupported_media_type');
  assertCodeError(await importBody('phone_number\n+1 404 555 0104\n', 'text/csv; charset=latin1'), 415, 'unsupported_media_type');
  // A body announced larger than the limit is refused before it is read.
  const tooBig = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(`${server.baseUrl}/v1/contacts/import`, {
      method: 'POST',
      headers: { 'x-api-key': server.apiKey, 'content-type': 'text/csv', 'content-length': String(65 * 1024 * 1024) },
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body });
        req.destroy();
      });
    });
    req.on('error', reject);
    req.write('phone_number\n+1 404 555 0105\n');
  });
  assert.equal(tooBig.status, 413, tooBig.body);
  assert.equal(JSON.parse(tooBig.body).code, 'payload_too_large');
  assert.equal(await contactCount(), before, 'nothing was written');
});

test('a large import streams: batches are committed while the body is still arriving', async () => {
  const before = await contactCount();
  const rows = 5000;
  const encoder = new TextEncoder();
  let sent = 0;
  let waitedForServer = false;
  const line = (i: number) =>
    `+1 505 ${String(5_000_000 + i).slice(0, 3)} ${String(5_000_000 + i).slice(3)},Person ${i},p${i}@stream.example\n`;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent === 0) {
        controller.enqueue(encoder.encode('phone_number,name,email\n'));
      }
      if (sent < 2500) {
        const chunk: string[] = [];
        for (let i = 0; i < 500; i++) chunk.push(line(sent++));
        controller.enqueue(encoder.encode(chunk.join('')));
        return;
      }
      if (!waitedForServer) {
        // Hold the rest back until the server has written rows from what it has: proof it does not wait for the whole body.
        await eventually('the server to write rows before the body ended', async () => (await contactCount()) - before >= 1000, {
          timeoutMs: 60_000,
          everyMs: 50,
        });
        waitedForServer = true;
      }
      if (sent < rows) {
        const chunk: string[] = [];
        for (let i = 0; i < 500; i++) chunk.push(line(sent++));
        controller.enqueue(encoder.encode(chunk.join('')));
        return;
      }
      controller.close();
    },
  });
  const response = await fetch(`${server.baseUrl}/v1/contacts/import`, {
    method: 'POST',
    headers: { 'x-api-key': server.apiKey, 'content-type': 'text/csv', accept: 'application/json' },
    body,
    duplex: 'half',
  } as RequestInit);
  const result = (await response.json()) as { data: { rows: number; created: number; failed: number } };
  assert.equal(response.status, 200, JSON.stringify(result));
  assert.ok(waitedForServer);
  assert.deepEqual([result.data.rows, result.data.created, result.data.failed], [rows, rows, 0]);
  assert.equal((await contactCount()) - before, rows);
  const list = await request(server, 'GET', '/v1/contacts?search=p4999%40stream', { key: server.apiKey });
  assert.equal(list.body.data[0].name, 'Person 4999');
});

test(`reading stops after ${IMPORT_MAX_ROWS} rows, naming the first row left out`, async () => {
  // Invalid rows keep this fast: the limit counts rows, not writes.
  const other = await createOtherOrganization(server, 'limits');
  const body = Buffer.from(`phone_number\n${'x\n'.repeat(IMPORT_MAX_ROWS)}+1 606 555 0101\n+1 606 555 0102\n`);
  const res = await importBody(body, 'text/csv', other.apiKey);
  assert.equal(res.status, 200, res.text.slice(0, 500));
  const d = res.body.data;
  assert.equal(d.rows, IMPORT_MAX_ROWS);
  assert.equal(d.failed, IMPORT_MAX_ROWS);
  assert.equal(d.created, 0);
  assert.equal(d.truncated, true);
  assert.equal(d.errors_truncated, true);
  assert.equal(d.errors.length, 1001);
  assert.equal(d.errors[0].row, 1);
  assert.deepEqual(d.errors.at(-1), {
    row: IMPORT_MAX_ROWS + 1,
    line: IMPORT_MAX_ROWS + 2,
    field: null,
    message: `a request imports at most ${IMPORT_MAX_ROWS} rows: this row and those after it were not imported`,
  });
  assert.equal(await contactCount(other.organizationId), 0);
});

test('a row longer than the limit is reported as invalid and the rows after it are imported (JSON lines and CSV)', async () => {
  const long = JSON.stringify({ name: 'L'.repeat(IMPORT_MAX_ROW_CHARS), phone_number: '+1 707 555 0100' });
  const lines = [
    JSON.stringify({ phone_number: '+1 707 555 0101', name: 'Before' }),
    long,
    JSON.stringify({ phone_number: '+1 707 555 0102', name: 'After' }),
  ].join('\n');
  const res = await importBody(lines, 'application/x-ndjson');
  assert.equal(res.status, 200, res.text.slice(0, 500));
  const d = res.body.data;
  assert.deepEqual([d.rows, d.created, d.failed], [3, 2, 1]);
  assert.deepEqual(
    d.errors.map((e: { row: number; line: number; field: string | null }) => [e.row, e.line, e.field]),
    [[2, 2, null]],
  );
  assert.match(d.errors[0].message, new RegExp(`longer than ${IMPORT_MAX_ROW_CHARS} characters`));
  const after = await request(server, 'GET', `/v1/contacts/phone/${encodeURIComponent('+17075550102')}`, { key: server.apiKey });
  assert.equal(after.body.data.name, 'After');

  const csv = `phone_number,name\n+1 707 555 0103,"${'q'.repeat(IMPORT_MAX_ROW_CHARS)}"\n+1 707 555 0104,Csv After\n`;
  const csvRes = await importBody(csv);
  assert.equal(csvRes.status, 200, csvRes.text.slice(0, 500));
  assert.deepEqual([csvRes.body.data.rows, csvRes.body.data.created, csvRes.body.data.failed], [2, 1, 1]);
  assert.deepEqual(
    csvRes.body.data.errors.map((e: { row: number; line: number }) => [e.row, e.line]),
    [[1, 2]],
  );
});

test('a row holding a NUL character or a lone surrogate is reported as invalid, in any batch, and the import goes on', async () => {
  const other = await createOtherOrganization(server, 'nul-rows');
  // Row 1001 sits in the second batch: the first one is committed before it is read.
  const rows = Array.from({ length: 1200 }, (_, i) => `+1 808 555 ${String(1000 + i).padStart(4, '0')},Person ${i}`);
  rows[1000] = '+1 808 555 9990,Nul\u0000Name';
  const csv = `phone_number,name\n${rows.join('\n')}\n`;
  const res = await importBody(csv, 'text/csv', other.apiKey);
  assert.equal(res.status, 200, res.text.slice(0, 500));
  const d = res.body.data;
  assert.deepEqual([d.rows, d.created, d.failed], [1200, 1199, 1]);
  assert.deepEqual(
    d.errors.map((e: { row: number; field: string | null }) => [e.row, e.field]),
    [[1001, 'name']],
  );
  assert.match(d.errors[0].message, /NUL/);

  const lines = [
    JSON.stringify({ phone_number: '+1 808 555 9992', name: 'nul\u0000' }),
    JSON.stringify({ phone_number: '+1 808 555 9991', name: 'lone \uD800 surrogate' }),
    JSON.stringify({ phone_number: '+1 808 555 9993', custom_fields: { ['k\u0000']: 'v' } }),
    `{"phone_number": "+1 808 555 9994", "custom_fields": {"deep": ${'['.repeat(5000)}${']'.repeat(5000)}}}`,
    JSON.stringify({ phone_number: '+1 808 555 9995', name: 'fine' }),
  ].join('\n');
  const json = await importBody(lines, 'application/x-ndjson', other.apiKey);
  assert.equal(json.status, 200, json.text.slice(0, 500));
  assert.deepEqual([json.body.data.rows, json.body.data.created, json.body.data.failed], [5, 1, 4]);
  assert.deepEqual(
    json.body.data.errors.map((e: { row: number; field: string | null }) => [e.row, e.field]),
    [
      [1, 'name'],
      [2, 'name'],
      [3, 'custom_fields.k\u0000'],
      [4, 'custom_fields.deep.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0'],
    ],
  );
  assert.equal(await contactCount(other.organizationId), 1200);
});

test('an import yields to the event loop while it reads, even when no row reaches the database', async () => {
  // 20,000 invalid rows in one chunk: no batch is written (no database wait), so only the import's own yields let other work run.
  let turns = 0;
  let running = true;
  const spin = () => {
    if (!running) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  const actor = { kind: 'system' as const, organizationId: server.organizationId, permissions: new Set<never>() };
  const body = (async function* () {
    yield `${'[]\n'.repeat(20_000)}`;
  })();
  const result = await importContacts({ db: server.container.database.db, clock: server.container.clock }, actor, {
    format: 'ndjson',
    body,
  });
  running = false;
  assert.equal(result.failed, 20_000);
  assert.ok(turns >= 20, `other work ran ${turns} times during the import`);
});

test('the CSV reader gives the same records however the text is cut into chunks', () => {
  const text = 'a,b,c\r\n"x, ""y""",2,\n"multi\r\nline",,"q"\r\nlast,"",z';
  const whole = new CsvReader();
  const expected = [...whole.push(text), ...whole.end()];
  assert.deepEqual(
    expected.map((r) => r.cells),
    [
      ['a', 'b', 'c'],
      ['x, "y"', '2', ''],
      ['multi\r\nline', '', 'q'],
      ['last', '', 'z'],
    ],
  );
  assert.deepEqual(
    expected.map((r) => r.line),
    [1, 2, 3, 5],
  );
  for (let cut = 1; cut < text.length; cut++) {
    for (let cut2 = cut; cut2 < text.length; cut2 += 3) {
      const reader = new CsvReader(',');
      const records = [
        ...reader.push(text.slice(0, cut)),
        ...reader.push(text.slice(cut, cut2)),
        ...reader.push(text.slice(cut2)),
        ...reader.end(),
      ];
      assert.deepEqual(records, expected, `cut at ${cut} and ${cut2}`);
    }
  }
});
