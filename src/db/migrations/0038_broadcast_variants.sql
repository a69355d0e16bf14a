ALTER TABLE "broadcast_recipients" DROP CONSTRAINT "broadcast_recipients_status_check";--> statement-breakpoint
ALTER TABLE "broadcast_recipients" ADD COLUMN "components" jsonb;--> statement-breakpoint
ALTER TABLE "broadcast_recipients" ADD COLUMN "variant" integer;--> statement-breakpoint
ALTER TABLE "broadcast_recipients" ADD COLUMN "replied_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "broadcasts" ADD COLUMN "header" jsonb;--> statement-breakpoint
ALTER TABLE "broadcasts" ADD COLUMN "buttons" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "broadcasts" ADD COLUMN "ab_test" jsonb;--> statement-breakpoint
ALTER TABLE "broadcasts" ADD COLUMN "winner_variant" integer;--> statement-breakpoint
ALTER TABLE "broadcasts" ADD COLUMN "decided_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "broadcast_recipients_message_idx" ON "broadcast_recipients" USING btree ("message_id") WHERE "broadcast_recipients"."message_id" is not null;--> statement-breakpoint
ALTER TABLE "broadcast_recipients" ADD CONSTRAINT "broadcast_recipients_status_check" CHECK ("broadcast_recipients"."status" in ('pending', 'held', 'skipped', 'failed'));