DROP INDEX "conversations_organization_idx";--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "unread_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "last_read_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "conversations_organization_activity_idx" ON "conversations" USING btree ("organization_id",coalesce("last_message_at", "created_at") desc,"id" desc);--> statement-breakpoint
CREATE INDEX "conversations_organization_status_activity_idx" ON "conversations" USING btree ("organization_id","status",coalesce("last_message_at", "created_at") desc,"id" desc);