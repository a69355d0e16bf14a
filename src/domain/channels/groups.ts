/**
 * Groups of a channel's number and contacts' presence (capabilities `groups.manage`,
 * `presence.subscribe`): every call goes to the channel's engine (the embedded engine, an HTTP gateway,
 * the sandbox), which holds the groups; Parley keeps no group records of its own. Each is refused as
 * `unsupported` where the platform lacks the operation, and `conflict` while the channel has no paired
 * phone. The engine's refusals become the caller's: a group the number is not in is not found (naming
 * it), not being an admin is forbidden, a participant not on the network (or not in the group) is
 * invalid input naming it.
 */
import { GROUP_RECIPIENT, type Operation } from '../../providers/capabilities.ts';
import { normalizePhone } from '../../lib/phone.ts';
import { assertSafeTargetSyntax, UnsafeTargetError, type TargetPolicy } from '../../lib/safe-fetch.ts';
import type {
  ChannelConnection,
  GroupCalls,
  GroupChange,
  GroupParticipantAction,
  GroupParticipantResult,
  ProviderError,
  ProviderGroup,
  Result,
} from '../../providers/provider.ts';
import type { Actor } from '../actor.ts';
import { DomainError, invalid, notFound } from '../errors.ts';
import { assertOperation } from './capabilities.ts';
import { connectionOf, loadChannel, recordProviderFault, type ChannelRow } from './channels.ts';
import { providerRefusal, type ProviderCallDeps } from './pairing.ts';

/** What the group calls need: provider calls, and where a picture's URL may point. */
export type GroupDeps = ProviderCallDeps & { targets: TargetPolicy };

/** Disappearing-message lifetimes the chat network offers (seconds): off, a day, a week, 90 days. */
export const EPHEMERAL_SECONDS = [0, 86_400, 604_800, 7_776_000] as const;
/** The chat network's bounds on a group's subject and description; participants per request. */
export const GROUP_SUBJECT_MAX = 100;
export const GROUP_DESCRIPTION_MAX = 2048;
export const GROUP_PARTICIPANTS_MAX = 50;

type Call = { row: ChannelRow; connection: ChannelConnection };

/** The channel, when it can make the call: its platform lists the operation and its phone is paired. */
async function channelFor(deps: GroupDeps, actor: Actor, channelId: string, operation: Operation, label: string): Promise<Call> {
  const row = await loadChannel(deps.db, actor, channelId);
  assertOperation(row.platform, operation, label);
  if (row.status !== 'connected')
    throw new DomainError(
      'conflict',
      `channel is ${row.status}${row.statusReason ? ` (${row.statusReason})` : ''}: ${label} need its phone paired and connected`,
    );
  return { row, connection: connectionOf(row, deps.sealer) };
}

function groupCalls(deps: GroupDeps, row: ChannelRow): GroupCalls {
  const calls = deps.providers.get(row.platform).groups;
  // The support matrix and the adapter are the module's: a row naming groups.manage comes with the calls.
  if (!calls) throw new Error(`platform ${row.platform} lists groups.manage without group calls`);
  return calls;
}

/** A group id as the path gives it; anything else names no group. */
function assertGroupId(groupId: string): void {
  if (!GROUP_RECIPIENT.test(groupId)) throw notFound(`group ${JSON.stringify(groupId.slice(0, 60))}`);
}

/** International digits of each number, or invalid naming the ones that are no phone number (`/participants/{i}`). */
function phonesOf(given: string[]): string[] {
  const pointer = '/participants';
  const bad: Array<{ pointer: string; message: string }> = [];
  const phones = given.map((p, i) => {
    const phone = normalizePhone(p)?.slice(1);
    if (!phone) bad.push({ pointer: `${pointer}/${i}`, message: 'not a valid phone number (write it with its country code)' });
    return phone ?? '';
  });
  if (bad.length > 0) throw invalid(`${bad.length === 1 ? 'a participant is' : 'participants are'} not a valid phone number`, bad);
  const seen = new Set<string>();
  const repeated = phones.flatMap((p, i) => (seen.has(p) ? [{ pointer: `${pointer}/${i}`, message: 'named twice' }] : (seen.add(p), [])));
  if (repeated.length > 0) throw invalid('a participant is named twice', repeated);
  return phones;
}

/**
 * The engine's refusal as the caller's: a group not found (404, naming it), not an admin (403),
 * participants not on the network or not in the group (400, naming each), an invite code no group has
 * (400, naming it); anything else as any provider refusal (422, or 503 when worth retrying). A fault of
 * the channel itself (its gateway refusing the API key) is also kept as its health.
 */
