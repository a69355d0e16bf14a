/**
 * The contract fuzzer: walks the server's own OpenAPI document and sends every operation
 * schema-valid and schema-invalid bodies, queries and path ids (fast-check, fixed seed), then checks
 * each answer against the document with openapi-backend's response validator: a documented status,
 * the documented media type, a body that matches its schema, never a 500, never slower than the
 * limit. The hidden sandbox routes get the same abuse and must never answer 5xx.
 *
 * Every URL it generates points at a closed loopback port; the document's examples and `format: uri`
 * values are never used. Shared by test/fuzz/contract.test.ts and bench/fuzz.ts.
 */
import fc from 'fast-check';
import { OpenAPIValidator } from 'openapi-backend';
import { Agent, request as undiciRequest } from 'undici';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PERMISSIONS } from '../../src/domain/permissions.ts';
import type { TestServer } from '../harness.ts';

type Schema = Record<string, any>;
type Doc = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, Schema> } };

export type Operation = {
  id: string;
  method: string;
  path: string;
  pathParams: string[];
  pathSchemas: Schema[];
  query: Array<{ name: string; schema: Schema }>;
  headers: Array<{ name: string; schema: Schema }>;
  body?: { media: string; schema: Schema; required: boolean };
  /** The first media type of each status (the one the validator checks), and any others it may be sent as (a CSV beside the JSON). */
  responses: Record<string, { media?: string; others?: string[] }>;
  public: boolean;
};

/** Real ids and values to put in paths some of the time, so handlers run past the 404. */
export type Fixtures = { ids: Record<string, string[]>; apiKey: string; cookie?: string; throwawayCookies: string[] };

export type Failure = { kind: string; operation: string; status: number; detail: string; request: string };

export type FuzzReport = {
  sent: number;
  byStatus: Record<string, number>;
  /** Statuses per operation: which ones the fuzzer gets past validation and the 404. */
  byOperation: Record<string, Record<string, number>>;
  failures: Failure[];
  slowestMs: number;
  heapGrowthMb: number;
  rssGrowthMb: number;
};

export type FuzzOptions = {
  server: TestServer;
  fixtures: Fixtures;
  requests: number;
  seed: number;
  concurrency: number;
  /** A loopback port nothing listens on: every URL the fuzzer makes points here. */
  closedPort: number;
  timeLimitMs?: number;
  progress?: (sent: number) => void;
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** The document's operations, with what the fuzzer needs of each. */
export function operationsOf(doc: Doc): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = (op.parameters ?? []) as Array<{ in: string; name: string; schema?: Schema }>;
      const content = op.requestBody?.content as Record<string, { schema: Schema }> | undefined;
      const media = content ? Object.keys(content)[0]! : undefined;
      ops.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        pathSchemas: params.filter((p) => p.in === 'path').map((p) => p.schema ?? {}),
        query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        headers: params.filter((p) => p.in === 'header').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        body: media ? { media, schema: content![media]!.schema, required: op.requestBody.required !== false } : undefined,
        responses: Object.fromEntries(
          Object.entries(op.responses as Record<string, { content?: Record<string, unknown> }>).map(([s, r]) => [
            s,
            { media: r.content ? Object.keys(r.content)[0] : undefined, others: r.content ? Object.keys(r.content).slice(1) : [] },
          ]),
        ),
        public: Array.isArray(op.security) && op.security.length === 0,
      });
    }
  }
  return ops;
}

/**
 * openapi-backend validates application/json bodies only: the validator gets a copy of the document
 * in which each response's one media type is keyed as application/json (the fuzzer checks the real
 * Content-Type against the document itself), and every operation gets an operationId.
 */
export function validatorFor(doc: Doc): OpenAPIValidator {
  const copy = structuredClone(doc) as Doc;
  for (const [path, item] of Object.entries(copy.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      op.operationId = `${method.toUpperCase()} ${path}`;
      for (const response of Object.values(op.responses as Record<string, { content?: Record<string, unknown> }>)) {
        if (!response.content) continue;
        const [media] = Object.values(response.content);
        response.content = { 'application/json': media };
      }
    }
  }
  // The validator compiles each response schema on its own: $refs are inlined (the schemas have no cycles).
  const inline = (node: unknown, depth = 0): unknown => {
    if (depth > 40) throw new Error('schema nesting too deep (a $ref cycle?)');
    if (Array.isArray(node)) return node.map((n) => inline(n, depth + 1));
    if (!node || typeof node !== 'object') return node;
    const obj = node as Record<string, unknown>;
    if (typeof obj.$ref === 'string' && obj.$ref.startsWith('#/components/schemas/')) {
      const { $ref, ...rest } = obj;
      return inline({ ...copy.components.schemas[$ref.split('/').pop()!], ...rest }, depth + 1);
    }
    return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, inline(v, depth + 1)]));
  };
  copy.paths = inline(copy.paths) as Doc['paths'];
  return new OpenAPIValidator({
    definition: copy as never,
    lazyCompileValidators: true,
    ajvOpts: { strict: false },
    // The formats the document uses, so they are checked rather than skipped.
    customizeAjv: (ajv) => {
      ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
      ajv.addFormat(
        'date-time',
        (s: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i.test(s) && !Number.isNaN(Date.parse(s)),
      );
      ajv.addFormat('date', (s: string) => /^\d{4}-\d\d-\d\d$/.test(s) && !Number.isNaN(Date.parse(s)));
      ajv.addFormat('uri', (s: string) => URL.canParse(s));
      ajv.addFormat('csv', () => true);
      return ajv;
    },
  });
}

// ---------------------------------------------------------------- values

