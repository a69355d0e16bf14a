/**
 * Contacts, profiles and calls on the embedded engine's session, run by the process holding the
 * socket (engine/commands.ts, the `profile` command): the library's calls (profilePictureUrl,
 * fetchStatus, getBusinessProfile, updateProfileName/Status/Picture, removeProfilePicture,
 * updateBlockStatus, fetchBlocklist, fetchPrivacySettings and the update…Privacy calls, its privacy-id
 * mappings, rejectCall) and their answers in Parley's words (../../profiles.ts).
 */
import type { WABusinessProfile, WAMessage, WASocket } from 'baileys';
import type { ProviderError, Result } from '../../provider.ts';
import {
  LID_NOT_FOUND,
  NOT_ON_NETWORK,
  PRIVACY_SETTING_NAMES,
  privacyFromCategories,
  type BlockedNumber,
  type BusinessProfile,
  type LidMapping,
  type NumberProfile,
  type OwnProfile,
  type PrivacySettings,
} from '../../profiles.ts';
import { lidOfJid, phoneOfJid } from './ids.ts';

/** The library's calls these operations use (its socket has them all). */
export type ProfileSocket = Pick<
  WASocket,
  | 'profilePictureUrl'
  | 'fetchStatus'
  | 'getBusinessProfile'
  | 'updateProfileName'
  | 'updateProfileStatus'
  | 'updateProfilePicture'
  | 'removeProfilePicture'
  | 'updateBlockStatus'
  | 'fetchBlocklist'
  | 'fetchPrivacySettings'
  | 'updateLastSeenPrivacy'
  | 'updateOnlinePrivacy'
  | 'updateProfilePicturePrivacy'
  | 'updateStatusPrivacy'
  | 'updateReadReceiptsPrivacy'
  | 'updateGroupsAddPrivacy'
  | 'updateCallPrivacy'
  | 'updateMessagesPrivacy'
  | 'rejectCall'
> & {
  /** The paired account, as the socket knows it. */
  readonly user: { id: string; name?: string; lid?: string } | undefined;
  onWhatsApp(...phoneNumbers: string[]): Promise<Array<{ jid: string; exists: boolean }> | undefined>;
  /** The library store's phone jid for a privacy id (`<lid>@lid`); undefined when it holds none. */
  phoneJidOfLid?(lidJid: string): Promise<string | undefined>;
  /** The privacy id (`<lid>@lid`) of a phone jid, from the store or asked of the service; undefined when there is none. */
  lidOfPhoneJid?(phoneJid: string): Promise<string | undefined>;
};

/** What the session keeps in memory for these operations (engine/context.ts Held). */
export type ProfileMemory = {
  /** The name each number set for itself, as the session last saw it on a message (phone digits → push name). */
  pushNames: Map<string, string>;
  /** Ringing calls: call id → the address it came from (what rejectCall must name). */
  calls: Map<string, { from: string; at: number }>;
};

export const PUSH_NAMES_KEPT = 5_000;
export const CALLS_KEPT = 500;

export type ProfileOpInputs = {
  number_profile: { phone: string };
  own_profile: Record<string, never>;
  update_profile: { name?: string; about?: string };
  set_picture: { data: string; mimeType: string };
  remove_picture: Record<string, never>;
  blocklist: Record<string, never>;
  set_blocked: { phone: string; blocked: boolean };
  privacy: Record<string, never>;
  update_privacy: PrivacySettings;
  lookup_lid: { phone: string } | { lid: string };
  reject_call: { id: string; from: string };
};

export type ProfileOpAnswers = {
  number_profile: NumberProfile;
  own_profile: OwnProfile;
  update_profile: OwnProfile;
  set_picture: OwnProfile;
  remove_picture: OwnProfile;
  blocklist: BlockedNumber[];
  set_blocked: BlockedNumber;
  privacy: PrivacySettings;
  update_privacy: PrivacySettings;
  lookup_lid: LidMapping;
  reject_call: Record<string, never>;
};