async function refuse(deps: GroupDeps, call: Call, error: ProviderError, input: { groupId?: string; phones?: string[] }): Promise<never> {
  switch (error.code) {
    case 'group_not_found':
      throw new DomainError('not_found', `group ${input.groupId ?? ''} not found: the channel's number is not in it`);
    case 'not_admin':
      throw new DomainError('forbidden', error.title);
    case 'participant_not_on_network':
    case 'not_participant': {
      const named = new Set(error.participants ?? []);
      const pointers = (input.phones ?? []).flatMap((p, i) =>
        named.has(p)
          ? [{ pointer: `/participants/${i}`, message: error.code === 'not_participant' ? 'not in the group' : 'not on the chat network' }]
          : [],
      );
      throw invalid(error.title, pointers.length > 0 ? pointers : [{ pointer: '/participants', message: error.title }]);
    }
    case 'invite_not_found':
      throw invalid(error.title, [{ pointer: '/code', message: 'no group has this invite code' }]);
    case 'media_url_refused':
    case 'media_too_large':
    case 'media_unreachable':
    case 'picture_not_an_image':
      throw invalid(error.title, [{ pointer: '/url', message: error.title }]);
    default:
      if (error.channelFault) await recordProviderFault(deps, call.row, error);
      throw providerRefusal(error);
  }
}

async function unwrap<T>(deps: GroupDeps, call: Call, result: Result<T>, input: { groupId?: string; phones?: string[] } = {}): Promise<T> {
  if (result.ok) return result.value;
  return refuse(deps, call, result.error, input);
}

export async function listGroups(deps: GroupDeps, actor: Actor, input: { channelId: string }): Promise<ProviderGroup[]> {
  const call = await channelFor(deps, actor, input.channelId, 'groups.manage', 'groups');
  const groups = await unwrap(deps, call, await groupCalls(deps, call.row).list(call.connection));
  return [...groups].sort((a, b) => a.subject.localeCompare(b.subject) || a.id.localeCompare(b.id));
}

export async function getGroup(deps: GroupDeps, actor: Actor, input: { channelId: string; groupId: string }): Promise<ProviderGroup> {
  const call = await channelFor(deps, actor, input.channelId, 'groups.manage', 'groups');
  assertGroupId(input.groupId);
  return unwrap(deps, call, await groupCalls(deps, call.row).get(call.connection, input.groupId), input);
}

export type CreateGroupInput = { channelId: string; subject: string; participants: string[]; description?: string };

/** Creates a group with the channel's number as its admin, and its description when given. */
export async function createGroup(deps: GroupDeps, actor: Actor, input: CreateGroupInput): Promise<ProviderGroup> {
  const call = await channelFor(deps, actor, input.channelId, 'groups.manage', 'groups');
  const phones = phonesOf(input.participants);
  const self = call.row.displayPhoneNumber?.replace(/\D/g, '');
  const own = phones.indexOf(self ?? '');
  if (own >= 0)
    throw invalid("the channel's own number is in every group it creates", [
      { pointer: `/participants/${own}`, message: "the channel's own number" },
    ]);
  const calls = groupCalls(deps, call.row);
  const group = await unwrap(deps, call, await calls.create(call.connection, { subject: input.subject, participants: phones }), { phones });
  if (!input.description) return group;
  return unwrap(deps, call, await calls.update(call.connection, group.id, { description: input.description }), { groupId: group.id });
}

/** Changes a group's subject, description or settings (each field given); answers the group as it now is. */
export async function updateGroup(
  deps: GroupDeps,
  actor: Actor,
  input: { channelId: string; groupId: string; change: GroupChange },
): Promise<ProviderGroup> {
  const call = await channelFor(deps, actor, input.channelId, 'groups.manage', 'groups');
  assertGroupId(input.groupId);
  if (Object.values(input.change).every((v) => v === undefined))
    throw invalid('nothing to change: give subject, description or a setting', [{ pointer: '', message: 'no field to change' }]);
  const ephemeral = input.change.ephemeralSeconds;
  if (ephemeral !== undefined && !(EPHEMERAL_SECONDS as readonly number[]).includes(ephemeral))
    throw invalid(`ephemeral_seconds must be one of ${EPHEMERAL_SECONDS.join(', ')}`, [
      { pointer: '/ephemeral_seconds', message: `one of ${EPHEMERAL_SECONDS.join(', ')} (off, a day, a week, 90 days)` },
    ]);
  return unwrap(deps, call, await groupCalls(deps, call.row).update(call.connection, input.groupId, input.change), input);
}

