/**
 * The event catalogue's `reserved` flag (src/domain/webhooks/catalog.ts) held to the code: a type is
 * reserved exactly when nothing under src/domain records it. Recorded means its name is written in the
 * domain code outside the two files that declare the types (the outbox's bodies and the catalogue), as
 * recordEvent's argument or in the statements that insert events in bulk; a template literal such as
 * `crm.record.${change}` counts for each type its fixed parts fit.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EVENT_TYPES } from '../../src/domain/events/outbox.ts';
import { EVENT_CATALOG } from '../../src/domain/webhooks/catalog.ts';

const DOMAIN = fileURLToPath(new URL('../../src/domain/', import.meta.url));
const DECLARING = new Set(['events/outbox.ts', 'webhooks/catalog.ts'].map((f) => path.join(DOMAIN, f)));

function domainSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return domainSources(full);
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) && !DECLARING.has(full) ? [full] : [];
  });
}

/** Every string and template literal that looks like an event type (`a.b`, `a.b.c`), as patterns. */
function typePatterns(text: string): RegExp[] {
  const patterns: RegExp[] = [];
  for (const match of text.matchAll(/(['`])([a-z_]+\.[a-z_.${}]+)\1/g)) {
    const literal = match[2]!;
    const source = literal
      .split(/\$\{[^}]*\}/)
      .map((part) => part.replace(/\./g, '\\.'))
      .join('[a-z_]+');
    patterns.push(new RegExp(`^${source}$`));
  }
  return patterns;
}

test('an event type is reserved in the catalogue exactly when no domain code records it', () => {
  const patterns = domainSources(DOMAIN).flatMap((file) => typePatterns(readFileSync(file, 'utf8')));
  const recorded = EVENT_TYPES.filter((type) => patterns.some((p) => p.test(type)));
  const reserved = EVENT_TYPES.filter((type) => EVENT_CATALOG[type].reserved === true);
  assert.deepEqual(
    EVENT_TYPES.filter((type) => !recorded.includes(type)),
    reserved,
    'the types nothing records are the reserved ones',
  );
  assert.ok(recorded.includes('crm.record.created') && recorded.includes('message.status_update'), 'the scan finds what is recorded');
});
