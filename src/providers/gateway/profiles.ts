/**
 * Contacts and profiles on both engines of unofficial channels: the HTTP gateway protocol's profile,
 * blocklist, privacy and privacy-id calls (docs/gateway-protocol.md), or the embedded engine's session
 * (embedded/profiles.ts runs them on the socket, in the process holding it).
 */
import type { ChannelConnection, ProviderError, Result } from '../provider.ts';
import type { BlockedNumber, BusinessProfile, LidMapping, NumberProfile, OwnProfile, PrivacySettings, ProfileCalls } from '../profiles.ts';
import { privacyOf } from '../profiles.ts';
import { NO_ENGINE, type GatewayAccess } from './access.ts';
import type { ProfileOp, ProfileOpAnswers, ProfileOpInputs } from './embedded/profiles.ts';

/** The protocol's wire shapes (snake_case, as every other call of the protocol). */
type WireBusiness = {
  description?: string | null;
  category?: string | null;
  email?: string | null;
  website?: string[] | null;
  address?: string | null;
  hours?: {
    timezone?: string | null;
    days?: Array<{ day: string; mode: string; open_minute?: number | null; close_minute?: number | null }>;
  } | null;
};
type WireNumberProfile = {
  phone: string;
  lid?: string | null;
  name?: string | null;
  about?: string | null;
  about_set_at?: string | null;
  picture_url?: string | null;
  business?: WireBusiness | null;
};
type WireOwnProfile = {
  phone?: string | null;
  lid?: string | null;
  name?: string | null;
  about?: string | null;
  picture_url?: string | null;
};
type WireBlocked = { phone?: string | null; lid?: string | null };

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const int = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) ? value : null);

function businessOf(wire: WireBusiness | null | undefined): BusinessProfile | null {
  if (!wire || typeof wire !== 'object') return null;
  return {
    description: str(wire.description),
    category: str(wire.category),
    email: str(wire.email),
    website: Array.isArray(wire.website) ? wire.website.filter((w): w is string => typeof w === 'string') : [],
    address: str(wire.address),
    hours: wire.hours
      ? {
          timezone: str(wire.hours.timezone),
          days: (Array.isArray(wire.hours.days) ? wire.hours.days : []).map((d) => ({
            day: String(d.day),
            mode: String(d.mode),
            open_minute: int(d.open_minute),
            close_minute: int(d.close_minute),
          })),
        }
      : null,
  };
}

const ownOf = (wire: WireOwnProfile): OwnProfile => ({
  phone: str(wire.phone),
  lid: str(wire.lid),
  name: str(wire.name),
  about: str(wire.about),
  pictureUrl: str(wire.picture_url),
});

const blockedOf = (wire: WireBlocked): BlockedNumber => ({ phone: str(wire.phone), lid: str(wire.lid) });

const badAnswer = (what: string): { ok: false; error: ProviderError } => ({
  ok: false,
  error: { code: 'bad_response', title: `the gateway answered ${what}`, retryable: false },
});

export function createGatewayProfiles(access: GatewayAccess): ProfileCalls {
  const { client, session } = access;
  /** Runs an operation on the embedded engine's session; undefined for a channel on the HTTP protocol. */
  const onEngine = async <K extends ProfileOp>(
    connection: ChannelConnection,
    op: K,
    input: ProfileOpInputs[K],
  ): Promise<Result<ProfileOpAnswers[K]> | undefined> => {
    const engine = access.embedded(connection);
    if (engine === undefined) return undefined;
    if (engine === null) return { ok: false, error: NO_ENGINE };
    return engine.profiles(connection.channelId, op, input);
  };
  const call = <T>(connection: ChannelConnection, method: string, path: string, body?: unknown) =>
    client(connection).call<T>(method, `sessions/${session(connection)}/${path}`, body);
  const own = async (connection: ChannelConnection, method: string, path: string, body?: unknown): Promise<Result<OwnProfile>> => {
    const result = await call<WireOwnProfile>(connection, method, path, body);
    if (!result.ok) return result;
    return { ok: true, value: ownOf(result.value ?? {}) };
  };

  const privacy = async (connection: ChannelConnection, method: string, body?: PrivacySettings): Promise<Result<PrivacySettings>> => {
    const result = await call<Record<string, unknown>>(connection, method, 'privacy', body);
    if (!result.ok) return result;
    return { ok: true, value: privacyOf(result.value ?? {}) };
  };

  return {
    async numberProfile(connection, phone) {
      const engine = await onEngine(connection, 'number_profile', { phone });
      if (engine) return engine;
      const result = await call<WireNumberProfile>(connection, 'GET', `profiles/${encodeURIComponent(phone)}`);
      if (!result.ok) return result;
      const w = result.value;
      if (!w || typeof w !== 'object') return badAnswer('a profile that is not an object');
      const profile: NumberProfile = {
        phone: str(w.phone) ?? phone,
        lid: str(w.lid),
        name: str(w.name),
        about: str(w.about),
        aboutSetAt: str(w.about_set_at),
        pictureUrl: str(w.picture_url),
        business: businessOf(w.business),
      };
      return { ok: true, value: profile };
    },

    async ownProfile(connection) {
      return (await onEngine(connection, 'own_profile', {})) ?? own(connection, 'GET', 'profile');
    },

    async updateOwnProfile(connection, changes) {
      return (await onEngine(connection, 'update_profile', changes)) ?? own(connection, 'PATCH', 'profile', changes);
    },

    async setProfilePicture(connection, picture) {
      const data = Buffer.from(picture.bytes).toString('base64');
      return (
        (await onEngine(connection, 'set_picture', { data, mimeType: picture.mimeType })) ??
        own(connection, 'PUT', 'profile/picture', { data, mime_type: picture.mimeType })
      );
    },

    async removeProfilePicture(connection) {
      return (await onEngine(connection, 'remove_picture', {})) ?? own(connection, 'DELETE', 'profile/picture');
    },

    async blocklist(connection) {
      const engine = await onEngine(connection, 'blocklist', {});
      if (engine) return engine;
      const result = await call<{ blocked?: WireBlocked[] }>(connection, 'GET', 'blocklist');
      if (!result.ok) return result;
      if (!Array.isArray(result.value?.blocked)) return badAnswer('a blocklist without its `blocked` list');
      return { ok: true, value: result.value.blocked.map(blockedOf) };
    },

    async setBlocked(connection, phone, blocked) {
      const engine = await onEngine(connection, 'set_blocked', { phone, blocked });
      if (engine) return engine;
      const result = await call<WireBlocked>(connection, blocked ? 'PUT' : 'DELETE', `blocklist/${encodeURIComponent(phone)}`);
      if (!result.ok) return result;
      return { ok: true, value: { phone: str(result.value?.phone) ?? phone, lid: str(result.value?.lid) } };
    },

    async privacy(connection) {
      return (await onEngine(connection, 'privacy', {})) ?? privacy(connection, 'GET');
    },

    async updatePrivacy(connection, changes) {
      return (await onEngine(connection, 'update_privacy', changes)) ?? privacy(connection, 'PATCH', changes);
    },

    async lookupLid(connection, query) {
      const engine = await onEngine(connection, 'lookup_lid', query);
      if (engine) return engine;
      const path = 'lid' in query ? `lids/${encodeURIComponent(query.lid)}` : `lids/pn/${encodeURIComponent(query.phone)}`;
      const result = await call<{ phone?: string | null; lid?: string | null }>(connection, 'GET', path);
      if (!result.ok) return result;
      const mapping: LidMapping = { phone: str(result.value?.phone), lid: str(result.value?.lid) };
      return { ok: true, value: mapping };
    },
  };
}
