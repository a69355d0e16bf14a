/**
 * The business cloud API's names for what Parley keeps, read by both halves of the platform: the
 * adapter (template sync and submit answers) and the inbound half (template status webhooks).
 * docs/channels.md ("Template reports") shows the same table.
 */
import type { ProviderTemplateStatus } from '../provider.ts';

/** The statuses the template list (GET /{waba_id}/message_templates) and a submit's answer name. */
const TEMPLATE_STATUS_NAMES: Record<string, ProviderTemplateStatus> = {
  APPROVED: 'approved',
  PENDING: 'pending',
  REJECTED: 'rejected',
  PAUSED: 'paused',
  DISABLED: 'disabled',
  IN_APPEAL: 'pending',
  PENDING_DELETION: 'disabled',
  DELETED: 'disabled',
  LIMIT_EXCEEDED: 'rejected',
  // Archived templates cannot be sent (they are deleted 28 days later unless unarchived).
  ARCHIVED: 'disabled',
};

/**
 * A template status as the provider's list names it -> Parley's. One it does not document reads as
 * `pending` (not sendable until the provider reports a decision): never a status of its own, which
 * the API could not present.
 */
export function templateStatusName(native: string): ProviderTemplateStatus {
  return TEMPLATE_STATUS_NAMES[native.toUpperCase()] ?? 'pending';
}

/** What one event of message_template_status_update does to the template. */
export type TemplateEventDecision = {
  /** The status it gives the template; absent: the template keeps its status. */
  status?: ProviderTemplateStatus;
  /** ARCHIVED: the status it had is kept, to be restored. */
  archive?: true;
  /** UNARCHIVED: back to the status it had before it was archived. */
  restore?: true;
  /** FLAGGED raises the quality warning, REINSTATED lifts it. */
  flagged?: boolean;
};

/** Every event the provider documents for message_template_status_update, mapped explicitly. */
const TEMPLATE_EVENTS: Record<string, TemplateEventDecision> = {
  APPROVED: { status: 'approved' },
  PENDING: { status: 'pending' },
  IN_APPEAL: { status: 'pending' },
  REJECTED: { status: 'rejected' },
  // The account is at its template limit: the template was not created.
  LIMIT_EXCEEDED: { status: 'rejected' },
  PAUSED: { status: 'paused' },
  DISABLED: { status: 'disabled' },
  PENDING_DELETION: { status: 'disabled' },
  DELETED: { status: 'disabled' },
  ARCHIVED: { status: 'disabled', archive: true },
  UNARCHIVED: { restore: true },
  // No longer flagged or disabled: it can be sent again.
  REINSTATED: { status: 'approved', flagged: false },
  // Negative feedback, at risk of being disabled: a quality warning; it can still be sent.
  FLAGGED: { flagged: true },
  // Locked templates cannot be edited; sending is unaffected.
  LOCKED: {},
  UNLOCKED: {},
};

/** The decision an event names; undefined for an event the provider does not document (a note, never a status). */
export function templateEventDecision(event: string): TemplateEventDecision | undefined {
  return TEMPLATE_EVENTS[event.toUpperCase()];
}
