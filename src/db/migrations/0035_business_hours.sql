ALTER TABLE "channels" ADD COLUMN "business_hours" jsonb;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "away_sent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "greeting_sent_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "business_hours" jsonb;