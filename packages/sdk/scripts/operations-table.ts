/**
 * The SDK's table of operations, made from the OpenAPI document: for each operationId its method,
 * path, tag, the client group and method name it becomes (or none: excluded from the groups, still
 * reachable through `parley.request`), its parameters by location, its body's and answer's media
 * types, and whether it is a list that pages by `cursor`. Pure: the document in, the entries out.
 */

type Json = Record<string, any>;

export type BodyKind = 'json' | 'form' | 'multipart' | 'text';
export type AnswerKind = 'json' | 'text' | 'blob' | 'stream' | 'none';

export type OperationEntry = {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  tag: string;
  /** The client's group (the tag in camelCase), or null when the operation is left out of the groups. */
  group: string | null;
  /** The method's name in its group, or null with the group. */
  name: string | null;
  /** Why it is out of the groups (null when it is in one). */
  excluded: string | null;
  pathParams: string[];
  query: string[];
  headers: string[];
  /** The request body's media type (the first the document lists), and how the client writes it; null without a body. */
  body: { media: string; kind: BodyKind; required: boolean } | null;
  /** How the client reads a success. */
  answer: AnswerKind;
  /** A list paged by `cursor` (answers `{data, meta: {next_cursor}}`). */
  list: boolean;
  /** The operation declares the Idempotency-Key header: the service answers a repeated key with the first outcome. */
  idempotencyKey: boolean;
};

/** Tags whose operations integrators never call. */
const EXCLUDED_TAGS: Record<string, string> = {
  'provider webhooks': 'called by the chat providers, not by integrators',
  auth: 'the dashboard’s account flows (a session cookie: sign-in, sign-up, sessions, password)',
};

/** Names of the arguments' own fields, which no parameter may take. */
export const RESERVED_ARGUMENTS = ['body', 'signal', 'headers', 'idempotencyKey'];

/**
 * Method names kept whole: the operationId stays the name when what is left after the group's noun is
 * a reserved word of JavaScript (`contacts.importContacts`, not `contacts.import`), except `delete`,
 * which Map, Set and most SDKs use as a method name.
 */
const RESERVED_WORDS = new Set([
  'break',
  'case',
  'catch',
  'class',
  'const',
  'continue',
  'debugger',
  'default',
  'do',
  'else',
  'enum',
  'export',
  'extends',
  'false',
  'finally',
  'for',
  'function',
  'if',
  'import',
  'in',
  'instanceof',
  'new',
  'null',
  'return',
  'super',
  'switch',
  'this',
  'throw',
  'true',
  'try',
  'typeof',
  'var',
  'void',
  'while',
  'with',
  'yield',
]);

