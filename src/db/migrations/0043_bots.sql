CREATE TABLE "bot_deliveries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"bot_id" uuid NOT NULL,
	"session_id" uuid NOT NULL,
	"conversation_id" uuid NOT NULL,
	"message_ids" uuid[] NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"last_status_code" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bot_deliveries_status_check" CHECK ("bot_deliveries"."status" in ('pending', 'sending', 'delivered', 'cancelled'))
);
--> statement-breakpoint
CREATE TABLE "bot_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"bot_id" uuid NOT NULL,
	"conversation_id" uuid NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	"end_reason" text,
	"expires_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "bots" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"url" text NOT NULL,
	"secret_sealed" text NOT NULL,
	"channel_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"trigger_type" text NOT NULL,
	"trigger_operator" text,
	"trigger_values" text[] DEFAULT '{}'::text[] NOT NULL,
	"expire_minutes" integer DEFAULT 0 NOT NULL,
	"stop_keyword" text,
	"debounce_ms" integer DEFAULT 0 NOT NULL,
	"keep_open" boolean DEFAULT true NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bots_trigger_type_check" CHECK ("bots"."trigger_type" in ('all', 'keyword')),
	CONSTRAINT "bots_trigger_operator_check" CHECK ("bots"."trigger_operator" in ('equals', 'contains', 'starts_with', 'regex'))
);
--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "bot_id" uuid;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "bot_paused_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "bot_deliveries" ADD CONSTRAINT "bot_deliveries_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bot_deliveries" ADD CONSTRAINT "bot_deliveries_bot_id_bots_id_fk" FOREIGN KEY ("bot_id") REFERENCES "public"."bots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bot_deliveries" ADD CONSTRAINT "bot_deliveries_session_id_bot_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."bot_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bot_sessions" ADD CONSTRAINT "bot_sessions_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bot_sessions" ADD CONSTRAINT "bot_sessions_bot_id_bots_id_fk" FOREIGN KEY ("bot_id") REFERENCES "public"."bots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bot_sessions" ADD CONSTRAINT "bot_sessions_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bots" ADD CONSTRAINT "bots_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "bot_deliveries_pending_session_key" ON "bot_deliveries" USING btree ("session_id") WHERE "bot_deliveries"."status" = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "bot_sessions_open_conversation_key" ON "bot_sessions" USING btree ("conversation_id") WHERE "bot_sessions"."ended_at" is null;--> statement-breakpoint
CREATE INDEX "bot_sessions_expiry_idx" ON "bot_sessions" USING btree ("expires_at") WHERE "bot_sessions"."ended_at" is null and "bot_sessions"."expires_at" is not null;--> statement-breakpoint
CREATE INDEX "bot_sessions_bot_idx" ON "bot_sessions" USING btree ("bot_id") WHERE "bot_sessions"."ended_at" is null;--> statement-breakpoint
CREATE INDEX "bots_organization_idx" ON "bots" USING btree ("organization_id","created_at");--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_bot_id_bots_id_fk" FOREIGN KEY ("bot_id") REFERENCES "public"."bots"("id") ON DELETE set null ON UPDATE no action;