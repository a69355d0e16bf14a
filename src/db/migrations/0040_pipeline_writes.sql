ALTER TABLE "messages" ADD COLUMN "status_history" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "latest_attempt" jsonb;--> statement-breakpoint
-- custom SQL
-- Every attempt of every delivery: the rows of webhook_attempts (earlier attempts, and every attempt made
-- before latest_attempt existed) and each delivery's latest attempt, kept in its row. src/db/schema.ts
-- declares it (webhookAttemptLog) for reading.
CREATE VIEW "webhook_attempt_log" AS
  SELECT "id", "organization_id", "delivery_id", "endpoint_id", "trigger", "attempted_at", "status_code", "duration_ms", "response_body", "error"
    FROM "webhook_attempts"
  UNION ALL
  SELECT ("latest_attempt"->>'id')::uuid, "organization_id", "id", "endpoint_id", "latest_attempt"->>'trigger',
         ("latest_attempt"->>'attempted_at')::timestamptz, ("latest_attempt"->>'status_code')::int, ("latest_attempt"->>'duration_ms')::int,
         "latest_attempt"->>'response_body', "latest_attempt"->>'error'
    FROM "webhook_deliveries" WHERE "latest_attempt" IS NOT NULL;--> statement-breakpoint
-- A message's status history with the entries a status write adds (messages.ts writeMoves): a status the
-- history lacks is appended; one it has keeps its entry (its first report), which takes only the billing
-- (pricing, conversation) it lacks. new null: the history as it was.
CREATE FUNCTION "parley_status_history_merge"(old jsonb, new jsonb) RETURNS jsonb
  LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path = pg_catalog
  AS $$
    SELECT CASE WHEN new IS NULL THEN old ELSE (
      SELECT coalesce(jsonb_agg(x.e ORDER BY x.k), '[]'::jsonb) FROM (
        SELECT o.k, CASE WHEN n.e IS NULL THEN o.e ELSE o.e || jsonb_build_object(
                 'pricing', coalesce(nullif(o.e->'pricing', 'null'::jsonb), n.e->'pricing'),
                 'conversation', coalesce(nullif(o.e->'conversation', 'null'::jsonb), n.e->'conversation')) END AS e
          FROM jsonb_array_elements(old) WITH ORDINALITY o(e, k)
          LEFT JOIN jsonb_array_elements(new) n(e) ON n.e->>'status' = o.e->>'status'
        UNION ALL
        SELECT 1000000 + n.k, n.e FROM jsonb_array_elements(new) WITH ORDINALITY n(e, k)
         WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(old) o(e) WHERE o.e->>'status' = n.e->>'status')
      ) x) END
  $$;--> statement-breakpoint
-- The stored history moves into the messages' rows, in the order the reports arrived.
UPDATE "messages" m SET "status_history" = h.entries
  FROM (SELECT "message_id", jsonb_agg(jsonb_build_object('id', "id", 'status', "status", 'error_code', "error_code", 'error_title', "error_title",
                 'pricing', "pricing", 'conversation', "conversation", 'occurred_at', "occurred_at", 'created_at', "created_at") ORDER BY "created_at", "id") AS entries
          FROM "message_status_history" GROUP BY "message_id") h
 WHERE m."id" = h."message_id";--> statement-breakpoint
DELETE FROM "message_status_history";--> statement-breakpoint
-- Every entry of every message's status history as a row (for reading by hand, tests and benchmarks).
CREATE VIEW "message_status_log" AS
  SELECT (e->>'id')::uuid AS "id", m."id" AS "message_id", e->>'status' AS "status", e->>'error_code' AS "error_code", e->>'error_title' AS "error_title",
         nullif(e->'pricing', 'null'::jsonb) AS "pricing", nullif(e->'conversation', 'null'::jsonb) AS "conversation",
         (e->>'occurred_at')::timestamptz AS "occurred_at", (e->>'created_at')::timestamptz AS "created_at"
    FROM "messages" m, jsonb_array_elements(m."status_history") e;
