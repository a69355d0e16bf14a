ALTER TABLE "messages" ADD COLUMN "error_user_title" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "error_user_message" text;