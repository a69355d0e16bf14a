CREATE TABLE "list_entries" (
	"list_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"record_kind" text NOT NULL,
	"record_id" uuid NOT NULL,
	"contact_id" uuid GENERATED ALWAYS AS (case when "record_kind" = 'contact' then "record_id" end) STORED,
	"company_id" uuid GENERATED ALWAYS AS (case when "record_kind" = 'company' then "record_id" end) STORED,
	"deal_id" uuid GENERATED ALWAYS AS (case when "record_kind" = 'deal' then "record_id" end) STORED,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "list_entries_list_id_record_id_pk" PRIMARY KEY("list_id","record_id"),
	CONSTRAINT "list_entries_kind_check" CHECK ("list_entries"."record_kind" in ('contact', 'company', 'deal'))
);
--> statement-breakpoint
CREATE TABLE "lists" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"description" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "lists_kind_check" CHECK ("lists"."kind" in ('contact', 'company', 'deal'))
);
--> statement-breakpoint
CREATE TABLE "segments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"filter" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "list_entries" ADD CONSTRAINT "list_entries_list_id_lists_id_fk" FOREIGN KEY ("list_id") REFERENCES "public"."lists"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "list_entries" ADD CONSTRAINT "list_entries_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "list_entries" ADD CONSTRAINT "list_entries_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "list_entries" ADD CONSTRAINT "list_entries_deal_id_deals_id_fk" FOREIGN KEY ("deal_id") REFERENCES "public"."deals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "lists" ADD CONSTRAINT "lists_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "segments" ADD CONSTRAINT "segments_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "list_entries_list_created_idx" ON "list_entries" USING btree ("list_id","created_at","record_id");--> statement-breakpoint
CREATE INDEX "list_entries_record_idx" ON "list_entries" USING btree ("record_id","list_id");--> statement-breakpoint
CREATE INDEX "list_entries_contact_idx" ON "list_entries" USING btree ("contact_id") WHERE "list_entries"."contact_id" is not null;--> statement-breakpoint
CREATE INDEX "list_entries_company_idx" ON "list_entries" USING btree ("company_id") WHERE "list_entries"."company_id" is not null;--> statement-breakpoint
CREATE INDEX "list_entries_deal_idx" ON "list_entries" USING btree ("deal_id") WHERE "list_entries"."deal_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "lists_organization_name_key" ON "lists" USING btree ("organization_id",lower("name"));--> statement-breakpoint
CREATE INDEX "lists_organization_created_idx" ON "lists" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "lists_organization_updated_idx" ON "lists" USING btree ("organization_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "lists_organization_name_idx" ON "lists" USING btree ("organization_id",(lower("name") collate "C"),"id");--> statement-breakpoint
CREATE UNIQUE INDEX "segments_organization_name_key" ON "segments" USING btree ("organization_id",lower("name"));--> statement-breakpoint
CREATE INDEX "segments_organization_created_idx" ON "segments" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "segments_organization_updated_idx" ON "segments" USING btree ("organization_id","updated_at","id");--> statement-breakpoint
CREATE INDEX "segments_organization_name_idx" ON "segments" USING btree ("organization_id",(lower("name") collate "C"),"id");