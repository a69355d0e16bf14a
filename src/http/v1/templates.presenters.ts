/** The template routes' records (templates.ts): the presenters that turn the domain's rows into them, typed from the response schemas. */
import type { z } from 'zod';
import type { TemplateRow } from '../../domain/templates/templates.ts';
import type { TemplateSchema, TemplateSyncSchema } from './templates.ts';

export type TemplateRecord = z.infer<typeof TemplateSchema>;
export type TemplateSyncRecord = z.infer<typeof TemplateSyncSchema>;

export function presentTemplate(row: TemplateRow): TemplateRecord {
  return {
    id: row.id,
    channel_id: row.channelId,
    name: row.name,
    language: row.language,
    category: row.category,
    components: row.components,
    status: row.status as TemplateRecord['status'],
    rejection_reason: row.rejectionReason,
    provider_template_id: row.providerTemplateId,
    quality: row.quality
      ? { score: row.quality.score, flagged: row.quality.flagged, reason: row.quality.reason, updated_at: row.quality.updated_at }
      : null,
    provider_note: row.providerNote
      ? { event: row.providerNote.event, reason: row.providerNote.reason, received_at: row.providerNote.received_at }
      : null,
    submitted_at: row.submittedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
