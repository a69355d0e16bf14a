/**
 * The error side of the OpenAPI document, added to every operation in one place: the statuses any
 * route can answer whatever its handler does (credentials, the X-Organization-Id header, body limits,
 * rate limits, an unavailable database), each in the body shape and media type the route really
 * sends (http/errors.ts): problem bodies as application/problem+json, the contacts routes' `{error,
 * code}` and the OAuth routes' `{error, error_description}` as application/json, each status with
 * examples of its own refusals (http/examples.ts). Then the finishing of the whole document: one
 * component schema per shape, and an example for every response.
 */
import { isDeepStrictEqual } from 'node:util';
import type { FastifySchema } from 'fastify';
import type { SwaggerTransform } from '@fastify/swagger';
import { z } from 'zod';
import { presentError, type ErrorShape } from './errors.ts';
import { IDEMPOTENCY_HOURS } from '../domain/messages/accept.ts';
import type { IdempotencyMode } from './idempotency.ts';
import { IDEMPOTENCY_KEY } from './idempotency-key.ts';
import { OPERATION_IDS } from './operation-ids.ts';
import { errorExamples, type ErrorContext } from './error-examples.ts';
import { EXAMPLE_REQUEST_ID, OPERATION_EXAMPLES, SCHEMA_EXAMPLES } from './examples.ts';

type JsonSchema = Record<string, unknown>;
type RouteSchema = { response?: Record<string, JsonSchema>; hide?: boolean; [key: string]: unknown };

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  410: 'Gone',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

const RETRY_AFTER = { type: 'string', description: 'Seconds to wait before retrying' };

/**
 * The request limits' fields (draft-ietf-httpapi-ratelimit-headers-06; http/rate-limit.ts), on every counted response.
 * Each is the header's schema with its description: @fastify/swagger wraps it as `{description, schema}` (a
 * `schema` here would be nested in another).
 */
const RATE_LIMIT_HEADERS = {
  'ratelimit-limit': {
    type: 'string',
    description: 'Requests allowed in the window of the limit closest to being reached',
    example: '6000',
  },
  'ratelimit-remaining': { type: 'string', description: 'Requests left in that window', example: '0' },
  'ratelimit-reset': { type: 'string', description: 'Seconds until that window ends', example: '42' },
  'ratelimit-policy': { type: 'string', description: 'The limit and its window in seconds', example: '6000;w=60' },
};