const FORGED_CURSORS = [
  Buffer.from(JSON.stringify({ t: '2020-01-01', id: 'x' })).toString('base64url'),
  Buffer.from(JSON.stringify({ t: '2020-01-01', id: 'x' })).toString('base64'),
  Buffer.from(JSON.stringify({ t: 'not a date', id: "' or 1=1 --" })).toString('base64url'),
  Buffer.from(JSON.stringify({ t: 1e308, id: null })).toString('base64url'),
  Buffer.from(JSON.stringify([1, 2, 3])).toString('base64url'),
  Buffer.from('\u0000\u0001garbage').toString('base64url'),
  Buffer.from(JSON.stringify({ t: '2020-01-01T00:00:00.000Z', id: '00000000-0000-0000-0000-000000000000' })).toString('base64url'),
  '!!!not-base64!!!',
  '',
];

const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '%00',
  '\ud800',
  'x\udfffy',
  '\uffff\ufffe',
  '😀👩‍👩‍👧‍👦',
  '\u202eRTL',
  "' OR 1=1 --",
  "'); DROP TABLE contacts; --",
  '"; select pg_sleep(10); --',
  '<script>alert(1)</script>',
  '{{7*7}}${7*7}',
  '../../../../etc/passwd',
  '\\',
  'null',
  'true',
  '-1',
  '1e400',
  '0x10',
  '(',
  '.(',
  '+',
  '+000000000000000000000',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  'a'.repeat(65),
  'a'.repeat(4096),
];

const HUGE = 'h'.repeat(300_000);

/** A JSON value nested depth deep, as text (JSON.stringify would recurse). */
function deepJson(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

/** Raw JSON texts spliced in where a value goes (marker strings are replaced after stringify). */
const RAW_VALUES: Record<string, string> = {
  '\u0001deep-array\u0001': deepJson(10_000, 'array'),
  '\u0001deep-object\u0001': deepJson(10_000, 'object'),
  '\u0001deep-64\u0001': deepJson(64, 'object'),
};

const anyString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 1, arbitrary: fc.constant(HUGE) },
);

const wrongType = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308, [], {}, [null], { '': null }, '1', 'true'),
  fc.constantFrom(...Object.keys(RAW_VALUES)),
  anyString,
);

export type ValueContext = { loopbackUrl: string; ids: Record<string, string[]> };

const URL_NAME = /(^|_)(url|uri|link|href|endpoint|base|webhook|callback|media|thumbnail|image|picture|avatar|website)(_|$)|url$/i;

/** The resolved schema of a $ref. */
function deref(doc: Doc, schema: Schema | undefined): Schema {
  let s = schema ?? {};
  for (let i = 0; i < 10 && typeof s.$ref === 'string'; i++) s = doc.components.schemas[s.$ref.split('/').pop()!] ?? {};
  return s;
}

/** Loopback URLs for any URL-like value: never a host of the document's examples. */
function urlValues(ctx: ValueContext): fc.Arbitrary<string> {
  return fc.constantFrom(
    ctx.loopbackUrl,
    `${ctx.loopbackUrl}/media/a.jpg`,
    `${ctx.loopbackUrl}/hook?x=1`,
    ctx.loopbackUrl.replace('http://', 'https://'),
    ctx.loopbackUrl.replace('127.0.0.1', '[::1]'),
  );
}

const PHONES = ['+4915112345678', '+14155550123', '+442071838750', '4915112345001', '+55 11 91234-5678', '+4915112345002'];
const EVENT_TYPES = [
  'message.new',
  'message.sent',
  'message.status_update',
  'conversation.updated',
  'contact.updated',
  'channel.status_update',
  'crm.record.created',
  'crm.comment.created',
];

/** Message types with content of their shape: a random `content` object is refused before anything runs. */
function messageContent(ctx: ValueContext): fc.Arbitrary<{ type: string; content: Record<string, unknown> }> {
  const text = fc.string({ minLength: 1, maxLength: 60 });
  const messageId = fc.constantFrom('wamid.unknown', ...(ctx.ids.message ?? []));
  return fc.oneof(
    { weight: 4, arbitrary: text.map((body) => ({ type: 'text', content: { body } })) },
    fc.record({ media_url: urlValues(ctx), caption: text }).map((content) => ({ type: 'image', content })),
    fc.record({ media_url: urlValues(ctx), file_name: text }).map((content) => ({ type: 'document', content })),
    fc
      .record({
        latitude: fc.double({ min: -90, max: 90, noNaN: true }),
        longitude: fc.double({ min: -180, max: 180, noNaN: true }),
        name: text,
      })
      .map((content) => ({ type: 'location', content })),
    fc.record({ message_id: messageId, reaction: fc.constantFrom('👍', '❤️', '') }).map((content) => ({ type: 'reaction', content })),
    fc.record({ question: text, options: fc.array(text, { minLength: 2, maxLength: 3 }) }).map((content) => ({ type: 'poll', content })),
    fc.record({ state: fc.constantFrom('typing', 'paused', 'recording') }).map((content) => ({ type: 'presence', content })),
    fc.record({ message_id: messageId }).map((content) => ({ type: 'mark_as_read', content })),
    // Media by the provider's id, flows and contact cards (the official provider's outbound shapes).
    fc
      .record({ media_id: fc.constantFrom('1037543291543636', 'not an id'), caption: text }, { requiredKeys: ['media_id'] })
      .map((content) => ({ type: 'image', content })),
    fc
      .record({ body: text, flow_id: fc.constantFrom('1234567890'), flow_cta: fc.string({ minLength: 1, maxLength: 32 }) })
      .map((content) => ({ type: 'flow', content })),
    fc
      .record({
        full_name: text,
        phones: fc.array(fc.record({ phone: fc.constantFrom(...PHONES), type: fc.constantFrom('HOME', 'work', 'CELL') }), {
          minLength: 1,
          maxLength: 2,
        }),
        emails: fc.array(fc.record({ email: fc.constantFrom('ana@example.com', 'not an address') }), { maxLength: 1 }),
      })
      .map((content) => ({ type: 'contact', content })),
    fc
      .record({
        template: fc.record({ name: fc.constantFrom('fuzz_template', 'unknown'), language: fc.record({ code: fc.constantFrom('en_US') }) }),
      })
      .map((content) => ({ type: 'template', content })),
  );
}

