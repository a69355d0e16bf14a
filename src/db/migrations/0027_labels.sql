CREATE TABLE "channel_label_chats" (
	"channel_id" uuid NOT NULL,
	"label_id" text NOT NULL,
	"chat" text NOT NULL,
	"message_id" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "channel_label_chats_channel_id_label_id_chat_message_id_pk" PRIMARY KEY("channel_id","label_id","chat","message_id")
);
--> statement-breakpoint
CREATE TABLE "channel_labels" (
	"channel_id" uuid NOT NULL,
	"organization_id" uuid NOT NULL,
	"label_id" text NOT NULL,
	"name" text NOT NULL,
	"color" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "channel_labels_channel_id_label_id_pk" PRIMARY KEY("channel_id","label_id")
);
--> statement-breakpoint
CREATE TABLE "sandbox_labels" (
	"account_id" text NOT NULL,
	"id" text NOT NULL,
	"name" text NOT NULL,
	"color" integer DEFAULT 0 NOT NULL,
	"chats" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sandbox_labels_account_id_id_pk" PRIMARY KEY("account_id","id")
);
--> statement-breakpoint
ALTER TABLE "channel_label_chats" ADD CONSTRAINT "channel_label_chats_channel_id_label_id_channel_labels_channel_id_label_id_fk" FOREIGN KEY ("channel_id","label_id") REFERENCES "public"."channel_labels"("channel_id","label_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_labels" ADD CONSTRAINT "channel_labels_channel_id_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."channels"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "channel_labels" ADD CONSTRAINT "channel_labels_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "channel_label_chats_chat_idx" ON "channel_label_chats" USING btree ("channel_id","chat");