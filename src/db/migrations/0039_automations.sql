CREATE TABLE "automation_rules" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"enabled" boolean NOT NULL,
	"trigger" text NOT NULL,
	"trigger_minutes" integer,
	"conditions" jsonb NOT NULL,
	"actions" jsonb NOT NULL,
	"webhook_secret_sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "automation_runs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"rule_id" uuid NOT NULL,
	"trigger_key" text NOT NULL,
	"trigger" text NOT NULL,
	"event_id" uuid,
	"conversation_id" uuid,
	"message_id" uuid,
	"status" text NOT NULL,
	"matched" boolean,
	"conditions" jsonb NOT NULL,
	"actions" jsonb NOT NULL,
	"automated_messages" integer DEFAULT 0 NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "automation_rule_id" uuid;--> statement-breakpoint
ALTER TABLE "automation_rules" ADD CONSTRAINT "automation_rules_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automation_runs" ADD CONSTRAINT "automation_runs_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automation_runs" ADD CONSTRAINT "automation_runs_rule_id_automation_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."automation_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "automation_rules_organization_idx" ON "automation_rules" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "automation_rules_trigger_idx" ON "automation_rules" USING btree ("organization_id","trigger") WHERE "automation_rules"."enabled";--> statement-breakpoint
CREATE UNIQUE INDEX "automation_runs_rule_trigger_key" ON "automation_runs" USING btree ("rule_id","trigger_key");--> statement-breakpoint
CREATE INDEX "automation_runs_rule_created_idx" ON "automation_runs" USING btree ("rule_id","created_at","id");--> statement-breakpoint
CREATE INDEX "automation_runs_conversation_idx" ON "automation_runs" USING btree ("conversation_id","created_at") WHERE "automation_runs"."automated_messages" > 0;