CREATE TABLE "sandbox_profiles" (
	"account_id" text PRIMARY KEY NOT NULL,
	"name" text,
	"about" text,
	"picture_media_id" text,
	"blocked" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"privacy" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
