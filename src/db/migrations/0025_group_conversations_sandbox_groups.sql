CREATE TABLE "sandbox_groups" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"subject" text NOT NULL,
	"description" text,
	"owner" text,
	"announcement" boolean DEFAULT false NOT NULL,
	"locked" boolean DEFAULT false NOT NULL,
	"members_can_add" boolean DEFAULT false NOT NULL,
	"join_approval" boolean DEFAULT false NOT NULL,
	"ephemeral_seconds" integer DEFAULT 0 NOT NULL,
	"participants" jsonb NOT NULL,
	"invite_code" text NOT NULL,
	"picture_url" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "sandbox_accounts" ADD COLUMN "settings" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
CREATE INDEX "sandbox_groups_account_idx" ON "sandbox_groups" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sandbox_groups_invite_code_key" ON "sandbox_groups" USING btree ("invite_code");
--> statement-breakpoint
-- A group is one conversation, keyed by the group's id: inbound group messages filed under their sender's conversation move to it (the sender stays the message's).
CREATE TEMP TABLE "group_moves" AS
SELECT m.id AS message_id, m.conversation_id AS from_id, m.organization_id, m.channel_id, m.content->'group'->>'id' AS group_id, m.created_at,
  m.created_at > coalesce(c.last_read_at, '-infinity'::timestamptz) AS unread
FROM "messages" m JOIN "conversations" c ON c.id = m.conversation_id
WHERE m.direction = 'inbound' AND (m.content->'group'->>'id') ~ '^[0-9]{5,20}(-[0-9]{5,20})?@g\.us$' AND c.peer_phone <> m.content->'group'->>'id';--> statement-breakpoint
INSERT INTO "conversations" (id, organization_id, channel_id, peer_phone, status, created_at, updated_at)
SELECT gen_random_uuid(), organization_id, channel_id, group_id, 'open', min(created_at), now() FROM "group_moves"
GROUP BY organization_id, channel_id, group_id
ON CONFLICT (channel_id, peer_phone) DO NOTHING;--> statement-breakpoint
UPDATE "messages" m SET conversation_id = g.id
FROM "group_moves" gm JOIN "conversations" g ON g.channel_id = gm.channel_id AND g.peer_phone = gm.group_id
WHERE m.id = gm.message_id;--> statement-breakpoint
UPDATE "conversations" c SET unread_count = greatest(0, c.unread_count - x.n)
FROM (SELECT from_id, count(*) FILTER (WHERE unread) AS n FROM "group_moves" GROUP BY from_id) x
WHERE c.id = x.from_id;--> statement-breakpoint
UPDATE "conversations" g SET unread_count = g.unread_count + x.n
FROM (SELECT channel_id, group_id, count(*) FILTER (WHERE unread) AS n FROM "group_moves" GROUP BY channel_id, group_id) x
WHERE g.channel_id = x.channel_id AND g.peer_phone = x.group_id;--> statement-breakpoint
UPDATE "conversations" c SET
  last_message_at = last.created_at,
  last_message_preview = last.preview,
  last_inbound_at = (SELECT max(i.created_at) FROM "messages" i WHERE i.conversation_id = c.id AND i.direction = 'inbound')
FROM (
  SELECT DISTINCT ON (m.conversation_id) m.conversation_id, m.created_at,
    left(coalesce(nullif(m.content->>'body', ''), nullif(m.content->>'caption', ''), nullif(m.content->>'question', ''), nullif(m.content->>'title', ''), '[' || m.type || ']'), 160) AS preview
  FROM "messages" m
  WHERE m.conversation_id IN (
    SELECT from_id FROM "group_moves"
    UNION SELECT g.id FROM "conversations" g JOIN "group_moves" gm ON g.channel_id = gm.channel_id AND g.peer_phone = gm.group_id)
  ORDER BY m.conversation_id, m.created_at DESC, m.id DESC
) last
WHERE c.id = last.conversation_id;--> statement-breakpoint
UPDATE "conversations" c SET last_message_at = NULL, last_message_preview = NULL, last_inbound_at = NULL, unread_count = 0
WHERE c.id IN (SELECT from_id FROM "group_moves") AND NOT EXISTS (SELECT 1 FROM "messages" m WHERE m.conversation_id = c.id);--> statement-breakpoint
DROP TABLE "group_moves";
