ALTER TABLE "channel_sessions" ADD COLUMN "disconnect_cause" text;--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "next_retry_at" timestamp with time zone;