/**
 * Contacts and profiles through a channel's provider (unofficial channels; docs/channels.md, "Profiles,
 * blocking and privacy"): a number's profile (`profiles.read`), the channel's own profile
 * (`profile.update`), blocking (`contacts.block`), privacy settings (`privacy.settings`) and the privacy
 * id ↔ phone lookup (`contacts.lid`). Provider data, not the CRM's. Each is refused as `unsupported` where
 * the platform's support matrix row lacks it; a number or privacy id the network does not know is 404
 * naming it.
 */
import { fileTypeFromBuffer } from 'file-type';
import { normalizePhone } from '../../lib/phone.ts';
import type { TargetPolicy } from '../../lib/safe-fetch.ts';
import type { ProviderError, Result } from '../../providers/provider.ts';
import { fetchMedia } from '../../providers/gateway/embedded/outbound-media.ts';
import {
  LID_NOT_FOUND,
  NOT_ON_NETWORK,
  type BlockedNumber,
  type LidMapping,
  type NumberProfile,
  type OwnProfile,
  type PrivacySettings,
  type ProfileCalls,
} from '../../providers/profiles.ts';
import type { Actor } from '../actor.ts';
import { DomainError, invalid, type FieldError } from '../errors.ts';
import { assertOperation, type Operation } from './capabilities.ts';
import { connectionOf, loadChannel, recordProviderFault, type ChannelRow } from './channels.ts';
import { providerRefusal, type ProviderCallDeps } from './pairing.ts';

/** What the profile operations need: provider calls, and where a picture's URL may point. */
export type ProfileDeps = ProviderCallDeps & { targets: TargetPolicy };

/** A privacy id: the digits of the chat network's LID (`<digits>@lid` is accepted too). */
const LID = /^(\d{5,25})(@lid)?$/;

/** The channel, its profile calls, and the connection to make them with, once the operation is checked. */
async function withProfiles(deps: ProviderCallDeps, actor: Actor, channelId: string, operation: Operation, label: string) {
  const row = await loadChannel(deps.db, actor, channelId);
  assertOperation(row.platform, operation, label);
  const calls = deps.providers.get(row.platform).profiles;
  // The support matrix and the adapter are the module's: a row naming the operation comes with the calls.
  if (!calls) throw new Error(`platform ${row.platform} lists ${operation} without the adapter's profile calls`);
  assertConnected(row);
  return { row, calls, connection: connectionOf(row, deps.sealer) };
}

/** Only a connected channel's phone can be asked: 409 naming the channel's status (and why) otherwise. */
export function assertConnected(row: ChannelRow): void {
  if (row.status !== 'connected')
    throw new DomainError(
      'conflict',
      `channel ${row.id} is ${row.status}${row.statusReason ? ` (${row.statusReason})` : ''}; its phone can be asked once it is connected`,
      { extra: { channel_status: row.status } },
    );
}

/** A number as the provider takes it (international digits), or 400 naming the field. */
export function phoneDigits(value: string, pointer: string): string {
  const normalized = normalizePhone(value);
  if (!normalized)
    throw invalid(`${pointer.slice(1)} ${JSON.stringify(value)} is not a valid phone number`, [
      { pointer, message: 'not a valid phone number (write it with its country code)' },
    ]);
  return normalized.slice(1);
}

/**
 * The provider's answer, or its refusal as the caller sees it: a number (or privacy id) the network
 * does not know is 404 naming the field (`notFound`: the provider's codes that say so here); a fault of
 * the channel itself is kept as its health.
 */
async function answer<T>(
  deps: ProviderCallDeps,
  row: ChannelRow,
  result: Result<T>,
  subject?: FieldError,
  notFound: readonly string[] = [NOT_ON_NETWORK],
): Promise<T> {
  if (result.ok) return result.value;
  const error: ProviderError = result.error;
  if (subject && notFound.includes(error.code))
    throw new DomainError('not_found', error.title, {
      fieldErrors: [subject],
      extra: { provider_error: { code: error.code, title: error.title } },
    });
  if (error.channelFault) await recordProviderFault(deps, row, error);
  throw providerRefusal(error);
}

export type NumberProfileView = NumberProfile;

/** A number's profile as the chat network shows it to the channel's account. */
export async function numberProfile(
  deps: ProviderCallDeps,
  actor: Actor,
  input: { channelId: string; phone: string },
): Promise<NumberProfile> {
  const { row, calls, connection } = await withProfiles(deps, actor, input.channelId, 'profiles.read', "a number's profile");
  const phone = phoneDigits(input.phone, '/phone');
  const subject = { pointer: '/phone', message: `+${phone} is not on the chat network` };
  return answer(deps, row, await calls.numberProfile(connection, phone), subject);
}

/** The channel's own profile. */
export async function ownProfile(deps: ProviderCallDeps, actor: Actor, input: { channelId: string }): Promise<OwnProfile> {
  const { row, calls, connection } = await withProfiles(deps, actor, input.channelId, 'profile.update', 'the own profile');
  return answer(deps, row, await calls.ownProfile(connection));
}

/** Changes the channel's own name and About text. */
export async function updateOwnProfile(
  deps: ProviderCallDeps,
  actor: Actor,
  input: { channelId: string; name?: string; about?: string },
): Promise<OwnProfile> {
  const { row, calls, connection } = await withProfiles(deps, actor, input.channelId, 'profile.update', 'a profile update');
  if (input.name === undefined && input.about === undefined)
    throw invalid('give name, about or both', [{ pointer: '/', message: 'name or about is required' }]);
  const changes = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.about !== undefined ? { about: input.about } : {}),
  };
  return answer(deps, row, await calls.updateOwnProfile(connection, changes));
}

