DROP INDEX "messages_contact_idx";--> statement-breakpoint
CREATE INDEX "messages_contact_created_idx" ON "messages" USING btree ("contact_id","created_at","id");