export type ProfileOp = keyof ProfileOpInputs;
export const PROFILE_OPS = [
  'number_profile',
  'own_profile',
  'update_profile',
  'set_picture',
  'remove_picture',
  'blocklist',
  'set_blocked',
  'privacy',
  'update_privacy',
  'lookup_lid',
  'reject_call',
] as const satisfies readonly ProfileOp[];

const phoneJid = (digits: string) => `${digits}@s.whatsapp.net`;
const lidDigits = (jid: string | undefined | null) => (jid ? (lidOfJid(jid) ?? null) : null);

/** The Boom status the library's error carries (404 item-not-found, 401 not-authorized, ...), if any. */
function statusOf(err: unknown): number | undefined {
  const output = (err as { output?: { statusCode?: unknown } } | null)?.output;
  return typeof output?.statusCode === 'number' ? output.statusCode : undefined;
}

const notOnNetwork = (phone: string): { ok: false; error: ProviderError } => ({
  ok: false,
  error: { code: NOT_ON_NETWORK, title: `+${phone} has no account on the chat network`, retryable: false },
});

/** A picture that is not there, or hidden from us, is none (the library throws 404 or 401 for them). */
async function pictureOf(socket: ProfileSocket, jid: string): Promise<string | null> {
  try {
    return (await socket.profilePictureUrl(jid, 'image')) ?? null;
  } catch (err) {
    const status = statusOf(err);
    if (status === 404 || status === 401 || status === 403) return null;
    throw err;
  }
}

/** The About text and when it was set (the library's status protocol: null text when hidden or unset; time 0 when unknown). */
async function aboutOf(socket: ProfileSocket, jid: string): Promise<{ about: string | null; setAt: string | null }> {
  const [entry] = (await socket.fetchStatus(jid)) ?? [];
  const status = entry?.status as { status?: string | null; setAt?: Date } | undefined;
  const text = typeof status?.status === 'string' && status.status !== '' ? status.status : null;
  const setAt = status?.setAt instanceof Date && status.setAt.getTime() > 0 ? status.setAt.toISOString() : null;
  return { about: text, setAt: text ? setAt : null };
}

/** The library's business profile in Parley's shape (hours: the library's minutes from midnight, as strings in its nodes). */
export function businessOf(profile: WABusinessProfile | void | undefined): BusinessProfile | null {
  if (!profile) return null;
  const minutes = (value: unknown) => (value === undefined || value === null || value === '' ? null : Number(value));
  const days = profile.business_hours?.business_config ?? profile.business_hours?.config ?? [];
  return {
    description: profile.description || null,
    category: profile.category ?? null,
    email: profile.email ?? null,
    website: profile.website ?? [],
    address: profile.address ?? null,
    hours:
      profile.business_hours?.timezone || days.length > 0
        ? {
            timezone: profile.business_hours.timezone ?? null,
            days: days.map((d) => ({
              day: d.day_of_week,
              mode: d.mode,
              open_minute: minutes(d.open_time),
              close_minute: minutes(d.close_time),
            })),
          }
        : null,
  };
}

/** The account's number on the service, or undefined with the error to answer. */
async function existingJid(socket: ProfileSocket, phone: string): Promise<string | undefined> {
  const [found] = (await socket.onWhatsApp(phone)) ?? [];
  return found?.exists ? found.jid : undefined;
}

async function ownProfile(socket: ProfileSocket): Promise<OwnProfile> {
  const user = socket.user;
  const phone = phoneOfJid(user?.id) ?? null;
  if (!phone) return { phone: null, lid: lidDigits(user?.lid), name: user?.name ?? null, about: null, pictureUrl: null };
  const [about, pictureUrl] = await Promise.all([aboutOf(socket, phoneJid(phone)), pictureOf(socket, phoneJid(phone))]);
  return { phone, lid: lidDigits(user?.lid), name: user?.name ?? null, about: about.about, pictureUrl };
}

