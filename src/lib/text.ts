/**
 * What PostgreSQL can store: text and jsonb refuse the NUL character, and a lone UTF-16 surrogate
 * has no UTF-8 form. Input is checked once where it enters (request validation, imports, provider
 * deliveries), so such a string is a 400 naming the field rather than a failed statement.
 */

/** How deep objects and arrays may nest in input: deeper is refused before anything walks it recursively. */
export const MAX_NESTING_DEPTH = 32;

/** True when PostgreSQL can store the string as text or inside jsonb. */
export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && value.isWellFormed();
}

export type UnstorableInput = { kind: 'text' | 'depth'; path: Array<string | number>; message: string };

const NOT_STORABLE = 'must not contain the NUL character or unpaired UTF-16 surrogates';

/**
 * The first place in a parsed JSON value (or query/params object) holding a string — value or
 * key — that PostgreSQL cannot store, or nesting deeper than `maxDepth`; undefined when there is none.
 */
export function findUnstorableInput(value: unknown, maxDepth = MAX_NESTING_DEPTH): UnstorableInput | undefined {
  const found = walk(value, 0, maxDepth);
  if (found) found.path.reverse();
  return found;
}

/** The path is built backwards on the way out, so the common case (nothing found) copies nothing. */
function walk(value: unknown, depth: number, maxDepth: number): UnstorableInput | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : { kind: 'text', path: [], message: NOT_STORABLE };
  if (value === null || typeof value !== 'object') return undefined;
  if (depth >= maxDepth) return { kind: 'depth', path: [], message: `nests deeper than ${maxDepth} levels` };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = walk(value[i], depth + 1, maxDepth);
      if (found) return (found.path.push(i), found);
    }
    return undefined;
  }
  for (const key in value as Record<string, unknown>) {
    if (!isStorableText(key)) return { kind: 'text', path: [key], message: `the key ${NOT_STORABLE}` };
    const found = walk((value as Record<string, unknown>)[key], depth + 1, maxDepth);
    if (found) return (found.path.push(key), found);
  }
  return undefined;
}

/** A JSON pointer (RFC 6901) to the path. */
export function toPointer(path: Array<string | number>): string {
  return path.length === 0 ? '/' : path.map((p) => `/${String(p).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** The string with every NUL and unpaired surrogate replaced by U+FFFD, so it can be stored. */
export function toStorableText(value: string): string {
  return isStorableText(value) ? value : value.toWellFormed().replaceAll('\u0000', '\uFFFD');
}

/**
 * A parsed JSON value with every string (values and keys) made storable: for input that must be
 * kept rather than refused, such as a provider's signed delivery. The same value when nothing
 * needed replacing; undefined when it nests deeper than `maxDepth`.
 */
export function toStorableJson(value: unknown, maxDepth = MAX_NESTING_DEPTH): unknown {
  const found = findUnstorableInput(value, maxDepth);
  if (!found) return value;
  if (found.kind === 'depth') return undefined;
  return replace(value);
}

function replace(value: unknown): unknown {
  if (typeof value === 'string') return toStorableText(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(replace);
  const out: Record<string, unknown> = {};
  for (const key in value as Record<string, unknown>) out[toStorableText(key)] = replace((value as Record<string, unknown>)[key]);
  return out;
}
