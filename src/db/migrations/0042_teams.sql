CREATE TABLE "team_members" (
	"team_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"capacity" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "team_members_team_id_user_id_pk" PRIMARY KEY("team_id","user_id"),
	CONSTRAINT "team_members_capacity_check" CHECK ("team_members"."capacity" is null or "team_members"."capacity" >= 0)
);
--> statement-breakpoint
CREATE TABLE "teams" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"assignment_policy" text DEFAULT 'manual' NOT NULL,
	"default_capacity" integer,
	"last_assigned_user_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "teams_assignment_policy_check" CHECK ("teams"."assignment_policy" in ('manual', 'round_robin', 'least_busy')),
	CONSTRAINT "teams_default_capacity_check" CHECK ("teams"."default_capacity" is null or "teams"."default_capacity" >= 0)
);
--> statement-breakpoint
ALTER TABLE "channels" ADD COLUMN "team_id" uuid;--> statement-breakpoint
ALTER TABLE "conversations" ADD COLUMN "team_id" uuid;--> statement-breakpoint
ALTER TABLE "memberships" ADD COLUMN "availability" text DEFAULT 'offline' NOT NULL;--> statement-breakpoint
ALTER TABLE "memberships" ADD COLUMN "availability_changed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "team_members" ADD CONSTRAINT "team_members_organization_id_user_id_memberships_organization_id_user_id_fk" FOREIGN KEY ("organization_id","user_id") REFERENCES "public"."memberships"("organization_id","user_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "teams" ADD CONSTRAINT "teams_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "team_members_member_idx" ON "team_members" USING btree ("organization_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "teams_organization_name_key" ON "teams" USING btree ("organization_id",lower("name"));--> statement-breakpoint
ALTER TABLE "channels" ADD CONSTRAINT "channels_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_team_id_teams_id_fk" FOREIGN KEY ("team_id") REFERENCES "public"."teams"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "conversations_team_queue_idx" ON "conversations" USING btree ("team_id","created_at","id") WHERE "conversations"."assignee_user_id" is null and "conversations"."status" = 'open' and "conversations"."team_id" is not null;--> statement-breakpoint
CREATE INDEX "conversations_assignee_open_idx" ON "conversations" USING btree ("organization_id","assignee_user_id") WHERE "conversations"."status" = 'open';--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_availability_check" CHECK ("memberships"."availability" in ('online', 'away', 'offline'));