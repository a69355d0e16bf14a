CREATE TABLE "channel_session_messages" (
	"channel_id" uuid NOT NULL,
	"message_id" text NOT NULL,
	"remote_jid" text NOT NULL,
	"participant" text,
	"from_me" boolean NOT NULL,
	"message_sealed" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "channel_session_messages_channel_id_message_id_pk" PRIMARY KEY("channel_id","message_id")
);
--> statement-breakpoint
ALTER TABLE "channel_session_messages" ADD CONSTRAINT "channel_session_messages_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "channel_session_messages_age_idx" ON "channel_session_messages" USING btree ("channel_id","created_at");