/** Each blocked address as a number and a privacy id, where the session's mappings know the other half. */
async function blockedOf(socket: ProfileSocket, jid: string): Promise<BlockedNumber> {
  const lid = lidOfJid(jid);
  if (lid) {
    const phoneJidFound = await socket.phoneJidOfLid?.(jid).catch(() => undefined);
    return { phone: phoneOfJid(phoneJidFound) ?? null, lid };
  }
  const phone = phoneOfJid(jid) ?? null;
  const lidJid = phone ? await socket.lidOfPhoneJid?.(phoneJid(phone)).catch(() => undefined) : undefined;
  return { phone, lid: lidDigits(lidJid) };
}

const PRIVACY_UPDATES: Record<keyof PrivacySettings, (socket: ProfileSocket, value: never) => Promise<void>> = {
  last_seen: (s, v) => s.updateLastSeenPrivacy(v),
  online: (s, v) => s.updateOnlinePrivacy(v),
  profile_picture: (s, v) => s.updateProfilePicturePrivacy(v),
  about: (s, v) => s.updateStatusPrivacy(v),
  read_receipts: (s, v) => s.updateReadReceiptsPrivacy(v),
  groups_add: (s, v) => s.updateGroupsAddPrivacy(v),
  calls: (s, v) => s.updateCallPrivacy(v),
  messages: (s, v) => s.updateMessagesPrivacy(v),
};

/** Runs one operation on the held socket; the library's refusals are thrown (the command answers them). */
export async function runProfileOp<K extends ProfileOp>(
  socket: ProfileSocket,
  memory: ProfileMemory,
  op: K,
  input: ProfileOpInputs[K],
): Promise<Result<ProfileOpAnswers[K]>> {
  const answer = await run(socket, memory, op, input as never);
  return answer as Result<ProfileOpAnswers[K]>;
}