/** `api-keys` → `apiKeys`, `oauth-clients` → `oauthClients`. */
export function groupName(tag: string): string {
  return tag.replace(/[-\s]+([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** The group's noun, plural then singular, lower case without separators: `apikeys`, `apikey`. */
function nounsOf(tag: string): string[] {
  const plural = tag.replace(/[-\s]+/g, '').toLowerCase();
  const singular = plural.endsWith('ies') ? `${plural.slice(0, -3)}y` : plural.endsWith('s') ? plural.slice(0, -1) : plural;
  return plural === singular ? [plural] : [plural, singular];
}

const isUpper = (c: string | undefined) => c !== undefined && c >= 'A' && c <= 'Z';

/**
 * The method name: the operationId without its group's noun (first whole-word match, plural before
 * singular, case aside): `sendMessage` → `send`, `getMessageStatus` → `getStatus`,
 * `createWebhookEndpoint` → `createEndpoint`, `rotateOAuthClientSecret` → `rotateSecret`.
 */
export function methodName(operationId: string, tag: string): string {
  const lower = operationId.toLowerCase();
  for (const noun of nounsOf(tag)) {
    for (let at = lower.indexOf(noun, 1); at > 0; at = lower.indexOf(noun, at + 1)) {
      const end = at + noun.length;
      if (!isUpper(operationId[at]) || (end < operationId.length && !isUpper(operationId[end]))) continue;
      const name = operationId.slice(0, at) + operationId.slice(end);
      return RESERVED_WORDS.has(name) ? operationId : name;
    }
  }
  return operationId;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

function bodyKind(media: string): BodyKind {
  if (media === 'application/json' || media.endsWith('+json')) return 'json';
  if (media === 'application/x-www-form-urlencoded') return 'form';
  if (media === 'multipart/form-data') return 'multipart';
  return 'text';
}

function answerKind(operation: Json): AnswerKind {
  const successes = Object.entries(operation.responses as Json).filter(([status]) => /^2\d\d$/.test(status));
  const medias = successes.flatMap(([, response]) => Object.keys((response as Json).content ?? {}));
  if (medias.length === 0) return 'none';
  if (medias.some((m) => m === 'application/json' || m.endsWith('+json'))) return 'json';
  if (medias.includes('text/event-stream')) return 'stream';
  if (medias.every((m) => m.startsWith('text/'))) return 'text';
  return 'blob';
}

/** Why an operation is left out of the client's groups, or null. */
function exclusionOf(operation: Json, tag: string): string | null {
  if (EXCLUDED_TAGS[tag]) return EXCLUDED_TAGS[tag];
  const security = operation.security as Json[] | undefined;
  if (security?.length === 1 && Object.keys(security[0]!).join() === 'session') return 'the dashboard only (a session cookie)';
  const statuses = Object.keys(operation.responses as Json).filter((s) => /^[23]\d\d$/.test(s));
  if (statuses.length > 0 && statuses.every((s) => s.startsWith('3'))) return 'a browser navigation (answers a redirect)';
  return null;
}

/** The table, in the document's order; throws when the document breaks a rule the client relies on. */
export function operationsTable(document: Json): OperationEntry[] {
  const entries: OperationEntry[] = [];
  const problems: string[] = [];
  for (const [path, item] of Object.entries(document.paths as Json)) {
    for (const method of METHODS) {
      const operation = (item as Json)[method] as Json | undefined;
      if (!operation) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const operationId = operation.operationId as string | undefined;
      const tag = (operation.tags as string[] | undefined)?.[0];
      if (!operationId || !tag) {
        problems.push(`${where} has no ${operationId ? 'tag' : 'operationId'}`);
        continue;
      }
      const parameters = (operation.parameters ?? []) as Json[];
      const named = (location: string) => parameters.filter((p) => p.in === location).map((p) => p.name as string);
      const query = named('query');
      const pathParams = named('path');
      for (const name of [...query, ...pathParams]) {
        if (RESERVED_ARGUMENTS.includes(name)) problems.push(`${where}: the parameter ${name} takes the name of an argument field`);
      }
      if (query.some((q) => pathParams.includes(q))) problems.push(`${where}: a query parameter shares a path parameter's name`);
      const requestBody = operation.requestBody as Json | undefined;
      const media = requestBody ? Object.keys(requestBody.content ?? {})[0] : undefined;
      const excluded = exclusionOf(operation, tag);
      entries.push({
        operationId,
        method: method.toUpperCase() as OperationEntry['method'],
        path,
        tag,
        group: excluded ? null : groupName(tag),
        name: excluded ? null : methodName(operationId, tag),
        excluded,
        pathParams,
        query,
        headers: named('header'),
        body: media ? { media, kind: bodyKind(media), required: requestBody!.required === true } : null,
        answer: answerKind(operation),
        list: query.includes('cursor') && answerKind(operation) === 'json',
        idempotencyKey: named('header').includes('idempotency-key'),
      });
    }
  }
  const seen = new Map<string, string>();
  for (const entry of entries) {
    if (!entry.group) continue;
    const key = `${entry.group}.${entry.name}`;
    if (seen.has(key)) problems.push(`${entry.operationId} and ${seen.get(key)} both become ${key}`);
    seen.set(key, entry.operationId);
  }
  if (problems.length > 0) throw new Error(`the OpenAPI document does not fit the SDK:\n  ${problems.join('\n  ')}`);
  return entries;
}