/** The picture a profile may have: a JPEG or PNG image (the chat network's profile pictures are JPEG; PNG is converted). */
const PICTURE_TYPES = new Set(['image/jpeg', 'image/png']);

/** Sets the channel's profile picture from an image at a URL (fetched by Parley, under the target policy, at most 5 MB). */
export async function setProfilePicture(deps: ProfileDeps, actor: Actor, input: { channelId: string; url: string }): Promise<OwnProfile> {
  const { row, calls, connection } = await withProfiles(deps, actor, input.channelId, 'profile.update', 'a profile picture');
  const fetched = await fetchMedia(input.url, 'image', deps.targets);
  if (!fetched.ok) {
    const { code, title } = fetched.error;
    if (code === 'media_url_refused') throw invalid(title, [{ pointer: '/url', message: title }]);
    // Unreachable, refused by its server, too large: the URL given is the caller's to fix (or to try again).
    throw new DomainError('unsupported', title, { fieldErrors: [{ pointer: '/url', message: title }], extra: { reason: code } });
  }
  const sniffed = await fileTypeFromBuffer(fetched.value.bytes.subarray(0, 4100));
  if (!sniffed || !PICTURE_TYPES.has(sniffed.mime))
    throw new DomainError('unsupported', `the picture must be a JPEG or PNG image; the URL gave ${sniffed?.mime ?? 'something else'}`, {
      fieldErrors: [{ pointer: '/url', message: 'not a JPEG or PNG image' }],
    });
  return answer(deps, row, await calls.setProfilePicture(connection, { bytes: fetched.value.bytes, mimeType: sniffed.mime }));
}

export async function removeProfilePicture(deps: ProviderCallDeps, actor: Actor, input: { channelId: string }): Promise<OwnProfile> {
  const { row, calls, connection } = await withProfiles(deps, actor, input.channelId, 'profile.update', 'a profile picture');
  return answer(deps, row, await calls.removeProfilePicture(connection));
}

/** The accounts the channel blocks. */
export async function blocklist(deps: ProviderCallDeps, actor: Actor, input: { channelId: string }): Promise<BlockedNumber[]> {
  const { row, calls, connection } = await withProfiles(deps, actor, input.channelId, 'contacts.block', 'the block list');
  return answer(deps, row, await calls.blocklist(connection));
}

/** Blocks or unblocks a number; `pointer` names where the number was given (the body's /phone, or the path's). */
export async function setBlocked(
  deps: ProviderCallDeps,
  actor: Actor,
  input: { channelId: string; phone: string; blocked: boolean; pointer: string },
): Promise<BlockedNumber> {
  const { row, calls, connection } = await withProfiles(deps, actor, input.channelId, 'contacts.block', 'blocking');
  const phone = phoneDigits(input.phone, input.pointer);
  const subject = { pointer: input.pointer, message: `+${phone} is not on the chat network` };
  return answer(deps, row, await calls.setBlocked(connection, phone, input.blocked), subject);
}

export async function privacySettings(deps: ProviderCallDeps, actor: Actor, input: { channelId: string }): Promise<PrivacySettings> {
  const { row, calls, connection } = await withProfiles(deps, actor, input.channelId, 'privacy.settings', 'privacy settings');
  return answer(deps, row, await calls.privacy(connection));
}

export async function updatePrivacySettings(
  deps: ProviderCallDeps,
  actor: Actor,
  input: { channelId: string; changes: PrivacySettings },
): Promise<PrivacySettings> {
  const { row, calls, connection } = await withProfiles(deps, actor, input.channelId, 'privacy.settings', 'privacy settings');
  if (Object.keys(input.changes).length === 0)
    throw invalid('give at least one privacy setting to change', [{ pointer: '/', message: 'no setting given' }]);
  return answer(deps, row, await calls.updatePrivacy(connection, input.changes));
}

/** A number's privacy id, or a privacy id's number (exactly one of them is given). */
export async function lookupLid(
  deps: ProviderCallDeps,
  actor: Actor,
  input: { channelId: string; phone?: string; lid?: string },
): Promise<LidMapping> {
  const { row, calls, connection } = await withProfiles(deps, actor, input.channelId, 'contacts.lid', 'the privacy id lookup');
  if ((input.phone === undefined) === (input.lid === undefined))
    throw invalid('give either phone or lid', [{ pointer: '/', message: 'exactly one of phone and lid' }]);
  if (input.lid !== undefined) {
    const lid = LID.exec(input.lid.trim())?.[1];
    if (!lid)
      throw invalid(`lid ${JSON.stringify(input.lid)} is not a privacy id`, [
        { pointer: '/lid', message: 'digits (optionally with @lid)' },
      ]);
    const unknownLid = { pointer: '/lid', message: `no number is known for ${lid}` };
    return answer(deps, row, await calls.lookupLid(connection, { lid }), unknownLid, [LID_NOT_FOUND]);
  }
  const phone = phoneDigits(input.phone!, '/phone');
  const unknownPhone = { pointer: '/phone', message: `no privacy id is known for +${phone}` };
  return answer(deps, row, await calls.lookupLid(connection, { phone }), unknownPhone, [NOT_ON_NETWORK, LID_NOT_FOUND]);
}

export type { BlockedNumber, LidMapping, NumberProfile, OwnProfile, PrivacySettings, ProfileCalls };