async function run(socket: ProfileSocket, memory: ProfileMemory, op: ProfileOp, input: never): Promise<Result<unknown>> {
  switch (op) {
    case 'number_profile': {
      const { phone } = input as ProfileOpInputs['number_profile'];
      const jid = await existingJid(socket, phone);
      if (!jid) return notOnNetwork(phone);
      const [about, pictureUrl, business, lidJid] = await Promise.all([
        aboutOf(socket, jid).catch(() => ({ about: null, setAt: null })),
        pictureOf(socket, jid),
        socket.getBusinessProfile(jid).catch(() => undefined),
        socket.lidOfPhoneJid?.(jid).catch(() => undefined),
      ]);
      const digits = phoneOfJid(jid) ?? phone;
      const profile: NumberProfile = {
        phone: digits,
        lid: lidDigits(lidJid),
        name: memory.pushNames.get(digits) ?? null,
        about: about.about,
        aboutSetAt: about.setAt,
        pictureUrl,
        business: businessOf(business),
      };
      return { ok: true, value: profile };
    }
    case 'own_profile':
      return { ok: true, value: await ownProfile(socket) };
    case 'update_profile': {
      const changes = input as ProfileOpInputs['update_profile'];
      if (changes.name !== undefined) await socket.updateProfileName(changes.name);
      if (changes.about !== undefined) await socket.updateProfileStatus(changes.about);
      const profile = await ownProfile(socket);
      // The library updates its own record of the name when the change comes back; the answer says what was asked.
      return { ok: true, value: { ...profile, ...(changes.name !== undefined ? { name: changes.name } : {}) } };
    }
    case 'set_picture': {
      const { data } = input as ProfileOpInputs['set_picture'];
      const me = socket.user?.id;
      if (!me) return notPaired();
      await socket.updateProfilePicture(me, Buffer.from(data, 'base64'));
      return { ok: true, value: await ownProfile(socket) };
    }
    case 'remove_picture': {
      const me = socket.user?.id;
      if (!me) return notPaired();
      await socket.removeProfilePicture(me);
      return { ok: true, value: await ownProfile(socket) };
    }
    case 'blocklist': {
      const jids = (await socket.fetchBlocklist()).filter((j): j is string => typeof j === 'string');
      return { ok: true, value: await Promise.all(jids.map((jid) => blockedOf(socket, jid))) };
    }
    case 'set_blocked': {
      const { phone, blocked } = input as ProfileOpInputs['set_blocked'];
      const jid = await existingJid(socket, phone);
      if (!jid) return notOnNetwork(phone);
      await socket.updateBlockStatus(jid, blocked ? 'block' : 'unblock');
      return { ok: true, value: await blockedOf(socket, jid) };
    }
    case 'privacy':
      return { ok: true, value: privacyFromCategories(await socket.fetchPrivacySettings(true)) };
    case 'update_privacy': {
      const changes = input as ProfileOpInputs['update_privacy'];
      for (const name of PRIVACY_SETTING_NAMES) {
        const value = changes[name];
        if (value !== undefined) await PRIVACY_UPDATES[name](socket, value as never);
      }
      return { ok: true, value: privacyFromCategories(await socket.fetchPrivacySettings(true)) };
    }
    case 'lookup_lid': {
      const query = input as ProfileOpInputs['lookup_lid'];
      if ('lid' in query) {
        const found = await socket.phoneJidOfLid?.(`${query.lid}@lid`);
        const phone = phoneOfJid(found);
        if (!phone) return lidUnknown(`the session knows no number for the privacy id ${query.lid}`);
        return { ok: true, value: { phone, lid: query.lid } };
      }
      const jid = await existingJid(socket, query.phone);
      if (!jid) return notOnNetwork(query.phone);
      const lid = lidDigits(await socket.lidOfPhoneJid?.(jid));
      if (!lid) return lidUnknown(`the chat network gave no privacy id for +${query.phone}`);
      return { ok: true, value: { phone: phoneOfJid(jid) ?? query.phone, lid } };
    }
    case 'reject_call': {
      const { id, from } = input as ProfileOpInputs['reject_call'];
      // The address the offer came from (a privacy id, often); the caller's number when the session did not see it ring.
      const ringing = memory.calls.get(id);
      await socket.rejectCall(id, ringing?.from ?? phoneJid(from));
      memory.calls.delete(id);
      return { ok: true, value: {} };
    }
    default:
      return op satisfies never;
  }
}

const notPaired = (): { ok: false; error: ProviderError } => ({
  ok: false,
  error: { code: 'session_not_running', title: 'the session is not paired', retryable: true },
});

const lidUnknown = (title: string): { ok: false; error: ProviderError } => ({
  ok: false,
  error: { code: LID_NOT_FOUND, title, retryable: false },
});

/** Remembers a number's push name (bounded: the oldest goes first). */
export function rememberPushName(memory: ProfileMemory, phone: string, name: string): void {
  memory.pushNames.delete(phone);
  memory.pushNames.set(phone, name);
  if (memory.pushNames.size > PUSH_NAMES_KEPT) memory.pushNames.delete(memory.pushNames.keys().next().value!);
}

/** The push names the customers' messages carry, by phone (the business's own messages are not theirs). */
export function rememberPushNames(memory: ProfileMemory, messages: WAMessage[]): void {
  for (const m of messages) {
    const key = m.key;
    if (!key || key.fromMe || typeof m.pushName !== 'string' || m.pushName === '') continue;
    const phone =
      phoneOfJid(key.participant) ?? phoneOfJid(key.participantAlt) ?? phoneOfJid(key.remoteJid) ?? phoneOfJid(key.remoteJidAlt);
    if (phone) rememberPushName(memory, phone, m.pushName);
  }
}

/** Remembers where a ringing call came from (bounded, and forgotten ten minutes on). */
export function rememberCall(memory: ProfileMemory, id: string, from: string, now: number): void {
  memory.calls.set(id, { from, at: now });
  for (const [key, call] of memory.calls) {
    if (memory.calls.size <= CALLS_KEPT && now - call.at < 600_000) break;
    memory.calls.delete(key);
  }
}
