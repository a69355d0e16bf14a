/**
 * The business cloud API's names for what Parley keeps, read by both halves of the platform: the
 * adapter (template sync and submit answers) and the inbound half (template status webhooks).
 */

const TEMPLATE_STATUS_NAMES: Record<string, string> = {
  APPROVED: 'approved',
  PENDING: 'pending',
  REJECTED: 'rejected',
  PAUSED: 'paused',
  DISABLED: 'disabled',
  IN_APPEAL: 'pending',
  PENDING_DELETION: 'disabled',
  DELETED: 'disabled',
  LIMIT_EXCEEDED: 'rejected',
};

/** A template status as the provider names it -> Parley's (an unknown one kept, lower-cased). */
export function templateStatusName(native: string): string {
  return TEMPLATE_STATUS_NAMES[native.toUpperCase()] ?? native.toLowerCase();
}
