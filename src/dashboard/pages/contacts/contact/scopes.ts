/** The channel scopes consents and suppressions apply to (all, every chat-app channel, or one channel), in words. */
import type { ChannelRecord } from '../api.ts';

const SCOPES = [
  { value: 'all', label: 'All channels' },
  { value: 'chatapp', label: 'Every chat-app channel' },
];

export function scopeOptions(channels: ChannelRecord[] | undefined) {
  return [
    ...SCOPES,
    ...(channels ?? []).map((c) => ({ value: c.id, label: `${c.name}${c.display_phone_number ? ` (${c.display_phone_number})` : ''}` })),
  ];
}

export function scopeName(scope: string, channels: ChannelRecord[] | undefined): string {
  return SCOPES.find((s) => s.value === scope)?.label ?? channels?.find((c) => c.id === scope)?.name ?? scope;
}