const SHAPES: Record<string, ErrorShape> = { Problem: 'problem', CodeError: 'code', OAuthError: 'oauth' };

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The shape an error of this status is written in (app.ts's error handler): the contacts routes' credential failures are problems. */
function bodyShapeOf(status: number, shape: ErrorShape): ErrorShape {
  return shape === 'code' && (status === 401 || status === 403) ? 'problem' : shape;
}

/** The media type and schema of an error body in the given shape. */
function errorBody(status: number, shape: ErrorShape): { media: string; schema: JsonSchema } {
  const written = bodyShapeOf(status, shape);
  if (written === 'problem') return { media: 'application/problem+json', schema: ref('Problem') };
  return { media: 'application/json', schema: ref(written === 'code' ? 'CodeError' : 'OAuthError') };
}

/** The error statuses a route answers before (or whatever) its handler runs. */
export function commonErrorStatuses(method: string, isPublic: boolean, takesInput = false): number[] {
  const statuses = [414, 429, 500, 503];
  // A credential is looked at (and X-Organization-Id checked) on every route that is not public.
  if (!isPublic) statuses.push(400, 401, 403);
  // Path parameters and queries are validated (and a malformed path refused) on public routes too.
  if (takesInput) statuses.push(400);
  if (method !== 'GET' && method !== 'HEAD') statuses.push(400, 413, 415);
  return [...new Set(statuses)].sort();
}

/** An examples map of a media type: one entry per example, keyed by a name made of its summary. */
function examplesOf(entries: Array<{ summary?: string; value: unknown }>): JsonSchema {
  return Object.fromEntries(
    entries.map((e, i) => [e.summary ? e.summary.toLowerCase().replace(/[^a-z0-9]+/g, '_') : `example_${i + 1}`, e]),
  );
}

function errorResponse(status: number, shape: ErrorShape, context: ErrorContext, description?: string): JsonSchema {
  const { media, schema } = errorBody(status, shape);
  const examples = errorExamples(status, context);
  const bodyShape = bodyShapeOf(status, shape);
  const retryAfter = examples.find((e) => e.retryAfter !== undefined)?.retryAfter;
  return {
    description: description ?? TITLES[status] ?? 'Error',
    content: {
      [media]: {
        schema,
        examples: examplesOf(
          examples.map((e) => ({ summary: e.summary, value: presentError(e.error, bodyShape, EXAMPLE_REQUEST_ID).body })),
        ),
      },
    },
    ...(status === 429 || status === 503
      ? { headers: { 'retry-after': { ...RETRY_AFTER, example: String(retryAfter ?? 5) }, ...(status === 429 ? RATE_LIMIT_HEADERS : {}) } }
      : {}),
  };
}

/** The first required member of a zod object body (or of the object a nullable body holds; else its first member), with its JSON type. */
function firstRequiredField(body: unknown): ErrorContext['bodyField'] {
  if (!(body instanceof z.ZodType)) return undefined;
  let json: JsonSchema;
  try {
    json = z.toJSONSchema(body, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  } catch {
    return undefined;
  }
  // A schema with an id comes back as a $ref into $defs.
  const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
  const resolve = (s: JsonSchema): JsonSchema => (typeof s.$ref === 'string' ? (defs[s.$ref.split('/').pop()!] ?? {}) : s);
  const root = resolve(json);
  const object = (Array.isArray(root.anyOf) ? (root.anyOf as JsonSchema[]).map(resolve).find((s) => s.type === 'object') : root) ?? {};
  const required = (object.required as string[] | undefined)?.[0];
  const name = required ?? Object.keys((object.properties as Record<string, JsonSchema> | undefined) ?? {})[0];
  if (!name) return undefined;
  const member = resolve((object.properties as Record<string, JsonSchema>)[name] ?? {});
  const type = [member.type].flat().find((t) => typeof t === 'string' && t !== 'null') ?? 'string';
  return { name, type: String(type), required: required !== undefined };
}

/**
 * Wraps the zod transform: error responses a route declares get the media type it really sends,
 * and the common error statuses are added where the route does not declare them.
 */
export function withErrorResponses(transform: SwaggerTransform<FastifySchema>): SwaggerTransform<FastifySchema> {
  return (input) => {
    const output = transform(input);
    const schema = output.schema as RouteSchema | undefined;
    if (!schema || schema.hide) return output;
    const config = input.route?.config as
      | { auth?: Record<string, unknown>; errorShape?: ErrorShape; idempotency?: IdempotencyMode }
      | undefined;
    const shape = config?.errorShape ?? 'problem';
    const auth = config?.auth;
    const isPublic = Boolean(auth && 'public' in auth);
    const method = [input.route?.method ?? 'GET'].flat()[0]!.toUpperCase();
    const querystring = input.schema?.querystring;
    const context: ErrorContext = {
      operation: `${method} ${input.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`,
      public: isPublic,
      sessionOnly: Boolean(auth?.sessionOnly),
      permission: typeof auth?.permission === 'string' ? auth.permission : undefined,
      bodyField: firstRequiredField(input.schema?.body),
      pagedQuery: querystring instanceof z.ZodObject && 'limit' in querystring.shape,
    };
    // Every authenticated POST and PATCH takes Idempotency-Key (http/idempotency.ts); POST /v1/messages documents its own.
    const takesKey = !isPublic && !auth?.optional && (method === 'POST' || method === 'PATCH') && config?.idempotency !== 'own';
    if (takesKey) {
      context.idempotency = config?.idempotency === 'no-replay' ? 'no-replay' : 'replay';
      context.conflicts = Boolean(schema.response && '409' in schema.response);
    }
    const response: Record<string, JsonSchema> = { ...schema.response };
    for (const [status, declared] of Object.entries(response)) {
      const name = typeof declared.$ref === 'string' ? declared.$ref.split('/').pop() : undefined;
      if (Number(status) < 400 || !name || !(name in SHAPES)) continue;
      response[status] = errorResponse(
        Number(status),
        SHAPES[name]!,
        context,
        typeof declared.description === 'string' ? declared.description : undefined,
      );
    }
    const takesInput = Boolean(input.schema?.params || querystring || /\/:/.test(input.url));
    for (const status of commonErrorStatuses(method, isPublic, takesInput)) {
      response[String(status)] ??= errorResponse(status, shape, context);
    }
    // The server answers an oversized header block before any route is known (http/client-error.ts): a problem on every route.
    response['431'] ??= errorResponse(431, 'problem', context);
    if (takesKey) response['409'] ??= errorResponse(409, shape, context);
    const headers = takesKey ? withIdempotencyKeyHeader(schema.headers as JsonSchema | undefined, context.idempotency!) : schema.headers;
    const operationId = OPERATION_IDS[context.operation];
    return {
      ...output,
      schema: { ...schema, response, ...(headers ? { headers } : {}), ...(operationId ? { operationId } : {}) } as FastifySchema,
    };
  };
}

/** The Idempotency-Key header parameter of an authenticated POST or PATCH, beside the headers the route declares. */
function withIdempotencyKeyHeader(headers: JsonSchema | undefined, mode: 'replay' | 'no-replay'): JsonSchema {
  const description =
    mode === 'replay'
      ? `Makes a retry safe: the same key with the same request within ${IDEMPOTENCY_HOURS} hours answers the first request's status and body again, with \`Idempotent-Replayed: true\`, and does nothing again; with another request it is 409. Answers of 5xx and 429 are not kept. Keys belong to the credential.`
      : `Makes a retry safe: the same key with the same request within ${IDEMPOTENCY_HOURS} hours does nothing again. The answer held a secret shown once, so it is not kept: a retry of a request that succeeded is a 409 saying so (read the record instead). Keys belong to the credential.`;
  const properties = (headers?.properties as Record<string, JsonSchema> | undefined) ?? {};
  return {
    ...(headers ?? { type: 'object' }),
    properties: {
      ...properties,
      'idempotency-key': { type: 'string', pattern: IDEMPOTENCY_KEY.source, maxLength: 255, description },
    },
  };
}

const SCHEMA_REF = '#/components/schemas/';

type Document = { paths?: Record<string, Record<string, JsonSchema>>; components?: { schemas?: Record<string, JsonSchema> } };

/** Calls visit with every `$ref` under value and stores what it returns in its place. */
function mapRefs(value: unknown, visit: (ref: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => mapRefs(v, visit));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? visit(v) : mapRefs(v, visit)]),
  );
}

