CREATE TABLE "broadcast_recipients" (
	"id" uuid PRIMARY KEY NOT NULL,
	"broadcast_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"contact_id" uuid,
	"phone" text,
	"status" text NOT NULL,
	"reason" text,
	"parameters" jsonb,
	"message_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "broadcast_recipients_status_check" CHECK ("broadcast_recipients"."status" in ('pending', 'skipped', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "broadcasts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"channel_id" uuid NOT NULL,
	"template_name" text NOT NULL,
	"template_language" text NOT NULL,
	"variables" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"audience" jsonb NOT NULL,
	"require_consent" boolean DEFAULT false NOT NULL,
	"per_minute" integer,
	"send_at" timestamp with time zone,
	"status" text NOT NULL,
	"next_run_at" timestamp with time zone,
	"lease_until" timestamp with time zone,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"failure_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "broadcasts_status_check" CHECK ("broadcasts"."status" in ('draft', 'scheduled', 'sending', 'paused', 'completed', 'stopped', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "broadcast_id" uuid;--> statement-breakpoint
ALTER TABLE "broadcast_recipients" ADD CONSTRAINT "broadcast_recipients_broadcast_id_broadcasts_id_fk" FOREIGN KEY ("broadcast_id") REFERENCES "public"."broadcasts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "broadcasts" ADD CONSTRAINT "broadcasts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "broadcasts" ADD CONSTRAINT "broadcasts_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "broadcast_recipients_seq_key" ON "broadcast_recipients" USING btree ("broadcast_id","seq");--> statement-breakpoint
CREATE INDEX "broadcast_recipients_pending_idx" ON "broadcast_recipients" USING btree ("broadcast_id","seq") WHERE "broadcast_recipients"."status" = 'pending' and "broadcast_recipients"."message_id" is null;--> statement-breakpoint
CREATE INDEX "broadcasts_organization_created_idx" ON "broadcasts" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "broadcasts_due_idx" ON "broadcasts" USING btree ("next_run_at") WHERE "broadcasts"."next_run_at" is not null;--> statement-breakpoint
CREATE INDEX "messages_broadcast_idx" ON "messages" USING btree ("broadcast_id") WHERE "messages"."broadcast_id" is not null;
