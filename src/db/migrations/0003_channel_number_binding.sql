DROP INDEX "channels_provider_ref_key";--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "bound_ref" text;--> statement-breakpoint
CREATE UNIQUE INDEX "channels_bound_ref_key" ON "channels" USING btree ("platform","bound_ref");--> statement-breakpoint
-- Numbers stay bound to the channels that held them and were confirmed by their provider (sandbox
-- numbers, and channels that were ever connected); claims never verified are released.
UPDATE "channels" SET "bound_ref" = "provider_ref"
WHERE "provider_ref" IS NOT NULL
  AND ("sandbox" OR EXISTS (SELECT 1 FROM "channel_status_history" h WHERE h."channel_id" = "channels"."id" AND h."to_status" = 'connected'));
