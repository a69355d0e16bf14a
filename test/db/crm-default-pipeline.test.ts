/**
 * Migration 0019 (the CRM's companies, pipelines and deals): organizations that were there before it
 * get the default pipeline, with the stages a new organization gets (domain/pipelines/defaults.ts).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { sql } from 'drizzle-orm';
import { openDatabase, queryRows, type Database } from '../../src/db/client.ts';
import { DEFAULT_PIPELINE } from '../../src/domain/pipelines/defaults.ts';
import { uuidv7 } from '../../src/lib/ids.ts';
import { createTestDatabaseUrl, usingPostgres } from '../harness.ts';

const MIGRATIONS = new URL('../../src/db/migrations/', import.meta.url);
const journal = JSON.parse(readFileSync(new URL('meta/_journal.json', MIGRATIONS), 'utf8')) as { entries: Array<{ tag: string }> };

async function apply(database: Database, tag: string): Promise<void> {
  const text = readFileSync(new URL(`${tag}.sql`, MIGRATIONS), 'utf8');
  for (const statement of text.split('--> statement-breakpoint')) if (statement.trim()) await database.db.execute(sql.raw(statement));
}

test('the organizations there before the CRM migration get the default pipeline, one each, with the default stages in order', async () => {
  const fresh = usingPostgres ? await createTestDatabaseUrl() : undefined;
  const database = fresh
    ? await openDatabase({ kind: 'postgres', url: fresh.url, poolSize: 2 })
    : await openDatabase({ kind: 'pglite', dataDir: null });
  try {
    const tags = journal.entries.map((e) => e.tag);
    const crm = tags.findIndex((t) => /_crm_companies_pipelines_deals$/.test(t));
    assert.ok(crm > 0, 'the CRM migration is in the journal');
    for (const tag of tags.slice(0, crm)) await apply(database, tag);
    const organizations = [uuidv7(), uuidv7()];
    for (const id of organizations) await database.db.execute(sql`insert into organizations (id, name) values (${id}, 'Before the CRM')`);
    for (const tag of tags.slice(crm)) await apply(database, tag);

    const rows = await queryRows<{
      organization_id: string;
      name: string;
      is_default: boolean;
      stages: Array<[string, number, string, number]>;
    }>(
      database.db,
      sql`select p.organization_id, p.name, p.is_default,
                 (select json_agg(json_build_array(s.name, s.probability, s.kind, s.position) order by s.position)
                    from pipeline_stages s where s.pipeline_id = p.id and s.organization_id = p.organization_id) as stages
            from pipelines p order by p.organization_id`,
    );
    const expected = DEFAULT_PIPELINE.stages.map((s, i) => [s.name, s.probability, s.kind, i]);
    assert.deepEqual(
      rows.map((r) => ({ ...r, stages: typeof r.stages === 'string' ? JSON.parse(r.stages) : r.stages })),
      [...organizations].sort().map((id) => ({ organization_id: id, name: DEFAULT_PIPELINE.name, is_default: true, stages: expected })),
    );
  } finally {
    await database.close();
    await fresh?.drop();
  }
});
