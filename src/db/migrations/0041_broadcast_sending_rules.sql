ALTER TABLE "broadcast_recipients" DROP CONSTRAINT "broadcast_recipients_status_check";--> statement-breakpoint
DROP INDEX "broadcast_recipients_pending_idx";--> statement-breakpoint
ALTER TABLE "broadcast_recipients" ADD COLUMN "round" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "broadcast_recipients" ADD COLUMN "retry_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "broadcasts" ADD COLUMN "quiet_hours" jsonb;--> statement-breakpoint
ALTER TABLE "broadcasts" ADD COLUMN "retry_marketing_limit_days" integer;--> statement-breakpoint
ALTER TABLE "broadcasts" ADD COLUMN "skip_open_conversations" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "broadcasts" ADD COLUMN "pause_reason" text;--> statement-breakpoint
ALTER TABLE "broadcasts" ADD COLUMN "retry_round" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "messaging_tier" text;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "messaging_tier_source" text;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "daily_broadcast_cap" integer;--> statement-breakpoint
CREATE INDEX "broadcast_recipients_retry_idx" ON "broadcast_recipients" USING btree ("retry_at") WHERE "broadcast_recipients"."retry_at" is not null;--> statement-breakpoint
CREATE INDEX "broadcast_recipients_pending_idx" ON "broadcast_recipients" USING btree ("broadcast_id","seq") WHERE "broadcast_recipients"."status" in ('pending', 'deferred') and "broadcast_recipients"."message_id" is null;--> statement-breakpoint
ALTER TABLE "broadcast_recipients" ADD CONSTRAINT "broadcast_recipients_status_check" CHECK ("broadcast_recipients"."status" in ('pending', 'held', 'deferred', 'skipped', 'failed'));