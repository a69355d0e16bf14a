/** The profile routes' records (channel-profiles.ts): provider answers in the API's shapes, typed from the response schemas. */
import type { z } from 'zod';
import type { BlockedNumber, LidMapping, NumberProfile, OwnProfile, PrivacySettings } from '../../domain/channels/profiles.ts';
import { PRIVACY_SETTING_NAMES } from '../../providers/profiles.ts';
import type {
  BlockedNumberSchema,
  ChannelProfileSchema,
  LidMappingSchema,
  NumberProfileSchema,
  PrivacySettingsSchema,
} from './channel-profiles.ts';

export type NumberProfileRecord = z.infer<typeof NumberProfileSchema>;
export type ChannelProfileRecord = z.infer<typeof ChannelProfileSchema>;
export type BlockedNumberRecord = z.infer<typeof BlockedNumberSchema>;
export type PrivacySettingsRecord = z.infer<typeof PrivacySettingsSchema>;
export type LidMappingRecord = z.infer<typeof LidMappingSchema>;

/** International digits as E.164 (`+` and the digits), as the API writes numbers. */
const e164 = (digits: string | null) => (digits ? `+${digits}` : null);

export function presentNumberProfile(profile: NumberProfile): NumberProfileRecord {
  return {
    phone: e164(profile.phone)!,
    lid: profile.lid,
    name: profile.name,
    about: profile.about,
    about_set_at: profile.aboutSetAt,
    picture_url: profile.pictureUrl,
    business: profile.business,
  };
}

export function presentChannelProfile(profile: OwnProfile): ChannelProfileRecord {
  return { phone: e164(profile.phone), lid: profile.lid, name: profile.name, about: profile.about, picture_url: profile.pictureUrl };
}

export function presentBlocked(blocked: BlockedNumber): BlockedNumberRecord {
  return { phone: e164(blocked.phone), lid: blocked.lid };
}

/** Every setting, null where the provider said nothing of it. */
export function presentPrivacy(settings: PrivacySettings): PrivacySettingsRecord {
  return Object.fromEntries(PRIVACY_SETTING_NAMES.map((name) => [name, settings[name] ?? null])) as PrivacySettingsRecord;
}

export function presentLid(mapping: LidMapping): LidMappingRecord {
  return { phone: e164(mapping.phone), lid: mapping.lid };
}
