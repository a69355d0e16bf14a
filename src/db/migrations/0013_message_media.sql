CREATE TABLE "message_media" (
	"message_id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"status" text NOT NULL,
	"storage_key" text,
	"content_type" text,
	"declared_type" text,
	"size" bigint,
	"sha256" text,
	"file_name" text,
	"source" jsonb NOT NULL,
	"error_code" text,
	"error_title" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"stored_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "message_media_status_check" CHECK ("message_media"."status" in ('pending', 'stored', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "sandbox_media" ADD COLUMN "padded_size" integer;--> statement-breakpoint
ALTER TABLE "message_media" ADD CONSTRAINT "message_media_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_media" ADD CONSTRAINT "message_media_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "message_media_organization_idx" ON "message_media" USING btree ("organization_id");