/**
 * Values the document cannot say (its strings have no enums for these) that let a request past
 * validation into the handler: permission names, event types, phones, message content by type.
 */
function hinted(doc: Doc, schema: Schema, ctx: ValueContext, name: string, depth: number): fc.Arbitrary<unknown> | undefined {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  if (props.type && props.content && props.channel_id) {
    const rest = {
      ...schema,
      properties: Object.fromEntries(Object.entries(props).filter(([k]) => k !== 'type' && k !== 'content')),
      required: (schema.required ?? []).filter((k: string) => k !== 'type' && k !== 'content'),
    };
    return fc
      .tuple(validValue(doc, rest, ctx, name, depth + 1) as fc.Arbitrary<Record<string, unknown>>, messageContent(ctx))
      .map(([base, tc]) => ({ ...base, ...tc }));
  }
  if (name === 'permissions') return fc.subarray([...PERMISSIONS], { minLength: 1 });
  if (name === 'event_types') return fc.subarray(EVENT_TYPES);
  if (name === 'settings' || name === 'credentials') return fc.constant({});
  if (name === 'currency') return fc.constantFrom('EUR', 'usd', 'JPY', 'XXX', 'ABC');
  if (/^(to|to_phone|phone|phone_number|from)$/.test(name)) return fc.constantFrom(...PHONES, ...(ctx.ids.phone ?? []));
  return undefined;
}

/** A schema-valid value, as far as a generator can tell. */
export function validValue(doc: Doc, raw: Schema | undefined, ctx: ValueContext, name = '', depth = 0): fc.Arbitrary<unknown> {
  const schema = deref(doc, raw);
  const hint = depth < 6 ? hinted(doc, schema, ctx, name, depth) : undefined;
  if (hint)
    return fc.oneof({ weight: 4, arbitrary: hint }, { weight: 1, arbitrary: validValue(doc, schema, ctx, `${name}\u0000`, depth + 6) });
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (union) return fc.oneof(...union.map((s) => validValue(doc, s, ctx, name, depth)));
  if (schema.allOf) return validValue(doc, schema.allOf[0], ctx, name, depth);
  const type = Array.isArray(schema.type) ? (schema.type.filter((t: string) => t !== 'null')[0] ?? 'null') : schema.type;
  if (depth > 4) return fc.constant(type === 'object' ? {} : type === 'array' ? [] : type === 'string' ? 'x' : null);
  switch (type) {
    case 'string':
      return stringValue(schema, ctx, name);
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1000);
      const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 1_000_000);
      const lo = Math.max(min, -(2 ** 31));
      const hi = Math.min(max, 2 ** 31);
      return fc.oneof(fc.integer({ min: Math.ceil(lo), max: Math.floor(hi) }), fc.constantFrom(Math.ceil(lo), Math.floor(hi)));
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 3, 3));
      return fc.array(validValue(doc, schema.items, ctx, name, depth + 1), { minLength, maxLength });
    }
    case 'object':
    case undefined: {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      if (Object.keys(props).length === 0) {
        if (type === undefined && !schema.additionalProperties) return fc.jsonValue({ maxDepth: 2 });
        return freeObject(ctx, depth);
      }
      const required = new Set<string>(schema.required ?? []);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      // Optional fields mostly left out: each one present is one more chance of a refusal that hides the rest.
      for (const [key, sub] of Object.entries(props)) {
        const value = validValue(doc, sub, ctx, key, depth + 1);
        model[key] = required.has(key)
          ? value
          : fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value });
      }
      return fc.record(model);
    }
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

function stringValue(schema: Schema, ctx: ValueContext, name: string): fc.Arbitrary<string> {
  if (schema.format === 'uri' || schema.format === 'url' || URL_NAME.test(name)) return urlValues(ctx);
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? 64;
  const byName = idsFor(ctx, name);
  const choices: Array<fc.Arbitrary<string>> = [];
  if (typeof schema.pattern === 'string') {
    try {
      choices.push(fc.stringMatching(new RegExp(schema.pattern)).filter((v) => v.length >= minLength && v.length <= maxLength));
    } catch {
      // A pattern fast-check cannot generate from: plain strings, refused or not.
    }
  }
  if (schema.format === 'uuid') choices.push(fc.uuid());
  else if (schema.format === 'email' || /email/i.test(name)) choices.push(fc.emailAddress().filter((e) => e.length <= maxLength));
  else if (schema.format === 'date') {
    choices.push(
      fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
    );
  } else if (schema.format === 'date-time' || /(_at|_after|_before|since|until)$/.test(name)) {
    choices.push(fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()));
  } else if (/phone|^to$|^from$/.test(name)) choices.push(fc.stringMatching(/^\+?[1-9][0-9]{7,13}$/));
  else {
    choices.push(fc.string({ minLength, maxLength: Math.min(maxLength, 40) }));
    // The boundary itself.
    if (maxLength <= 100_000) choices.push(fc.constant('b'.repeat(maxLength)));
  }
  if (byName.length > 0)
    return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...byName) }, { weight: 1, arbitrary: fc.oneof(...choices) });
  return fc.oneof(...choices);
}

/** Real ids for a field or parameter of this name (channel_id, contactID, ...). */
function idsFor(ctx: ValueContext, name: string): string[] {
  const key = name.replace(/_?id$/i, '').replace(/ID$/, '').toLowerCase();
  return ctx.ids[key] ?? [];
}

