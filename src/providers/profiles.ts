/**
 * Contacts and profiles as a provider answers them (operations `profiles.read`, `profile.update`,
 * `contacts.block`, `privacy.settings`, `contacts.lid`) and calls (`calls.reject`), in Parley's own
 * words. Numbers are international digits without `+`; a privacy id (the chat network's LID) is its
 * digits without `@lid`. Everything here travels through JSON (the embedded engine's commands), so
 * times are ISO strings.
 */
import type { ChannelConnection, Result } from './provider.ts';

/** A business account's profile, as the number's owner set it. */
export type BusinessProfile = {
  description: string | null;
  category: string | null;
  email: string | null;
  website: string[];
  address: string | null;
  /** Opening hours: the time zone and, per day, `open_24h`, `appointment_only` or `specific_hours` with minutes from midnight. */
  hours: {
    timezone: string | null;
    days: Array<{ day: string; mode: string; open_minute: number | null; close_minute: number | null }>;
  } | null;
};

/** What the chat network shows of a number. A field the number hides from us (its privacy settings), or never set, is null. */
export type NumberProfile = {
  phone: string;
  lid: string | null;
  /** The name the number set for itself (its push name), where the provider has seen it. */
  name: string | null;
  about: string | null;
  aboutSetAt: string | null;
  /** A URL of the profile picture on the chat network's servers (it lapses after a while: fetch it soon). */
  pictureUrl: string | null;
  /** Present for business accounts. */
  business: BusinessProfile | null;
};

/** The channel's own account. */
export type OwnProfile = {
  phone: string | null;
  lid: string | null;
  name: string | null;
  about: string | null;
  pictureUrl: string | null;
};

/**
 * Privacy settings, by Parley's name; each maps to one of the chat network's categories (in
 * parentheses) and takes the values listed.
 */
export const PRIVACY_SETTINGS = {
  /** Who sees when the account was last online (`last`). */
  last_seen: ['all', 'contacts', 'contact_blacklist', 'none'],
  /** Who sees that it is online now (`online`). */
  online: ['all', 'match_last_seen'],
  /** Who sees the profile picture (`profile`). */
  profile_picture: ['all', 'contacts', 'contact_blacklist', 'none'],
  /** Who sees the About text (`status`). */
  about: ['all', 'contacts', 'contact_blacklist', 'none'],
  /** Whether read receipts are sent and shown (`readreceipts`). */
  read_receipts: ['all', 'none'],
  /** Who may add the account to groups (`groupadd`). */
  groups_add: ['all', 'contacts', 'contact_blacklist'],
  /** Who may call it (`calladd`). */
  calls: ['all', 'known'],
  /** Who may message it (`messages`). */
  messages: ['all', 'contacts'],
} as const;

export type PrivacySetting = keyof typeof PRIVACY_SETTINGS;
export type PrivacySettings = { [K in PrivacySetting]?: (typeof PRIVACY_SETTINGS)[K][number] };
export const PRIVACY_SETTING_NAMES = Object.keys(PRIVACY_SETTINGS) as PrivacySetting[];

/** The chat network's name of each category. */
export const PRIVACY_CATEGORIES: Record<PrivacySetting, string> = {
  last_seen: 'last',
  online: 'online',
  profile_picture: 'profile',
  about: 'status',
  read_receipts: 'readreceipts',
  groups_add: 'groupadd',
  calls: 'calladd',
  messages: 'messages',
};

/** The known settings with known values of a record by Parley's names (anything else is left out). */
export function privacyOf(settings: Record<string, unknown>): PrivacySettings {
  const out: Record<string, string> = {};
  for (const name of PRIVACY_SETTING_NAMES) {
    const value = settings[name];
    if (typeof value === 'string' && (PRIVACY_SETTINGS[name] as readonly string[]).includes(value)) out[name] = value;
  }
  return out as PrivacySettings;
}

/** Privacy settings read from the chat network's categories (unknown categories and values are left out). */
export function privacyFromCategories(categories: Record<string, unknown>): PrivacySettings {
  return privacyOf(Object.fromEntries(PRIVACY_SETTING_NAMES.map((name) => [name, categories[PRIVACY_CATEGORIES[name]]])));
}

/** A blocked account: its number where known, its privacy id where known (at least one). */
export type BlockedNumber = { phone: string | null; lid: string | null };

/** A number and its privacy id (either may be unknown: null). */
export type LidMapping = { phone: string | null; lid: string | null };

/** A picture for the channel's own profile: JPEG or PNG bytes. */
export type ProfilePicture = { bytes: Uint8Array; mimeType: string };

/** The provider calls behind the profile operations (ProviderAdapter.profiles). */
export type ProfileCalls = {
  /** `profiles.read`: a number's profile; `not_on_network` when it has no account. */
  numberProfile(connection: ChannelConnection, phone: string): Promise<Result<NumberProfile>>;
  /** `profile.update`: the channel's own profile, and changes to it. */
  ownProfile(connection: ChannelConnection): Promise<Result<OwnProfile>>;
  updateOwnProfile(connection: ChannelConnection, changes: { name?: string; about?: string }): Promise<Result<OwnProfile>>;
  setProfilePicture(connection: ChannelConnection, picture: ProfilePicture): Promise<Result<OwnProfile>>;
  removeProfilePicture(connection: ChannelConnection): Promise<Result<OwnProfile>>;
  /** `contacts.block`: the accounts the channel blocks, and blocking or unblocking a number. */
  blocklist(connection: ChannelConnection): Promise<Result<BlockedNumber[]>>;
  setBlocked(connection: ChannelConnection, phone: string, blocked: boolean): Promise<Result<BlockedNumber>>;
  /** `privacy.settings`. */
  privacy(connection: ChannelConnection): Promise<Result<PrivacySettings>>;
  updatePrivacy(connection: ChannelConnection, changes: PrivacySettings): Promise<Result<PrivacySettings>>;
  /** `contacts.lid`: a number's privacy id, or a privacy id's number; `not_found` when the provider knows none. */
  lookupLid(connection: ChannelConnection, query: { phone: string } | { lid: string }): Promise<Result<LidMapping>>;
};

/** The provider call behind `calls.reject`: `from` is the caller's number. */
export type CallCalls = {
  rejectCall(connection: ChannelConnection, call: { id: string; from: string }): Promise<Result<Record<string, never>>>;
};

/** The provider error codes the profile calls answer with for a number or a privacy id the network does not know. */
export const NOT_ON_NETWORK = 'not_on_network';
export const LID_NOT_FOUND = 'not_found';
