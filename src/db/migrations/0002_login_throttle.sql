CREATE TABLE "throttles" (
	"key" text PRIMARY KEY NOT NULL,
	"attempts" integer NOT NULL,
	"last_attempt_at" timestamp with time zone NOT NULL,
	"blocked_until" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "throttles_last_attempt_idx" ON "throttles" USING btree ("last_attempt_at");--> statement-breakpoint
-- Processes also cache unknown API keys briefly (a negative cache): a new key must reach them too.
DROP TRIGGER "api_keys_changed" ON "api_keys";--> statement-breakpoint
CREATE TRIGGER "api_keys_changed" AFTER INSERT OR UPDATE OF "revoked_at", "expires_at", "permissions", "secret_hash", "organization_id" OR DELETE ON "api_keys"
  FOR EACH STATEMENT EXECUTE FUNCTION "parley_api_keys_changed"();
