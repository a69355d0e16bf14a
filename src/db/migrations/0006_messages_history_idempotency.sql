-- One history row per status a message reached: repeated reports (a provider's own `sent` after the
-- dispatcher's) keep the first row only.
DELETE FROM "message_status_history" h USING "message_status_history" e
 WHERE e."message_id" = h."message_id" AND e."status" = h."status" AND (e."created_at", e."id") < (h."created_at", h."id");--> statement-breakpoint
DROP INDEX "message_status_history_message_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "message_status_history_message_status_key" ON "message_status_history" USING btree ("message_id","status");--> statement-breakpoint
-- An Idempotency-Key keeps the message it made, not an HTTP answer: the answer is presented again from it.
ALTER TABLE "idempotency_keys" ADD COLUMN "message_id" uuid;--> statement-breakpoint
UPDATE "idempotency_keys" SET "message_id" = ("response_body"->'data'->>'id')::uuid;--> statement-breakpoint
DELETE FROM "idempotency_keys" WHERE "message_id" IS NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" ALTER COLUMN "message_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP COLUMN "response_status";--> statement-breakpoint
ALTER TABLE "idempotency_keys" DROP COLUMN "response_body";
