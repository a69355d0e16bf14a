CREATE TABLE "channel_session_commands" (
	"id" uuid PRIMARY KEY NOT NULL,
	"channel_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"input_sealed" text NOT NULL,
	"result_sealed" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "channel_session_keys" (
	"channel_id" uuid NOT NULL,
	"type" text NOT NULL,
	"key_id" text NOT NULL,
	"value_sealed" text NOT NULL,
	CONSTRAINT "channel_session_keys_channel_id_type_key_id_pk" PRIMARY KEY("channel_id","type","key_id")
);
--> statement-breakpoint
CREATE TABLE "channel_sessions" (
	"channel_id" uuid PRIMARY KEY NOT NULL,
	"wanted" boolean DEFAULT false NOT NULL,
	"owner" text,
	"lease_until" timestamp with time zone,
	"state" text DEFAULT 'STOPPED' NOT NULL,
	"qr_sealed" text,
	"qr_expires_at" timestamp with time zone,
	"phone" text,
	"push_name" text,
	"disconnect_reason" text,
	"disconnect_code" integer,
	"reconnect_attempts" integer DEFAULT 0 NOT NULL,
	"next_reconnect_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "channel_session_commands" ADD CONSTRAINT "channel_session_commands_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_session_keys" ADD CONSTRAINT "channel_session_keys_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_sessions" ADD CONSTRAINT "channel_sessions_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "channel_session_commands_channel_idx" ON "channel_session_commands" USING btree ("channel_id","state");--> statement-breakpoint
CREATE INDEX "channel_sessions_wanted_idx" ON "channel_sessions" USING btree ("lease_until") WHERE "channel_sessions"."wanted";