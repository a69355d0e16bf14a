/**
 * `--events message.*,channel.status_update`: event type patterns, `*` matching any run of characters,
 * expanded against the service's catalogue (GET /v1/settings/developer/webhooks), since the stream's
 * `types` filter takes exact names. A pattern that matches nothing is a usage error naming it.
 */
import { usageError } from './errors.ts';

/** The comma- or space-separated patterns of an --events value. */
export function splitPatterns(value: string | undefined): string[] {
  return (value ?? '')
    .split(/[\s,]+/)
    .map((p) => p.trim())
    .filter(Boolean);
}

function patternRegExp(pattern: string): RegExp {
  const escaped = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`);
}

/**
 * The exact types the patterns name, in the catalogue's order; undefined for every type (no patterns,
 * or one that is `*`). Names without a wildcard pass as they are: the service says whether it knows them.
 */
export function expandPatterns(patterns: readonly string[], catalogue: readonly string[]): string[] | undefined {
  if (patterns.length === 0 || patterns.includes('*')) return undefined;
  const chosen = new Set<string>();
  for (const pattern of patterns) {
    if (!pattern.includes('*')) {
      chosen.add(pattern);
      continue;
    }
    const re = patternRegExp(pattern);
    const matched = catalogue.filter((type) => re.test(type));
    if (matched.length === 0) throw usageError(`--events: ${pattern} matches no event type (the types: ${catalogue.join(', ')})`);
    for (const type of matched) chosen.add(type);
  }
  return [...chosen];
}
