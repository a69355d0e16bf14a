CREATE TABLE "order_counters" (
	"organization_id" uuid PRIMARY KEY NOT NULL,
	"last_no" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"order_no" bigint NOT NULL,
	"status" text NOT NULL,
	"payment_status" text NOT NULL,
	"contact_id" uuid,
	"conversation_id" uuid,
	"message_id" uuid,
	"source" text NOT NULL,
	"catalog_id" text,
	"currency" text NOT NULL,
	"items" jsonb NOT NULL,
	"total_amount" bigint NOT NULL,
	"note" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "orders_status_check" CHECK ("orders"."status" in ('pending', 'confirmed', 'shipped', 'delivered', 'cancelled')),
	CONSTRAINT "orders_payment_status_check" CHECK ("orders"."payment_status" in ('pending', 'paid', 'failed', 'refunded')),
	CONSTRAINT "orders_source_check" CHECK ("orders"."source" in ('message', 'api')),
	CONSTRAINT "orders_currency_check" CHECK ("orders"."currency" ~ '^[A-Z]{3}$'),
	CONSTRAINT "orders_total_check" CHECK ("orders"."total_amount" >= 0),
	CONSTRAINT "orders_items_check" CHECK (jsonb_typeof("orders"."items") = 'array')
);
--> statement-breakpoint
ALTER TABLE "order_counters" ADD CONSTRAINT "order_counters_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "orders_organization_no_key" ON "orders" USING btree ("organization_id","order_no");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_message_key" ON "orders" USING btree ("message_id");--> statement-breakpoint
CREATE INDEX "orders_organization_created_idx" ON "orders" USING btree ("organization_id","created_at","id");--> statement-breakpoint
CREATE INDEX "orders_organization_status_idx" ON "orders" USING btree ("organization_id","status","created_at","id");--> statement-breakpoint
CREATE INDEX "orders_organization_payment_idx" ON "orders" USING btree ("organization_id","payment_status","created_at","id");--> statement-breakpoint
CREATE INDEX "orders_contact_idx" ON "orders" USING btree ("contact_id","created_at","id");