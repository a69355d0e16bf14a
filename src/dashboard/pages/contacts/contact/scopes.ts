/** The channel scopes consents and suppressions apply to (all, every chat-app channel, or one channel), in words. */
import type { ChannelRecord } from '../api.ts';

const SCOPES = [
  { value: 'all', label: 'All channels' },
  { value: 'chatapp', label: 'Every chat-app channel' },
];

/** A suppression's own scope: marketing sends (broadcasts) on every channel; opt-outs by message make it. */
const MARKETING = { value: 'marketing', label: 'Marketing (every channel)' };

/** The scopes to pick from; suppressions also take `marketing`. */
export function scopeOptions(channels: ChannelRecord[] | undefined, options: { marketing?: boolean } = {}) {
  return [
    ...SCOPES,
    ...(options.marketing ? [MARKETING] : []),
    ...(channels ?? []).map((c) => ({ value: c.id, label: `${c.name}${c.display_phone_number ? ` (${c.display_phone_number})` : ''}` })),
  ];
}

export function scopeName(scope: string, channels: ChannelRecord[] | undefined): string {
  return [...SCOPES, MARKETING].find((s) => s.value === scope)?.label ?? channels?.find((c) => c.id === scope)?.name ?? scope;
}
