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
    FROM "webhook_deliveries" WHERE "latest_attempt" IS NOT NULL;
