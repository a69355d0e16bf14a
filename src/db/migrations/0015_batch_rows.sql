-- The rows of a JSON array parameter, one per element, for statements that take a batch as one
-- parameter (db/batch-rows.ts). The planner assumes 100 rows for json_to_recordset, so for tables of
-- some thousands to some tens of thousands of rows it joined a batch by scanning the whole table
-- (a hash join) instead of looking each row up by its index. Batches are mostly a few rows: ROWS 10
-- makes the index lookups the plan at every table size. The SET clause keeps the function from being
-- inlined (which would bring back json_array_elements's estimate of 100).
CREATE FUNCTION "parley_batch_rows"(batch json) RETURNS SETOF json
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE ROWS 10 SET search_path = pg_catalog
  AS $$ SELECT json_array_elements(batch) $$;--> statement-breakpoint
CREATE FUNCTION "parley_batch_rows"(batch jsonb) RETURNS SETOF jsonb
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE ROWS 10 SET search_path = pg_catalog
  AS $$ SELECT jsonb_array_elements(batch) $$;
