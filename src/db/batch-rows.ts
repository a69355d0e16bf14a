/**
 * A batch that travels as one JSON array parameter, read as a table in FROM:
 *
 *   sql`update messages m set ... from ${batchRows(JSON.stringify(rows), 'r', 'id uuid, status text')} where m.id = r.id`
 *
 * becomes `(select r.* from parley_batch_rows($1::json) as batch_row, json_to_record(batch_row) as r(id uuid, status text)) as r`.
 * json_to_recordset would do the same, but the planner takes it for 100 rows whatever the batch
 * holds, and joined it to tables of some thousands to some tens of thousands of rows by scanning
 * them whole; parley_batch_rows (migration 0015) says 10, so each row is looked up by its index
 * (DECISIONS 58).
 */
import { sql, type SQL } from 'drizzle-orm';

/**
 * `batch` is the JSON text (or a placeholder for it); `alias` names the table and `columns` its
 * columns with their types, as json_to_recordset's column list. `kind` is the parameter's type.
 */
export function batchRows(batch: unknown, alias: string, columns: string | SQL, kind: 'json' | 'jsonb' = 'json'): SQL {
  const name = sql.raw(alias);
  const list = typeof columns === 'string' ? sql.raw(columns) : columns;
  return sql`(select ${name}.* from parley_batch_rows(${batch}::${sql.raw(kind)}) as batch_row, ${sql.raw(kind)}_to_record(batch_row) as ${name}(${list})) as ${name}`;
}

/**
 * The ids of a batch as one JSON parameter, for `inArray(column, batchIds(ids))`: the statement's
 * text is the same for every batch size (one prepared statement, db/auto-prepare.ts, not one per
 * length of an `in ($1, …)` list), and the planner takes the list for 10 rows, as above, so each id is
 * one index lookup (contacts/upsert.ts BY_ID_ONLY).
 */
export function batchIds(ids: string[], type: 'uuid' | 'text' = 'uuid'): SQL {
  return sql`(select (batch_row #>> '{}')::${sql.raw(type)} from parley_batch_rows(${JSON.stringify(ids)}::jsonb) as batch_row)`;
}