/** A free-form object (custom fields, message content, settings): known keys with plausible values. */
function freeObject(ctx: ValueContext, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const value: fc.Arbitrary<unknown> = fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.integer(),
    fc.boolean(),
    depth < 3 ? fc.array(fc.string({ maxLength: 5 }), { maxLength: 2 }) : fc.constant(null),
  );
  const content = fc.record(
    {
      body: fc.string({ maxLength: 40 }),
      text: fc.oneof(fc.string({ maxLength: 40 }), fc.record({ body: fc.string({ maxLength: 10 }) })),
      caption: fc.string({ maxLength: 20 }),
      media_url: urlValues(ctx),
      url: urlValues(ctx),
      media_type: fc.constantFrom('image/jpeg', 'image/png', 'application/pdf', 'x'),
      message_id: fc.constantFrom('x', ...(ctx.ids.message ?? [])),
      latitude: fc.double({ min: -90, max: 90, noNaN: true }),
      longitude: fc.double({ min: -180, max: 180, noNaN: true }),
      question: fc.string({ maxLength: 20 }),
      options: fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }),
      state: fc.constantFrom('typing', 'paused'),
      template: fc.record({ name: fc.string({ maxLength: 10 }), language: fc.record({ code: fc.constantFrom('en_US', 'de') }) }),
    },
    { requiredKeys: [] },
  );
  return fc.oneof(content, fc.dictionary(fc.string({ maxLength: 12 }), value, { maxKeys: 4 }));
}

/** A value that breaks the schema (or the server's assumptions) somewhere. */
export function invalidValue(doc: Doc, raw: Schema | undefined, ctx: ValueContext, name = ''): fc.Arbitrary<unknown> {
  const schema = deref(doc, raw);
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const keys = Object.keys(props);
  const options: Array<fc.Arbitrary<unknown>> = [wrongType];
  if (keys.length > 0) {
    // One field broken, the rest valid: reaches deeper than a wholly wrong body.
    options.push(
      fc
        .tuple(validValue(doc, schema, ctx, name) as fc.Arbitrary<Record<string, unknown>>, fc.constantFrom(...keys), fc.constant(null))
        .chain(([base, key]) => fc.oneof(wrongType, invalidValue(doc, props[key], ctx, key)).map((bad) => ({ ...base, [key]: bad }))),
      fc
        .tuple(validValue(doc, schema, ctx, name) as fc.Arbitrary<Record<string, unknown>>, fc.string({ maxLength: 10 }), wrongType)
        .map(([base, key, bad]) => ({ ...base, [key]: bad })),
    );
  } else if (schema.type === 'string') {
    options.push(anyString, fc.constant('b'.repeat((schema.maxLength ?? 64) + 1)));
  } else if (schema.type === 'array') {
    options.push(fc.array(wrongType, { maxLength: 3 }), fc.constant(Array.from({ length: (schema.maxItems ?? 100) + 1 }, () => 'x')));
  }
  return fc.oneof(...options);
}

// ---------------------------------------------------------------- requests

export type FuzzRequest = { op: Operation; url: string; headers: Record<string, string>; body?: string };

/** Percent-encodes any string, lone surrogates included (as their WTF-8 bytes, which no decoder accepts). */
function encodeAny(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return `${encodeURIComponent(value.toWellFormed())}%ED%A0%80`;
  }
}

/**
 * A path value: often a real id. The target of a deletion (or a disconnect) comes from resources
 * made to be destroyed: the fixtures are what lets the other routes run past the 404.
 */
function pathValue(ctx: ValueContext, param: string, destructive: boolean, schema: Schema): fc.Arbitrary<string> {
  const kind = param.replace(/_?id$/i, '').toLowerCase();
  const real: string[] = Array.isArray(schema.enum) ? schema.enum : destructive ? (ctx.ids[`deletable:${kind}`] ?? []) : idsFor(ctx, param);
  const realWeight = real.length === 0 ? 0 : 12;
  // A path value of `.` or `..` is no value: the URL's dot segments take the path itself apart (the
  // client sends /v1/things/ for /v1/things/., another route), so they are not generated.
  const fake = fc
    .oneof(
      fc.uuid(),
      fc.constantFrom(...NASTY_STRINGS.filter((s) => s.length > 0 && s.length <= 100)),
      fc.string({ minLength: 1, maxLength: 20 }),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 10 }),
      fc.constant('a'.repeat(101)),
    )
    .filter((v) => v !== '.' && v !== '..');
  return realWeight ? fc.oneof({ weight: realWeight, arbitrary: fc.constantFrom(...real) }, { weight: 8, arbitrary: fake }) : fake;
}

function queryValue(
  doc: Doc,
  ctx: ValueContext,
  param: { name: string; schema: Schema },
  validOnly: boolean,
): fc.Arbitrary<string | undefined> {
  if (param.name === 'cursor')
    return validOnly ? fc.constant(undefined) : fc.oneof(fc.constant(undefined), fc.constantFrom(...FORGED_CURSORS));
  if (validOnly) {
    return fc.oneof(
      { weight: 2, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: validValue(doc, param.schema, ctx, param.name).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))) },
    );
  }
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: validValue(doc, param.schema, ctx, param.name).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))) },
    { weight: 3, arbitrary: fc.oneof(anyString, fc.constantFrom('-1', '0', '201', '1.5', 'NaN', '[]')) },
  );
}

type Credential = 'key' | 'cookie' | 'none' | 'wrong-key' | 'bad-org' | 'throwaway-cookie';

