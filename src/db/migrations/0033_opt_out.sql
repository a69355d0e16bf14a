ALTER TABLE "contact_suppressions" ADD COLUMN "message_id" uuid;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "opt_out" jsonb;