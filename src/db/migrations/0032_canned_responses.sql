CREATE TABLE "canned_responses" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"owner_user_id" uuid,
	"name" text NOT NULL,
	"shortcut" text NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "canned_responses_shortcut_check" CHECK ("canned_responses"."shortcut" ~ '^[a-z0-9][a-z0-9_-]{0,31}$')
);
--> statement-breakpoint
ALTER TABLE "canned_responses" ADD CONSTRAINT "canned_responses_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "canned_responses" ADD CONSTRAINT "canned_responses_owner_user_id_users_id_fk" FOREIGN KEY ("owner_user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "canned_responses_shared_shortcut_key" ON "canned_responses" USING btree ("organization_id","shortcut") WHERE "canned_responses"."owner_user_id" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "canned_responses_own_shortcut_key" ON "canned_responses" USING btree ("organization_id","owner_user_id","shortcut") WHERE "canned_responses"."owner_user_id" is not null;--> statement-breakpoint
CREATE INDEX "canned_responses_organization_shortcut_idx" ON "canned_responses" USING btree ("organization_id","shortcut","id");