/** One request to one operation. */
export function requestFor(doc: Doc, ctx: ValueContext, fixtures: Fixtures, op: Operation): fc.Arbitrary<FuzzRequest> {
  const credential: fc.Arbitrary<Credential> = fc.oneof(
    { weight: 14, arbitrary: fc.constant<Credential>('key') },
    { weight: fixtures.cookie ? 3 : 0, arbitrary: fc.constant<Credential>('cookie') },
    { weight: 1, arbitrary: fc.constantFrom<Credential>('none', 'wrong-key', 'bad-org', 'throwaway-cookie') },
  );
  const destroys = op.method === 'DELETE' || op.path.endsWith('/disconnect');
  const params = fc.tuple(
    ...op.pathParams.map((p, i) => pathValue(ctx, p, destroys && i === op.pathParams.length - 1, op.pathSchemas[i]!)),
  );
  // Half the queries hold only valid values: one bad parameter among many would hide what the others reach.
  const query = fc.oneof(
    fc.tuple(...op.query.map((q) => queryValue(doc, ctx, q, true))),
    fc.tuple(...op.query.map((q) => queryValue(doc, ctx, q, false))),
  );
  const headerValues = fc.tuple(
    ...op.headers.map((h) => fc.option(validValue(doc, h.schema, ctx, h.name).map(String), { nil: undefined })),
  );
  const body: fc.Arbitrary<{ text?: string; type?: string }> = op.body
    ? bodyFor(doc, ctx, op.body)
    : fc.oneof(
        { weight: 9, arbitrary: fc.constant({}) },
        { weight: 1, arbitrary: fc.constant({ text: '{"a":1}', type: 'application/json' }) },
      );
  return fc.tuple(credential, params, query, headerValues, body).map(([cred, ps, qs, hs, b]) => {
    let path = op.path;
    op.pathParams.forEach((name, i) => {
      path = path.replace(`{${name}}`, encodeAny(ps[i]!));
    });
    const search: string[] = [];
    op.query.forEach((q, i) => {
      if (qs[i] !== undefined) search.push(`${encodeURIComponent(q.name)}=${encodeAny(qs[i]!)}`);
    });
    const headers: Record<string, string> = { accept: 'application/json' };
    op.headers.forEach((h, i) => {
      if (hs[i] !== undefined && /^[\x20-\x7e]*$/.test(hs[i]!)) headers[h.name] = hs[i]!;
    });
    if (cred === 'key') headers['x-api-key'] = fixtures.apiKey;
    // The fuzzer's own session must outlive the run: logging out uses a throwaway one.
    if (cred === 'cookie' && fixtures.cookie)
      headers.cookie = op.id === 'POST /v1/auth/logout' ? (fixtures.throwawayCookies[1] ?? '') : fixtures.cookie;
    if (cred === 'throwaway-cookie' && fixtures.throwawayCookies.length > 0) headers.cookie = fixtures.throwawayCookies[0]!;
    if (cred === 'wrong-key') headers['x-api-key'] = `prl_live_${'x'.repeat(32)}`;
    if (cred === 'bad-org') {
      headers['x-api-key'] = fixtures.apiKey;
      headers['x-organization-id'] = 'not-a-uuid';
    }
    if (b.text !== undefined) headers['content-type'] = b.type ?? 'application/json';
    const qsText = search.join('&');
    return { op, url: path + (qsText ? `?${qsText}` : ''), headers, body: b.text };
  });
}

function toJsonText(value: unknown): string {
  let text = JSON.stringify(value) ?? 'null';
  for (const [marker, raw] of Object.entries(RAW_VALUES)) text = text.replaceAll(JSON.stringify(marker), raw);
  return text;
}

/** The boundary of the fuzzer's multipart bodies. */
const BOUNDARY = 'fuzzb0undary';

/** multipart/form-data bodies (an upload): files of any declared type with any bytes, any fields, or a broken form. */
function multipartBodies(): fc.Arbitrary<{ text?: string; type?: string }> {
  const part = fc.record({
    name: fc.oneof(fc.constantFrom('file', 'type', 'messaging_product'), anyString),
    filename: fc.option(fc.oneof(fc.constantFrom('a.jpg', 'b.pdf', 'c.webp', ''), anyString), { nil: undefined }),
    type: fc.option(
      fc.oneof(fc.constantFrom('image/jpeg', 'image/png', 'image/webp', 'application/pdf', 'text/plain', 'video/mp4'), anyString),
      {
        nil: undefined,
      },
    ),
    value: fc.oneof(fc.constantFrom('image', 'document', 'sticker', '%PDF-1.4\n%%EOF\n', '\xff\xd8\xff\xe0'), anyString),
  });
  const clean = (s: string) => s.replace(/["\r\n]/g, '');
  const form = fc
    .array(part, { maxLength: 4 })
    .map((parts) =>
      [
        ...parts.map(
          (p) =>
            `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${clean(p.name)}"${p.filename === undefined ? '' : `; filename="${clean(p.filename)}"`}\r\n` +
            `${p.type === undefined ? '' : `Content-Type: ${clean(p.type)}\r\n`}\r\n${p.value}\r\n`,
        ),
        `--${BOUNDARY}--\r\n`,
      ].join(''),
    );
  return fc.oneof(
    { weight: 6, arbitrary: form.map((text) => ({ text, type: `multipart/form-data; boundary=${BOUNDARY}` })) },
    { weight: 1, arbitrary: anyString.map((text) => ({ text, type: `multipart/form-data; boundary=${BOUNDARY}` })) },
    { weight: 1, arbitrary: form.map((text) => ({ text, type: 'multipart/form-data' })) },
    { weight: 1, arbitrary: fc.constant({ text: '{"file":"x"}', type: 'application/json' }) },
  );
}

function bodyFor(doc: Doc, ctx: ValueContext, body: NonNullable<Operation['body']>): fc.Arbitrary<{ text?: string; type?: string }> {
  if (body.media === 'multipart/form-data') return multipartBodies();
  if (body.media !== 'application/json') {
    const line = fc.oneof(
      fc
        .record({ phone: fc.stringMatching(/^\+[1-9][0-9]{9,12}$/), name: anyString, email: fc.emailAddress() }, { requiredKeys: [] })
        .map(toJsonText),
      anyString,
    );
    const text = fc.array(line, { maxLength: 5 }).map((lines) => lines.join('\n'));
    const csv = fc
      .array(
        fc.array(anyString, { maxLength: 4 }).map((cells) => cells.join(',')),
        { maxLength: 5 },
      )
      .map((rows) => ['phone,name,email', ...rows].join('\n'));
    return fc.oneof(
      text.map((t) => ({ text: t, type: 'application/x-ndjson' })),
      csv.map((t) => ({ text: t, type: 'text/csv' })),
    );
  }
  return fc.oneof(
    { weight: 5, arbitrary: validValue(doc, body.schema, ctx).map((v) => ({ text: toJsonText(v) })) },
    { weight: 4, arbitrary: invalidValue(doc, body.schema, ctx).map((v) => ({ text: toJsonText(v) })) },
    { weight: body.required ? 0 : 1, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        { text: '{"a":', type: 'application/json' },
        { text: '', type: 'application/json' },
        { text: '{}', type: 'text/plain' },
        { text: '<x/>', type: 'application/xml' },
        { text: '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}', type: 'application/json' },
        { text: `"${'\\u0000'.repeat(10)}"`, type: 'application/json' },
      ),
    },
  );
}

// ---------------------------------------------------------------- the run

function mediaOf(contentType: string | null): string | undefined {
  return contentType?.split(';')[0]?.trim().toLowerCase() || undefined;
}

function describe(req: FuzzRequest): string {
  const body =
    req.body === undefined ? '' : ` body=${req.body.length > 300 ? `${req.body.slice(0, 300)}…(${req.body.length} chars)` : req.body}`;
  const auth = req.headers['x-api-key'] ? 'key' : req.headers.cookie ? 'cookie' : 'none';
  return `${req.op.method} ${req.url.length > 300 ? `${req.url.slice(0, 300)}…` : req.url} [${auth}${req.headers['x-organization-id'] ? ' bad-org' : ''}]${body}`;
}

/** Checks one answer against the document; returns the failures. */
export function checkAnswer(
  validator: OpenAPIValidator,
  req: FuzzRequest,
  status: number,
  contentType: string | null,
  text: string,
  ms: number,
  timeLimitMs: number,
): Failure[] {
  const failures: Failure[] = [];
  const fail = (kind: string, detail: string) => failures.push({ kind, operation: req.op.id, status, detail, request: describe(req) });
  if (status >= 500) fail('5xx', text.slice(0, 300));
  if (ms > timeLimitMs) fail('slow', `${Math.round(ms)} ms`);
  const documented = req.op.responses[String(status)];
  if (!documented) {
    fail('undocumented status', text.slice(0, 300));
    return failures;
  }
  const media = mediaOf(contentType);
  // Another documented media type (a CSV beside the JSON): its type is all that is checked.
  if (media !== undefined && documented.others?.includes(media)) return failures;
  if (documented.media !== media && !(documented.media === undefined && text === '')) {
    fail('media type', `documented ${documented.media ?? '(no body)'}, sent ${media ?? '(none)'}: ${text.slice(0, 200)}`);
    return failures;
  }
  if (documented.media === 'text/event-stream' && !/^retry: \d+\n\n/.test(text))
    fail('event stream', `does not start with its retry hint: ${text.slice(0, 200)}`);
  if (documented.media !== 'application/json' && documented.media !== 'application/problem+json') return failures;
  let body: unknown = null;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    fail('body is not JSON', text.slice(0, 200));
    return failures;
  }
  const result = validator.validateResponse(body, req.op.id, status);
  if (!result.valid) fail('body schema', `${JSON.stringify(result.errors?.slice(0, 3))} in ${text.slice(0, 300)}`);
  return failures;
}

