CREATE TABLE "channel_pacing" (
	"channel_id" uuid PRIMARY KEY NOT NULL,
	"next_slot_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "recipient_holds" (
	"channel_id" uuid NOT NULL,
	"recipient" text NOT NULL,
	"until" timestamp with time zone NOT NULL,
	CONSTRAINT "recipient_holds_channel_id_recipient_pk" PRIMARY KEY("channel_id","recipient")
);
--> statement-breakpoint
CREATE INDEX "recipient_holds_until_idx" ON "recipient_holds" USING btree ("until");