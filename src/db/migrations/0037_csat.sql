CREATE TABLE "csat_surveys" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"conversation_id" uuid NOT NULL,
	"channel_id" uuid NOT NULL,
	"contact_id" uuid,
	"assignee_user_id" uuid,
	"status" text DEFAULT 'pending' NOT NULL,
	"reason" text,
	"request_message_id" uuid,
	"requested_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone,
	"rating" integer,
	"comment" text,
	"answer_message_id" uuid,
	"answered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "csat_surveys_status_check" CHECK ("csat_surveys"."status" in ('pending', 'sent', 'answered', 'expired', 'not_sent')),
	CONSTRAINT "csat_surveys_rating_check" CHECK ("csat_surveys"."rating" is null or "csat_surveys"."rating" between 1 and 5)
);
--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "csat_rating" integer;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "csat_answered_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "csat" jsonb;--> statement-breakpoint
ALTER TABLE "csat_surveys" ADD CONSTRAINT "csat_surveys_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "csat_surveys" ADD CONSTRAINT "csat_surveys_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "csat_surveys_conversation_idx" ON "csat_surveys" USING btree ("conversation_id","requested_at");--> statement-breakpoint
CREATE INDEX "csat_surveys_organization_answered_idx" ON "csat_surveys" USING btree ("organization_id","answered_at","id") WHERE "csat_surveys"."status" = 'answered';