/** A request to a hidden route (the sandbox): only server faults and slowness fail. */
export type RawRequest = { method: string; url: string; headers: Record<string, string>; body?: string; label: string };

const SANDBOX_BODY_KEYS = [
  'qr',
  'channel_id',
  'from',
  'type',
  'content',
  'text',
  'to',
  'messaging_product',
  'phone_number_id',
  'code',
  'pin',
  'name',
  'language',
  'components',
  'session',
  'webhook',
  'callback_url',
  'status',
  'id',
  // /sandbox/call, /sandbox/call/end; the gateway's profile calls
  'video',
  'call_id',
  'group',
  'about',
  'data',
  'mime_type',
  'last_seen',
  // /sandbox/template-event
  'event',
  'reason',
  'other_info',
  'rejection_info',
  'disable_date',
];

/** Requests for the sandbox's hidden routes, built from the server's route table. */
export function sandboxRequestFor(ctx: ValueContext, route: { method: string; url: string }): fc.Arbitrary<RawRequest> {
  const params = [...route.url.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
  const value = fc.oneof(
    anyString,
    wrongType,
    urlValues(ctx),
    fc.constantFrom(...(ctx.ids.channel ?? ['x'])),
    fc.jsonValue({ maxDepth: 3 }),
  );
  const body = fc.oneof(
    fc.dictionary(fc.constantFrom(...SANDBOX_BODY_KEYS), value, { maxKeys: 5 }).map(toJsonText),
    fc.constantFrom('{"qr":"\\u0000"}', '{"a":', '[]', 'null', RAW_VALUES['\u0001deep-array\u0001']!),
  );
  const pathValues = fc.tuple(
    ...params.map(() =>
      fc.oneof(
        fc.constantFrom(...(ctx.ids.channel ?? ['x']), 'v21.0', 'default'),
        fc.string({ minLength: 1, maxLength: 20 }),
        fc.constantFrom(...NASTY_STRINGS.filter((s) => s && s.length < 100)),
      ),
    ),
  );
  const query = fc.option(
    fc.dictionary(
      fc.constantFrom('access_token', 'fields', 'code', 'client_id', 'input_token', 'limit', 'after'),
      anyString.filter((s) => s.length < 1000),
      { maxKeys: 3 },
    ),
    { nil: undefined },
  );
  return fc.tuple(pathValues, body, query).map(([ps, b, q]) => {
    let url = route.url;
    params.forEach((name, i) => {
      url = url.replace(`:${name}`, encodeAny(ps[i]!));
    });
    url = url.replace('*', 'x');
    if (q)
      url += `?${Object.entries(q as Record<string, string>)
        .map(([k, v]) => `${k}=${encodeAny(v)}`)
        .join('&')}`;
    const hasBody = route.method !== 'GET' && route.method !== 'HEAD';
    return {
      method: route.method,
      url,
      headers: {
        accept: 'application/json',
        ...(hasBody ? { 'content-type': 'application/json' } : {}),
        authorization: 'Bearer sandbox-token-x',
      },
      body: hasBody ? b : undefined,
      label: `${route.method} ${route.url}`,
    };
  });
}

type Sent = { status: number; contentType: string | null; text: string; ms: number };

async function sendOne(
  dispatcher: Agent,
  baseUrl: string,
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
): Promise<Sent> {
  const started = performance.now();
  const res = await undiciRequest(baseUrl + url, {
    method: method as 'GET',
    headers,
    body,
    dispatcher,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const ct = res.headers['content-type'];
  const text = String(ct).startsWith('text/event-stream') ? await firstEvents(res.body) : await res.body.text();
  return { status: res.statusCode, contentType: Array.isArray(ct) ? ct[0]! : (ct ?? null), text, ms: performance.now() - started };
}

/**
 * A stream (GET /v1/events/stream) stays open: its answer is read up to its first blank line (the
 * `retry:` hint the server writes at once), then the connection is closed, as a client going away.
 */
async function firstEvents(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  let text = '';
  for await (const chunk of body) {
    text += chunk.toString('utf8');
    if (text.includes('\n\n')) break;
  }
  body.destroy();
  return text;
}

let gc: (() => void) | undefined;
function forceGc(): void {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}

/**
 * Requests that once broke the server (issue 9, item 10), sent first on every run whatever the seed:
 * forged cursors on every list, NUL and lone surrogates, 10,000-deep custom fields, an empty assignee,
 * an unparsable display number, a NUL in a QR code.
 */
export function regressionRequests(ops: Operation[], fixtures: Fixtures): Array<FuzzRequest | RawRequest> {
  const out: Array<FuzzRequest | RawRequest> = [];
  const headers = { accept: 'application/json', 'x-api-key': fixtures.apiKey };
  const json = { ...headers, 'content-type': 'application/json' };
  const op = (id: string) => ops.find((o) => o.id === id);
  const add = (id: string, url: string, body?: string) => {
    const found = op(id);
    if (found) out.push({ op: found, url, headers: body === undefined ? headers : json, body });
  };
  const forged = FORGED_CURSORS[0]!;
  for (const list of ops.filter((o) => o.method === 'GET' && o.query.some((q) => q.name === 'cursor'))) {
    const path = list.pathParams.reduce(
      (p, name) => p.replace(`{${name}}`, encodeURIComponent(idsForParam(fixtures, name)[0] ?? 'x')),
      list.path,
    );
    add(list.id, `${path}?cursor=${forged}`);
  }
  const contact = fixtures.ids.contact?.[0] ?? 'x';
  const conversation = fixtures.ids.conversation?.[0] ?? 'x';
  add(
    'POST /v1/contacts',
    '/v1/contacts',
    `{"phone_number":"+4915112345099","custom_fields":{"a":${RAW_VALUES['\u0001deep-object\u0001']}}}`,
  );
  add('POST /v1/contacts', '/v1/contacts', JSON.stringify({ phone_number: '+4915112345098', name: 'a\u0000b' }));
  add('PATCH /v1/contacts/{contactID}', `/v1/contacts/${contact}`, JSON.stringify({ name: 'x\udfffy' }));
  add('GET /v1/contacts', '/v1/contacts?search=%00');
  add('POST /v1/contacts/{contactID}/notes', `/v1/contacts/${contact}/notes`, JSON.stringify({ body: 'a\u0000b' }));
  add('PATCH /v1/conversations/{conversationID}', `/v1/conversations/${conversation}`, JSON.stringify({ assignee_user_id: '' }));
  add('GET /v1/conversations', '/v1/conversations?q=%00');
  add('GET /v1/conversations', '/v1/conversations?q=%25_%5C&assignee=me&unread=true');
  add('POST /v1/channels', '/v1/channels', JSON.stringify({ platform: 'chatapp_unofficial', name: 'x', display_phone_number: '.(' }));
  add('POST /v1/channels', '/v1/channels', JSON.stringify({ platform: 'chatapp_unofficial', name: 'a\u0000b' }));
  add(
    'POST /v1/settings/developer/webhooks/endpoints',
    '/v1/settings/developer/webhooks/endpoints',
    JSON.stringify({ url: 'http://127.0.0.1:1/x', description: 'a\u0000b' }),
  );
  out.push({
    method: 'POST',
    url: '/sandbox/gateway/scan',
    headers: { 'content-type': 'application/json' },
    body: '{"qr":"\\u0000"}',
    label: 'POST /sandbox/gateway/scan',
  });
  out.push({
    method: 'POST',
    url: '/sandbox/gateway/link',
    headers: { 'content-type': 'application/json' },
    body: '{"code":"\\u0000","phone":"+15550100000"}',
    label: 'POST /sandbox/gateway/link',
  });
  return out;
}

function idsForParam(fixtures: Fixtures, name: string): string[] {
  return fixtures.ids[name.replace(/_?id$/i, '').toLowerCase()] ?? [];
}

/** Runs the fuzzer: operations in round-robin order (so each gets its share), a small pool at a time. */
export async function runContractFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const { server, fixtures, requests, seed, concurrency, closedPort } = options;
  const timeLimitMs = options.timeLimitMs ?? 5000;
  const docRes = await fetch(`${server.baseUrl}/v1/openapi.json`);
  const doc = (await docRes.json()) as Doc;
  const validator = validatorFor(doc);
  const ops = operationsOf(doc);
  const ctx: ValueContext = { loopbackUrl: `http://127.0.0.1:${closedPort}`, ids: fixtures.ids };
  const sandboxRoutes = server.app.routeSummaries.filter((r) => r.url.startsWith('/sandbox/') && r.method !== 'HEAD');

  const arbitraries: Array<{ kind: 'doc'; arb: fc.Arbitrary<FuzzRequest> } | { kind: 'raw'; arb: fc.Arbitrary<RawRequest> }> = [
    ...ops.map((op) => ({ kind: 'doc' as const, arb: requestFor(doc, ctx, fixtures, op) })),
    ...sandboxRoutes.map((r) => ({ kind: 'raw' as const, arb: sandboxRequestFor(ctx, r) })),
  ];
  const report: FuzzReport = { sent: 0, byStatus: {}, byOperation: {}, failures: [], slowestMs: 0, heapGrowthMb: 0, rssGrowthMb: 0 };
  const dispatcher = new Agent({ connections: concurrency * 2, pipelining: 0 });
  const batch = 16;
  let next = 0;
  let baseline: NodeJS.MemoryUsage | undefined;
  const warmup = Math.min(1000, Math.floor(requests / 10));

  // Each slot of the schedule is (operation, sample index); samples come in small batches per operation, from a seed of their own.
  const pending = new Map<number, unknown[]>();
  const sampleFor = (opIndex: number, round: number): unknown => {
    const key = opIndex * 1_000_000 + Math.floor(round / batch);
    let values = pending.get(key);
    if (!values) {
      values = fc.sample(arbitraries[opIndex]!.arb as fc.Arbitrary<unknown>, { seed: seed + key, numRuns: batch });
      pending.set(key, values);
    }
    const value = values[round % batch];
    if (round % batch === batch - 1) pending.delete(key);
    return value;
  };

  const regressions = regressionRequests(ops, fixtures);
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= requests) return;
      if (i < regressions.length) {
        const req = regressions[i]!;
        const isDoc = 'op' in req;
        try {
          const answer = await sendOne(
            dispatcher,
            server.baseUrl,
            isDoc ? req.op.method : req.method,
            req.url,
            req.headers,
            req.body,
            timeLimitMs * 4,
          );
          report.byStatus[answer.status] = (report.byStatus[answer.status] ?? 0) + 1;
          if (isDoc)
            report.failures.push(...checkAnswer(validator, req, answer.status, answer.contentType, answer.text, answer.ms, timeLimitMs));
          else if (answer.status >= 500)
            report.failures.push({
              kind: '5xx',
              operation: req.label,
              status: answer.status,
              detail: answer.text.slice(0, 300),
              request: `${req.method} ${req.url} body=${req.body}`,
            });
        } catch (error) {
          report.failures.push({
            kind: 'no answer',
            operation: isDoc ? req.op.id : req.label,
            status: 0,
            detail: String(error),
            request: req.url,
          });
        }
        report.sent++;
        continue;
      }
      if (i === warmup) {
        forceGc();
        baseline = process.memoryUsage();
      }
      const opIndex = i % arbitraries.length;
      const round = Math.floor(i / arbitraries.length);
      const entry = arbitraries[opIndex]!;
      const value = sampleFor(opIndex, round);
      try {
        if (entry.kind === 'doc') {
          const req = value as FuzzRequest;
          const answer = await sendOne(dispatcher, server.baseUrl, req.op.method, req.url, req.headers, req.body, timeLimitMs * 4);
          report.byStatus[answer.status] = (report.byStatus[answer.status] ?? 0) + 1;
          const perOp = (report.byOperation[req.op.id] ??= {});
          perOp[answer.status] = (perOp[answer.status] ?? 0) + 1;
          report.slowestMs = Math.max(report.slowestMs, answer.ms);
          report.failures.push(...checkAnswer(validator, req, answer.status, answer.contentType, answer.text, answer.ms, timeLimitMs));
        } else {
          const req = value as RawRequest;
          const answer = await sendOne(dispatcher, server.baseUrl, req.method, req.url, req.headers, req.body, timeLimitMs * 4);
          report.byStatus[answer.status] = (report.byStatus[answer.status] ?? 0) + 1;
          report.slowestMs = Math.max(report.slowestMs, answer.ms);
          const request = `${req.method} ${req.url.slice(0, 200)} body=${(req.body ?? '').slice(0, 200)}`;
          if (answer.status >= 500)
            report.failures.push({ kind: '5xx', operation: req.label, status: answer.status, detail: answer.text.slice(0, 300), request });
          if (answer.ms > timeLimitMs)
            report.failures.push({
              kind: 'slow',
              operation: req.label,
              status: answer.status,
              detail: `${Math.round(answer.ms)} ms`,
              request,
            });
        }
      } catch (error) {
        report.failures.push({
          kind: 'no answer',
          operation: entry.kind === 'doc' ? (value as FuzzRequest).op.id : (value as RawRequest).label,
          status: 0,
          detail: String(error),
          request: '',
        });
      }
      report.sent++;
      if (report.sent % 1000 === 0) options.progress?.(report.sent);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await dispatcher.destroy();
  forceGc();
  const end = process.memoryUsage();
  if (baseline) {
    report.heapGrowthMb = (end.heapUsed - baseline.heapUsed) / 2 ** 20;
    report.rssGrowthMb = (end.rss - baseline.rss) / 2 ** 20;
  }
  return report;
}

/** The cause of a failure, as far as its answer tells: the error code it carries, else the start of its detail. */
function causeOf(f: Failure): string {
  const code = /"code":"([^"]+)"/.exec(f.detail)?.[1];
  if (code) return `code ${code}`;
  return f.detail
    .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/gi, '<id>')
    .replace(/\d+/g, 'N')
    .slice(0, 80);
}

/** Failures grouped by cause (kind, status, error code), each with a count, the operations and one example. */
export function summarize(failures: Failure[]): string {
  const groups = new Map<string, { count: number; operations: Set<string>; example: Failure }>();
  for (const f of failures) {
    // Server faults are told apart by operation too: one cause each is the likely story.
    const key = `${f.kind} | ${f.status} | ${causeOf(f)}${f.kind === '5xx' ? ` | ${f.operation}` : ''}`;
    const g = groups.get(key);
    if (g) {
      g.count++;
      g.operations.add(f.operation);
    } else groups.set(key, { count: 1, operations: new Set([f.operation]), example: f });
  }
  return [...groups.entries()]
    .sort((a, b) => b[1].count - a[1].count)
    .map(([key, g]) => {
      const ops = [...g.operations];
      return `${key} x${g.count} on ${ops.length} operation(s): ${ops.slice(0, 6).join(', ')}${ops.length > 6 ? ', …' : ''}\n    e.g. ${g.example.request}\n    -> ${g.example.detail}`;
    })
    .join('\n');
}