/** Sets the group's picture from an image URL (JPEG or PNG, fetched under the target policy), or removes it (null). */
export async function setGroupPicture(
  deps: GroupDeps,
  actor: Actor,
  input: { channelId: string; groupId: string; url: string | null },
): Promise<void> {
  const call = await channelFor(deps, actor, input.channelId, 'groups.manage', 'groups');
  assertGroupId(input.groupId);
  if (input.url !== null) {
    try {
      assertSafeTargetSyntax(input.url, deps.targets);
    } catch (err) {
      if (err instanceof UnsafeTargetError)
        throw invalid(`picture URL refused: ${err.message}`, [{ pointer: '/url', message: err.message }]);
      throw err;
    }
  }
  await unwrap(deps, call, await groupCalls(deps, call.row).setPicture(call.connection, input.groupId, input.url), input);
}

export type ParticipantOutcome = { phone: string; ok: boolean; error: { code: string; title: string } | null };

/** Adds, removes, promotes or demotes participants; the chat network answers each on its own. */
export async function updateGroupParticipants(
  deps: GroupDeps,
  actor: Actor,
  input: { channelId: string; groupId: string; action: GroupParticipantAction; participants: string[] },
): Promise<ParticipantOutcome[]> {
  const call = await channelFor(deps, actor, input.channelId, 'groups.manage', 'groups');
  assertGroupId(input.groupId);
  const phones = phonesOf(input.participants);
  const results: GroupParticipantResult[] = await unwrap(
    deps,
    call,
    await groupCalls(deps, call.row).participants(call.connection, input.groupId, input.action, phones),
    { groupId: input.groupId, phones },
  );
  return results.map((r) => ({ phone: `+${r.phone}`, ok: r.ok, error: r.error ?? null }));
}

/** The link that lets anyone join, made from the invite code (the chat app's own form). */
export const inviteUrlOf = (code: string) => `https://chat.whatsapp.com/${code}`;

/** The group's invite code and link; `revoke` makes a new one (the old link stops working). */
export async function groupInvite(
  deps: GroupDeps,
  actor: Actor,
  input: { channelId: string; groupId: string; revoke: boolean },
): Promise<{ code: string; url: string }> {
  const call = await channelFor(deps, actor, input.channelId, 'groups.manage', 'groups');
  assertGroupId(input.groupId);
  const { code } = await unwrap(
    deps,
    call,
    await groupCalls(deps, call.row).invite(call.connection, input.groupId, { revoke: input.revoke }),
    input,
  );
  return { code, url: inviteUrlOf(code) };
}

/** An invite code, or the link carrying it. */
const INVITE = /^(?:https?:\/\/chat\.whatsapp\.com\/(?:invite\/)?)?([A-Za-z0-9_-]{6,64})\/?$/;

/** Joins a group by its invite code (or link): the group, or pending when its admins approve new members first. */
export async function joinGroup(
  deps: GroupDeps,
  actor: Actor,
  input: { channelId: string; code: string },
): Promise<{ groupId: string | null; group: ProviderGroup | null }> {
  const call = await channelFor(deps, actor, input.channelId, 'groups.manage', 'groups');
  const code = INVITE.exec(input.code.trim())?.[1];
  if (!code)
    throw invalid('code is not an invite code or link', [
      { pointer: '/code', message: 'an invite code, or a link https://chat.whatsapp.com/<code>' },
    ]);
  const calls = groupCalls(deps, call.row);
  const { groupId } = await unwrap(deps, call, await calls.join(call.connection, code));
  if (!groupId) return { groupId: null, group: null };
  // The group as it is now; a failure to read it (just joined) does not undo the join.
  const group = await calls.get(call.connection, groupId);
  return { groupId, group: group.ok ? group.value : null };
}

export async function leaveGroup(deps: GroupDeps, actor: Actor, input: { channelId: string; groupId: string }): Promise<void> {
  const call = await channelFor(deps, actor, input.channelId, 'groups.manage', 'groups');
  assertGroupId(input.groupId);
  await unwrap(deps, call, await groupCalls(deps, call.row).leave(call.connection, input.groupId), input);
}

/** Asks for a contact's presence updates: they arrive as presence.updated events. */
export async function subscribePresence(
  deps: GroupDeps,
  actor: Actor,
  input: { channelId: string; phone: string },
): Promise<{ phone: string }> {
  const call = await channelFor(deps, actor, input.channelId, 'presence.subscribe', 'presence subscriptions');
  const phone = normalizePhone(input.phone)?.slice(1);
  if (!phone)
    throw invalid(`phone ${JSON.stringify(input.phone)} is not a valid phone number`, [
      { pointer: '/phone', message: 'not a valid phone number (write it with its country code)' },
    ]);
  const subscribe = deps.providers.get(call.row.platform).subscribePresence;
  if (!subscribe) throw new Error(`platform ${call.row.platform} lists presence.subscribe without the call`);
  await unwrap(deps, call, await subscribe(call.connection, phone));
  return { phone: `+${phone}` };
}
