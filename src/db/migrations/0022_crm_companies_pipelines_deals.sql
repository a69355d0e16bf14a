CREATE TABLE "companies" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"domain" text,
	"phone" text,
	"address" jsonb,
	"custom_fields" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"owner_user_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "companies_phone_e164_check" CHECK ("companies"."phone" ~ '^\+[1-9][0-9]{5,14}$'),
	CONSTRAINT "companies_address_check" CHECK ("companies"."address" is null or jsonb_typeof("companies"."address") = 'object'),
	CONSTRAINT "companies_custom_fields_check" CHECK (jsonb_typeof("companies"."custom_fields") = 'object' and octet_length("companies"."custom_fields"::text) <= 65536)
);
--> statement-breakpoint
CREATE TABLE "deal_contacts" (
	"deal_id" uuid NOT NULL,
	"contact_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "deal_contacts_deal_id_contact_id_pk" PRIMARY KEY("deal_id","contact_id")
);
--> statement-breakpoint
CREATE TABLE "deal_stage_history" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"deal_id" uuid NOT NULL,
	"pipeline_id" uuid NOT NULL,
	"stage_id" uuid NOT NULL,
	"stage_name" text NOT NULL,
	"entered_at" timestamp with time zone NOT NULL,
	"left_at" timestamp with time zone,
	"changed_by_type" text NOT NULL,
	"changed_by_id" text,
	"changed_by_user_id" uuid,
	CONSTRAINT "deal_stage_history_changed_by_check" CHECK ("deal_stage_history"."changed_by_type" in ('user', 'api_key', 'oauth_client', 'system'))
);
--> statement-breakpoint
CREATE TABLE "deals" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"amount" bigint,
	"currency" text,
	"pipeline_id" uuid NOT NULL,
	"stage_id" uuid NOT NULL,
	"stage_entered_at" timestamp with time zone NOT NULL,
	"expected_close_date" date,
	"owner_user_id" uuid,
	"company_id" uuid,
	"conversation_id" uuid,
	"custom_fields" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "deals_amount_pair_check" CHECK (("deals"."amount" is null) = ("deals"."currency" is null)),
	CONSTRAINT "deals_amount_check" CHECK ("deals"."amount" >= 0),
	CONSTRAINT "deals_currency_check" CHECK ("deals"."currency" ~ '^[A-Z]{3}$'),
	CONSTRAINT "deals_custom_fields_check" CHECK (jsonb_typeof("deals"."custom_fields") = 'object' and octet_length("deals"."custom_fields"::text) <= 65536)
);
--> statement-breakpoint
CREATE TABLE "pipeline_stages" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"pipeline_id" uuid NOT NULL,
	"name" text NOT NULL,
	"probability" integer NOT NULL,
	"kind" text NOT NULL,
	"position" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pipeline_stages_pipeline_id_key" UNIQUE("pipeline_id","id"),
	CONSTRAINT "pipeline_stages_kind_check" CHECK ("pipeline_stages"."kind" in ('open', 'won', 'lost')),
	CONSTRAINT "pipeline_stages_probability_check" CHECK ("pipeline_stages"."probability" between 0 and 100)
);
--> statement-breakpoint
CREATE TABLE "pipelines" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "companies" ADD CONSTRAINT "companies_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "companies" ADD CONSTRAINT "companies_owner_user_id_users_id_fk" FOREIGN KEY ("owner_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deal_contacts" ADD CONSTRAINT "deal_contacts_deal_id_deals_id_fk" FOREIGN KEY ("deal_id") REFERENCES "public"."deals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deal_contacts" ADD CONSTRAINT "deal_contacts_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deal_stage_history" ADD CONSTRAINT "deal_stage_history_deal_id_deals_id_fk" FOREIGN KEY ("deal_id") REFERENCES "public"."deals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_owner_user_id_users_id_fk" FOREIGN KEY ("owner_user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "deals" ADD CONSTRAINT "deals_pipeline_stage_fk" FOREIGN KEY ("pipeline_id","stage_id") REFERENCES "public"."pipeline_stages"("pipeline_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pipeline_stages" ADD CONSTRAINT "pipeline_stages_pipeline_id_pipelines_id_fk" FOREIGN KEY ("pipeline_id") REFERENCES "public"."pipelines"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pipelines" ADD CONSTRAINT "pipelines_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "companies_organization_domain_key" ON "companies" USING btree ("organization_id","domain");--> statement-breakpoint
CREATE INDEX "companies_organization_created_idx" ON "companies" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "companies_organization_updated_idx" ON "companies" USING btree ("organization_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "companies_organization_name_idx" ON "companies" USING btree ("organization_id",(lower("name") collate "C"),"id");--> statement-breakpoint
CREATE INDEX "companies_organization_owner_idx" ON "companies" USING btree ("organization_id","owner_user_id","created_at");--> statement-breakpoint
CREATE INDEX "deal_contacts_contact_idx" ON "deal_contacts" USING btree ("contact_id","deal_id");--> statement-breakpoint
CREATE INDEX "deal_stage_history_deal_idx" ON "deal_stage_history" USING btree ("deal_id","entered_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "deal_stage_history_open_key" ON "deal_stage_history" USING btree ("deal_id") WHERE "deal_stage_history"."left_at" is null;--> statement-breakpoint
CREATE INDEX "deals_organization_created_idx" ON "deals" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "deals_organization_updated_idx" ON "deals" USING btree ("organization_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "deals_organization_name_idx" ON "deals" USING btree ("organization_id",(lower("name") collate "C"),"id");--> statement-breakpoint
CREATE INDEX "deals_organization_close_idx" ON "deals" USING btree ("organization_id",coalesce("expected_close_date", '9999-12-31'::date),"id");--> statement-breakpoint
CREATE INDEX "deals_organization_owner_idx" ON "deals" USING btree ("organization_id","owner_user_id","created_at");--> statement-breakpoint
CREATE INDEX "deals_stage_board_idx" ON "deals" USING btree ("stage_id","stage_entered_at","id");--> statement-breakpoint
CREATE INDEX "deals_pipeline_totals_idx" ON "deals" USING btree ("pipeline_id","stage_id","currency","amount");--> statement-breakpoint
CREATE INDEX "deals_company_idx" ON "deals" USING btree ("company_id");--> statement-breakpoint
CREATE INDEX "deals_conversation_idx" ON "deals" USING btree ("conversation_id");--> statement-breakpoint
CREATE INDEX "pipeline_stages_pipeline_position_idx" ON "pipeline_stages" USING btree ("pipeline_id","position");--> statement-breakpoint
CREATE INDEX "pipelines_organization_created_idx" ON "pipelines" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "pipelines_organization_default_key" ON "pipelines" USING btree ("organization_id") WHERE "pipelines"."is_default";--> statement-breakpoint
-- Every organization has a default pipeline: new ones get it when they are created
-- (domain/pipelines/defaults.ts, the same stages); the organizations there already get it here.
WITH "made" AS (
  INSERT INTO "pipelines" ("id", "organization_id", "name", "is_default", "created_at", "updated_at")
  SELECT gen_random_uuid(), "organizations"."id", 'Sales', true, now(), now() FROM "organizations"
  RETURNING "id", "organization_id"
)
INSERT INTO "pipeline_stages" ("id", "organization_id", "pipeline_id", "name", "probability", "kind", "position")
SELECT gen_random_uuid(), "made"."organization_id", "made"."id", "s"."name", "s"."probability", "s"."kind", "s"."position"
  FROM "made" CROSS JOIN (VALUES
    ('New', 10, 'open', 0),
    ('Qualified', 25, 'open', 1),
    ('Proposal', 50, 'open', 2),
    ('Negotiation', 75, 'open', 3),
    ('Won', 100, 'won', 4),
    ('Lost', 0, 'lost', 5)
  ) AS "s" ("name", "probability", "kind", "position");