function refsUnder(value: unknown): string[] {
  const names: string[] = [];
  mapRefs(value, (ref) => {
    if (ref.startsWith(SCHEMA_REF)) names.push(ref.slice(SCHEMA_REF.length));
    return ref;
  });
  return names;
}

/**
 * One component schema per shape. fastify-type-provider-zod emits every schema registered with an id
 * twice, `X` as responses give it (output: objects hold nothing else, `additionalProperties: false`)
 * and `XInput` as requests may send it (input: unknown members are accepted and dropped), whether or
 * not both are used. Here only the schemas the operations reach are kept, and an input variant
 * takes its shape's own name unless the output variant is used too and really differs (then both
 * stay, `XInput` being the shape as a request sends it).
 */
function oneSchemaPerShape(document: Document): void {
  const schemas = document.components?.schemas;
  if (!schemas) return;
  const used = new Set<string>();
  const pending = refsUnder({ ...document, components: { ...document.components, schemas: {} } });
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (used.has(name) || !schemas[name]) continue;
    used.add(name);
    pending.push(...refsUnder(schemas[name]));
  }
  const rename = new Map<string, string>();
  const renamed = (value: unknown) =>
    mapRefs(value, (ref) =>
      ref.startsWith(SCHEMA_REF) ? SCHEMA_REF + (rename.get(ref.slice(SCHEMA_REF.length)) ?? ref.slice(SCHEMA_REF.length)) : ref,
    );
  // Equal twins may hold refs to other twins: merge until nothing changes.
  for (let changed = true; changed; ) {
    changed = false;
    for (const name of used) {
      const base = name.replace(/Input$/, '');
      if (base === name || rename.has(name) || !schemas[base]) continue;
      if (!used.has(base) || isDeepStrictEqual(renamed(schemas[name]), renamed(schemas[base]))) {
        rename.set(name, base);
        changed = true;
      }
    }
  }
  const kept: Record<string, JsonSchema> = {};
  for (const name of [...used].sort()) {
    const target = rename.get(name) ?? name;
    if (target !== name && used.has(target)) continue;
    kept[target] = renamed(schemas[name]) as JsonSchema;
  }
  document.components!.schemas = kept;
  if (document.paths) document.paths = renamed(document.paths) as Document['paths'];
}

