CREATE TABLE "comments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"record_kind" text NOT NULL,
	"record_id" uuid NOT NULL,
	"contact_id" uuid GENERATED ALWAYS AS (case when "record_kind" = 'contact' then "record_id" end) STORED,
	"company_id" uuid GENERATED ALWAYS AS (case when "record_kind" = 'company' then "record_id" end) STORED,
	"deal_id" uuid GENERATED ALWAYS AS (case when "record_kind" = 'deal' then "record_id" end) STORED,
	"task_id" uuid GENERATED ALWAYS AS (case when "record_kind" = 'task' then "record_id" end) STORED,
	"author_type" text NOT NULL,
	"author_id" text,
	"author_user_id" uuid,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"edited_at" timestamp with time zone,
	CONSTRAINT "comments_kind_check" CHECK ("comments"."record_kind" in ('contact', 'company', 'deal', 'task', 'conversation')),
	CONSTRAINT "comments_author_type_check" CHECK ("comments"."author_type" in ('user', 'api_key', 'oauth_client', 'system'))
);
--> statement-breakpoint
CREATE TABLE "relationship_labels" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"inverse_name" text,
	"from_kind" text NOT NULL,
	"to_kind" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "relationship_labels_from_kind_check" CHECK ("relationship_labels"."from_kind" in ('contact', 'company', 'deal')),
	CONSTRAINT "relationship_labels_to_kind_check" CHECK ("relationship_labels"."to_kind" in ('contact', 'company', 'deal'))
);
--> statement-breakpoint
CREATE TABLE "relationships" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"label_id" uuid NOT NULL,
	"from_kind" text NOT NULL,
	"from_id" uuid NOT NULL,
	"to_kind" text NOT NULL,
	"to_id" uuid NOT NULL,
	"from_contact_id" uuid GENERATED ALWAYS AS (case when "from_kind" = 'contact' then "from_id" end) STORED,
	"from_company_id" uuid GENERATED ALWAYS AS (case when "from_kind" = 'company' then "from_id" end) STORED,
	"from_deal_id" uuid GENERATED ALWAYS AS (case when "from_kind" = 'deal' then "from_id" end) STORED,
	"to_contact_id" uuid GENERATED ALWAYS AS (case when "to_kind" = 'contact' then "to_id" end) STORED,
	"to_company_id" uuid GENERATED ALWAYS AS (case when "to_kind" = 'company' then "to_id" end) STORED,
	"to_deal_id" uuid GENERATED ALWAYS AS (case when "to_kind" = 'deal' then "to_id" end) STORED,
	"created_by_type" text NOT NULL,
	"created_by_id" text,
	"created_by_user_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "relationships_not_self_check" CHECK ("relationships"."from_id" <> "relationships"."to_id"),
	CONSTRAINT "relationships_created_by_check" CHECK ("relationships"."created_by_type" in ('user', 'api_key', 'oauth_client', 'system'))
);
--> statement-breakpoint
CREATE TABLE "task_targets" (
	"task_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"record_kind" text NOT NULL,
	"record_id" uuid NOT NULL,
	"contact_id" uuid GENERATED ALWAYS AS (case when "record_kind" = 'contact' then "record_id" end) STORED,
	"company_id" uuid GENERATED ALWAYS AS (case when "record_kind" = 'company' then "record_id" end) STORED,
	"deal_id" uuid GENERATED ALWAYS AS (case when "record_kind" = 'deal' then "record_id" end) STORED,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "task_targets_task_id_record_kind_record_id_pk" PRIMARY KEY("task_id","record_kind","record_id"),
	CONSTRAINT "task_targets_kind_check" CHECK ("task_targets"."record_kind" in ('contact', 'company', 'deal', 'conversation'))
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"title" text NOT NULL,
	"notes" text,
	"due_at" timestamp with time zone,
	"assignee_user_id" uuid,
	"priority" text,
	"status" text DEFAULT 'open' NOT NULL,
	"completed_at" timestamp with time zone,
	"completed_by_type" text,
	"completed_by_id" text,
	"completed_by_user_id" uuid,
	"created_by_type" text NOT NULL,
	"created_by_id" text,
	"created_by_user_id" uuid,
	"due_notified_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tasks_status_check" CHECK ("tasks"."status" in ('open', 'completed')),
	CONSTRAINT "tasks_completed_check" CHECK (("tasks"."status" = 'completed') = ("tasks"."completed_at" is not null)),
	CONSTRAINT "tasks_priority_check" CHECK ("tasks"."priority" in ('low', 'medium', 'high')),
	CONSTRAINT "tasks_completed_by_check" CHECK ("tasks"."completed_by_type" in ('user', 'api_key', 'oauth_client', 'system')),
	CONSTRAINT "tasks_created_by_check" CHECK ("tasks"."created_by_type" in ('user', 'api_key', 'oauth_client', 'system'))
);
--> statement-breakpoint
-- A contact's notes become its comments (same ids, authors and times); a note by a user (by session or through an OAuth app) keeps its user.
INSERT INTO "comments" ("id", "organization_id", "record_kind", "record_id", "author_type", "author_id", "author_user_id", "body", "created_at")
SELECT "id", "organization_id", 'contact', "contact_id", "author_type", "author_id"::text, CASE WHEN "author_type" = 'user' THEN "author_id" END, "body", "created_at"
  FROM "contact_notes";--> statement-breakpoint
