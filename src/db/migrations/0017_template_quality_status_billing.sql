ALTER TABLE "message_status_history" ADD COLUMN "pricing" jsonb;--> statement-breakpoint
ALTER TABLE "message_status_history" ADD COLUMN "conversation" jsonb;--> statement-breakpoint
ALTER TABLE "templates" ADD COLUMN "quality" jsonb;--> statement-breakpoint
ALTER TABLE "templates" ADD COLUMN "provider_note" jsonb;--> statement-breakpoint
-- Templates an earlier version left in a status of the provider's own (a template report it did not know,
-- lower-cased: 'flagged', 'reinstated', 'archived', ...), which the API cannot present: each takes the
-- status its report means (docs/channels.md, "Template reports"), the report kept as the template's note.
-- A report that says nothing of the status leaves the template `pending` until the next sync or report.
UPDATE "templates" SET
  "status" = CASE "status"
    WHEN 'reinstated' THEN 'approved'
    WHEN 'flagged' THEN 'approved'
    WHEN 'archived' THEN 'disabled'
    ELSE 'pending'
  END,
  "quality" = CASE WHEN "status" = 'flagged'
    THEN jsonb_build_object('score', null, 'flagged', true, 'reason', "rejection_reason", 'updated_at', to_char("updated_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
    ELSE "quality" END,
  "provider_note" = jsonb_build_object('event', upper("status"), 'reason', "rejection_reason", 'received_at', to_char("updated_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
  "rejection_reason" = CASE WHEN "status" IN ('reinstated', 'flagged') THEN null ELSE "rejection_reason" END
WHERE "status" NOT IN ('draft', 'pending', 'approved', 'rejected', 'paused', 'disabled');
