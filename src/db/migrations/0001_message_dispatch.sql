ALTER TABLE "messages" ADD COLUMN "dispatch_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "messages_dispatch_due_idx" ON "messages" USING btree ("dispatch_at") WHERE "messages"."dispatch_at" is not null;--> statement-breakpoint
-- Messages still waiting to be sent were dispatch jobs of the job queue: they are now due on their row.
UPDATE "messages" SET "dispatch_at" = now() WHERE "status" = 'queued' AND "direction" = 'outbound';--> statement-breakpoint
-- Processes cache authenticated API keys; a change that can withdraw a key tells them to forget it.
CREATE FUNCTION "parley_api_keys_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('parley_cache', 'api_keys');
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER "api_keys_changed" AFTER UPDATE OF "revoked_at", "expires_at", "permissions", "secret_hash", "organization_id" OR DELETE ON "api_keys"
  FOR EACH STATEMENT EXECUTE FUNCTION "parley_api_keys_changed"();