/** An example of a schema: the record of a named shape, else put together from its members; undefined if nothing tells a realistic value. */
function exampleOf(schema: unknown, schemas: Record<string, JsonSchema>): unknown {
  if (!schema || typeof schema !== 'object') return undefined;
  const s = schema as JsonSchema;
  if (typeof s.$ref === 'string') {
    const component = schemas[s.$ref.slice(SCHEMA_REF.length)];
    return exampleOf(component, schemas);
  }
  if ('example' in s) return s.example;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  const branches = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(branches)) {
    for (const branch of branches) {
      const value = branch.type === 'null' ? undefined : exampleOf(branch, schemas);
      if (value !== undefined) return value;
    }
    return branches.some((b) => b.type === 'null') ? null : undefined;
  }
  const types = [s.type].flat();
  if (types.includes('object') || s.properties) {
    const required = new Set((s.required as string[] | undefined) ?? []);
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries((s.properties as Record<string, JsonSchema> | undefined) ?? {})) {
      const value = exampleOf(member, schemas);
      if (value === undefined) {
        if (required.has(key)) return undefined;
        continue;
      }
      out[key] = value;
    }
    return out;
  }
  if (types.includes('array')) {
    const item = exampleOf(s.items, schemas);
    return item === undefined ? undefined : [item];
  }
  return types.includes('null') ? null : undefined;
}

const EXAMPLE_REF = '#/components/examples/';

/**
 * An error example that several responses show alike (a 429, a 503, the X-Organization-Id 400) is
 * kept once in components.examples, named after its summary and body shape, and referenced.
 */
function shareRepeatedExamples(document: Document & { components?: { examples?: Record<string, JsonSchema> } }): void {
  const medias: Array<Record<string, JsonSchema>> = [];
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const response of Object.values((operation.responses ?? {}) as Record<string, { content?: Record<string, JsonSchema> }>)) {
        for (const media of Object.values(response.content ?? {}))
          if (media.examples) medias.push(media.examples as Record<string, JsonSchema>);
      }
    }
  }
  const count = new Map<string, number>();
  for (const examples of medias) {
    for (const example of Object.values(examples))
      if (example.summary) count.set(JSON.stringify(example), (count.get(JSON.stringify(example)) ?? 0) + 1);
  }
  const shared: Record<string, JsonSchema> = {};
  const names = new Map<string, string>();
  for (const examples of medias) {
    for (const [key, example] of Object.entries(examples)) {
      const id = JSON.stringify(example);
      if ((count.get(id) ?? 0) < 2) continue;
      let name = names.get(id);
      if (!name) {
        const value = example.value as Record<string, unknown>;
        const base =
          String(example.summary).replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_m, _sep, c: string) => c.toUpperCase()) +
          ('type' in value ? 'Problem' : 'CodeError');
        name = base;
        for (let n = 2; shared[name]; n++) name = `${base}${n}`;
        shared[name] = example;
        names.set(id, name);
      }
      examples[key] = { $ref: EXAMPLE_REF + name };
    }
  }
  if (Object.keys(shared).length > 0) document.components = { ...document.components, examples: shared };
}

/**
 * Finishes the document as a reference: one schema per shape, each response shape's record
 * (http/examples.ts) on its component, and an example on every response that has a body and none yet.
 */
export function asReference<T>(input: T): T {
  const document = input as Document;
  oneSchemaPerShape(document);
  const schemas = document.components?.schemas ?? {};
  for (const [name, example] of Object.entries(SCHEMA_EXAMPLES)) {
    if (schemas[name]) schemas[name].examples ??= [example];
  }
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      const responses = (operation.responses ?? {}) as Record<string, { content?: Record<string, JsonSchema> }>;
      for (const [status, response] of Object.entries(responses)) {
        for (const media of Object.values(response.content ?? {})) {
          if (media.examples || media.example !== undefined) continue;
          const value = OPERATION_EXAMPLES[`${method.toUpperCase()} ${path}`]?.[status] ?? exampleOf(media.schema, schemas);
          if (value !== undefined) media.examples = examplesOf([{ value }]);
        }
      }
    }
  }
  shareRepeatedExamples(document);
  return input;
}