DROP TABLE "contact_notes" CASCADE;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_deal_id_deals_id_fk" FOREIGN KEY ("deal_id") REFERENCES "public"."deals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "comments" ADD CONSTRAINT "comments_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "relationship_labels" ADD CONSTRAINT "relationship_labels_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "relationships" ADD CONSTRAINT "relationships_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "relationships" ADD CONSTRAINT "relationships_label_id_relationship_labels_id_fk" FOREIGN KEY ("label_id") REFERENCES "public"."relationship_labels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "relationships" ADD CONSTRAINT "relationships_from_contact_id_contacts_id_fk" FOREIGN KEY ("from_contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "relationships" ADD CONSTRAINT "relationships_from_company_id_companies_id_fk" FOREIGN KEY ("from_company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "relationships" ADD CONSTRAINT "relationships_from_deal_id_deals_id_fk" FOREIGN KEY ("from_deal_id") REFERENCES "public"."deals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "relationships" ADD CONSTRAINT "relationships_to_contact_id_contacts_id_fk" FOREIGN KEY ("to_contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "relationships" ADD CONSTRAINT "relationships_to_company_id_companies_id_fk" FOREIGN KEY ("to_company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "relationships" ADD CONSTRAINT "relationships_to_deal_id_deals_id_fk" FOREIGN KEY ("to_deal_id") REFERENCES "public"."deals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_targets" ADD CONSTRAINT "task_targets_task_id_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_targets" ADD CONSTRAINT "task_targets_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_targets" ADD CONSTRAINT "task_targets_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "task_targets" ADD CONSTRAINT "task_targets_deal_id_deals_id_fk" FOREIGN KEY ("deal_id") REFERENCES "public"."deals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_assignee_user_id_users_id_fk" FOREIGN KEY ("assignee_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "comments_record_idx" ON "comments" USING btree ("record_id","created_at","id");--> statement-breakpoint
CREATE INDEX "comments_organization_created_idx" ON "comments" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "comments_contact_idx" ON "comments" USING btree ("contact_id") WHERE "comments"."contact_id" is not null;--> statement-breakpoint
CREATE INDEX "comments_company_idx" ON "comments" USING btree ("company_id") WHERE "comments"."company_id" is not null;--> statement-breakpoint
CREATE INDEX "comments_deal_idx" ON "comments" USING btree ("deal_id") WHERE "comments"."deal_id" is not null;--> statement-breakpoint
CREATE INDEX "comments_task_idx" ON "comments" USING btree ("task_id") WHERE "comments"."task_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "relationship_labels_name_key" ON "relationship_labels" USING btree ("organization_id","from_kind","to_kind",lower("name"));--> statement-breakpoint
CREATE INDEX "relationship_labels_organization_created_idx" ON "relationship_labels" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "relationships_pair_key" ON "relationships" USING btree ("label_id","from_id","to_id");--> statement-breakpoint
CREATE INDEX "relationships_from_idx" ON "relationships" USING btree ("from_id","created_at","id");--> statement-breakpoint
CREATE INDEX "relationships_to_idx" ON "relationships" USING btree ("to_id","created_at","id");--> statement-breakpoint
CREATE INDEX "relationships_organization_created_idx" ON "relationships" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "relationships_from_contact_idx" ON "relationships" USING btree ("from_contact_id") WHERE "relationships"."from_contact_id" is not null;--> statement-breakpoint
CREATE INDEX "relationships_from_company_idx" ON "relationships" USING btree ("from_company_id") WHERE "relationships"."from_company_id" is not null;--> statement-breakpoint
CREATE INDEX "relationships_from_deal_idx" ON "relationships" USING btree ("from_deal_id") WHERE "relationships"."from_deal_id" is not null;--> statement-breakpoint
CREATE INDEX "relationships_to_contact_idx" ON "relationships" USING btree ("to_contact_id") WHERE "relationships"."to_contact_id" is not null;--> statement-breakpoint
CREATE INDEX "relationships_to_company_idx" ON "relationships" USING btree ("to_company_id") WHERE "relationships"."to_company_id" is not null;--> statement-breakpoint
CREATE INDEX "relationships_to_deal_idx" ON "relationships" USING btree ("to_deal_id") WHERE "relationships"."to_deal_id" is not null;--> statement-breakpoint
CREATE INDEX "task_targets_record_idx" ON "task_targets" USING btree ("record_id","record_kind","task_id");--> statement-breakpoint
CREATE INDEX "task_targets_contact_idx" ON "task_targets" USING btree ("contact_id") WHERE "task_targets"."contact_id" is not null;--> statement-breakpoint
CREATE INDEX "task_targets_company_idx" ON "task_targets" USING btree ("company_id") WHERE "task_targets"."company_id" is not null;--> statement-breakpoint
CREATE INDEX "task_targets_deal_idx" ON "task_targets" USING btree ("deal_id") WHERE "task_targets"."deal_id" is not null;--> statement-breakpoint
CREATE INDEX "tasks_organization_created_idx" ON "tasks" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "tasks_organization_due_idx" ON "tasks" USING btree ("organization_id",coalesce("due_at", '9999-12-31T23:59:59.999Z'::timestamptz),"id");--> statement-breakpoint
CREATE INDEX "tasks_organization_assignee_idx" ON "tasks" USING btree ("organization_id","assignee_user_id","status","due_at");--> statement-breakpoint
CREATE INDEX "tasks_due_pending_idx" ON "tasks" USING btree ("due_at") WHERE "tasks"."status" = 'open' and "tasks"."due_notified_at" is null and "tasks"."due_at" is not null;