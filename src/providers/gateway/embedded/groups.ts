/**
 * Groups on the embedded engine (capability `groups.manage`), run by the session's holder on its socket
 * through the library's group calls (groupFetchAllParticipating, groupMetadata, groupCreate,
 * groupUpdateSubject, groupUpdateDescription, groupSettingUpdate, groupMemberAddMode,
 * groupJoinApprovalMode, groupToggleEphemeral, updateProfilePicture, groupParticipantsUpdate,
 * groupInviteCode, groupRevokeInvite, groupAcceptInvite, groupLeave). Before a change the group's
 * metadata (from the session's cache) says whether the number may make it, so a refusal names its
 * reason (not in the group, not an admin, a participant not on the network) rather than the service's
 * bare code; the service's own refusals are mapped the same way.
 */
import type { GroupMetadata, GroupParticipant as LibraryParticipant } from 'baileys';
import type {
  GroupChange,
  GroupParticipant,
  GroupParticipantAction,
  GroupParticipantResult,
  ProviderError,
  ProviderGroup,
  Result,
} from '../../provider.ts';
import type { GroupCache } from './group-cache.ts';
import { GROUP_JID, jidOfPhone, lidOfJid, phoneOfJid } from './ids.ts';
import type { EngineSocket } from './socket.ts';

/** What a group command asks the holder (ask.ts → commands.ts); answered as the JSON of a GroupAnswer. */
export type GroupRequest =
  | { op: 'list' }
  | { op: 'get'; groupId: string }
  | { op: 'create'; subject: string; participants: string[] }
  | { op: 'update'; groupId: string; change: GroupChange }
  /** image: a JPEG or PNG as base64 (fetched by the caller under the target policy), or null to remove the picture. */
  | { op: 'picture'; groupId: string; image: string | null }
  | { op: 'participants'; groupId: string; action: GroupParticipantAction; participants: string[] }
  | { op: 'invite'; groupId: string; revoke: boolean }
  | { op: 'join'; code: string }
  | { op: 'leave'; groupId: string };

/** A group as JSON (its creation time as an ISO string), the way a command's answer carries it. */
export type GroupJson = Omit<ProviderGroup, 'createdAt'> & { createdAt: string | null };

export const groupToJson = (group: ProviderGroup): GroupJson => ({ ...group, createdAt: group.createdAt?.toISOString() ?? null });
export const groupFromJson = (group: GroupJson): ProviderGroup => ({
  ...group,
  createdAt: group.createdAt ? new Date(group.createdAt) : null,
});

type Self = { phone?: string; lid?: string };
const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });
const fail = (error: ProviderError): { ok: false; error: ProviderError } => ({ ok: false, error });

export const groupNotFound = (groupId: string): ProviderError => ({
  code: 'group_not_found',
  title: `group ${groupId} not found: the channel's number is not in it`,
  retryable: false,
});
const notAdmin = (groupId: string, what: string): ProviderError => ({
  code: 'not_admin',
  title: `the channel's number is not an admin of group ${groupId}: only admins may ${what}`,
  retryable: false,
});

/**
 * The service's code of a refusal: an error answer to a query carries it as the Boom's `data` (the
 * library's assertNodeErrorFree: 401 not-authorized, 403 forbidden, 404 item-not-found, 406, 409
 * conflict, …); the library's own errors (a timeout 408, a closed connection 428) as its status code.
 */
function codeOf(err: unknown): number | undefined {
  const e = err as { data?: unknown; output?: { statusCode?: unknown } } | undefined;
  if (typeof e?.data === 'number') return e.data;
  return typeof e?.output?.statusCode === 'number' ? e.output.statusCode : undefined;
}

/** A refusal of the service (or a fault of the connection) as a provider error, in the words of what was asked. */
function refusalOf(err: unknown, groupId: string | undefined, what: string): ProviderError {
  const code = codeOf(err);
  const detail = (err as Error | undefined)?.message ?? 'the chat network refused';
  if (groupId && code === 404) return groupNotFound(groupId);
  if (groupId && (code === 401 || code === 403)) return notAdmin(groupId, what);
  const retryable = code === undefined || code === 408 || code === 428 || code === 429 || code >= 500;
  return {
    code: code ? `group_error_${code}` : 'group_error',
    title: `could not ${what}: ${detail}${code ? ` (${code})` : ''}`,
    retryable,
  };
}

const roleOf = (p: LibraryParticipant): GroupParticipant['role'] =>
  p.admin === 'superadmin' || p.isSuperAdmin ? 'superadmin' : p.admin === 'admin' || p.isAdmin ? 'admin' : 'member';

/** The library's participant as Parley's: its phone (from its id or phoneNumber) and privacy id. */
function participantOf(p: LibraryParticipant): GroupParticipant {
  return {
    phone: phoneOfJid(p.phoneNumber) ?? phoneOfJid(p.id) ?? null,
    lid: lidOfJid(p.lid) ?? lidOfJid(p.id) ?? null,
    role: roleOf(p),
  };
}

const isSelf = (p: GroupParticipant, self: Self) => Boolean((self.phone && p.phone === self.phone) || (self.lid && p.lid === self.lid));

/** The library's group metadata as Parley's group. */
export function groupOf(metadata: GroupMetadata, self: Self): ProviderGroup {
  const participants = (metadata.participants ?? []).map(participantOf);
  const mine = participants.find((p) => isSelf(p, self));
  return {
    id: metadata.id,
    subject: metadata.subject ?? '',
    description: metadata.desc ?? null,
    owner: phoneOfJid(metadata.ownerPn) ?? phoneOfJid(metadata.owner) ?? null,
    createdAt: metadata.creation ? new Date(metadata.creation * 1000) : null,
    announcement: metadata.announce === true,
    locked: metadata.restrict === true,
    membersCanAdd: metadata.memberAddMode === true,
    joinApproval: metadata.joinApprovalMode === true,
    ephemeralSeconds: metadata.ephemeralDuration ?? 0,
    size: participants.length || (metadata.size ?? 0),
    participants,
    role: mine?.role ?? null,
  };
}

/** Participants named by privacy id only get their phone from the library's store, where it knows one. */
async function withPhones(socket: EngineSocket, metadata: GroupMetadata): Promise<GroupMetadata> {
  if (!socket.phoneJidOfLid) return metadata;
  const participants = await Promise.all(
    (metadata.participants ?? []).map(async (p) => {
      if (phoneOfJid(p.phoneNumber) || phoneOfJid(p.id)) return p;
      const lid = p.lid ?? (lidOfJid(p.id) ? p.id : undefined);
      const phone = lid ? await socket.phoneJidOfLid!(lid).catch(() => undefined) : undefined;
      return phone ? { ...p, phoneNumber: phone } : p;
    }),
  );
  return { ...metadata, participants };
}

/** What the holder needs to run a group request: its socket, the session's group cache, its own number. */
export type GroupRun = { socket: EngineSocket; cache: GroupCache; self: Self };

/** Runs one group request on the holder's socket; the answer is JSON (a command's result). */
export async function runGroupRequest(run: GroupRun, request: GroupRequest): Promise<Result<unknown>> {
  const { socket, cache, self } = run;
  const present = async (metadata: GroupMetadata) => groupToJson(groupOf(await withPhones(socket, metadata), self));
  /** The group's metadata, cached or asked for: a group the number is not in is group_not_found. */
  const metadataOf = async (groupId: string): Promise<Result<GroupMetadata>> => {
    const cached = await cache.cachedGroupMetadata(groupId);
    if (cached) return ok(cached);
    try {
      return ok((await cache.fetch(groupId)) ?? (await socket.groupMetadata!(groupId)));
    } catch (err) {
      // Not a member is "forbidden" to the service: to the caller, a group it cannot see.
      const code = codeOf(err);
      return fail(
        code === 403 || code === 401 || code === 404 ? groupNotFound(groupId) : refusalOf(err, undefined, `read group ${groupId}`),
      );
    }
  };
  /** Fetched again after a change (the library's calls answer nothing), kept in the cache. */
  const fresh = async (groupId: string) => {
    cache.forget(groupId);
    const found = await metadataOf(groupId);
    return found.ok ? ok(await present(found.value)) : found;
  };
  const attempt = async <T>(what: string, groupId: string | undefined, call: () => Promise<T>): Promise<Result<T>> => {
    try {
      return ok(await call());
    } catch (err) {
      return fail(refusalOf(err, groupId, what));
    }
  };

  switch (request.op) {
    case 'list': {
      const listed = cache.listing();
      if (listed) return ok(await Promise.all(listed.map(present)));
      const all = await attempt('list the groups', undefined, () => socket.groupFetchAllParticipating());
      if (!all.ok) return all;
      const groups = Object.values(all.value);
      cache.keepListing(groups);
      return ok(await Promise.all(groups.map(present)));
    }
    case 'get': {
      const found = await metadataOf(request.groupId);
      return found.ok ? ok(await present(found.value)) : found;
    }
    case 'create': {
      const missing = await notOnNetwork(socket, request.participants);
      if (!missing.ok) return missing;
      const made = await attempt('create the group', undefined, () =>
        socket.groupCreate(request.subject, request.participants.map(jidOfPhone)),
      );
      if (!made.ok) return made;
      cache.keep(made.value);
      return ok(await present(made.value));
    }
    case 'update': {
      const found = await metadataOf(request.groupId);
      if (!found.ok) return found;
      const denied = updateDenied(groupOf(found.value, self), request.change);
      if (denied) return fail(denied);
      const id = request.groupId;
      const change = request.change;
      const steps: Array<[string, () => Promise<void>]> = [];
      if (change.subject !== undefined) steps.push(['change the subject', () => socket.groupUpdateSubject(id, change.subject!)]);
      if (change.description !== undefined)
        steps.push(['change the description', () => socket.groupUpdateDescription(id, change.description || undefined)]);
      if (change.announcement !== undefined)
        steps.push(['change who may send', () => socket.groupSettingUpdate(id, change.announcement ? 'announcement' : 'not_announcement')]);
      if (change.locked !== undefined)
        steps.push(['change who may edit the group', () => socket.groupSettingUpdate(id, change.locked ? 'locked' : 'unlocked')]);
      if (change.membersCanAdd !== undefined)
        steps.push([
          'change who may add members',
          () => socket.groupMemberAddMode(id, change.membersCanAdd ? 'all_member_add' : 'admin_add'),
        ]);
      if (change.joinApproval !== undefined)
        steps.push(['change join approval', () => socket.groupJoinApprovalMode(id, change.joinApproval ? 'on' : 'off')]);
      if (change.ephemeralSeconds !== undefined)
        steps.push(['change disappearing messages', () => socket.groupToggleEphemeral(id, change.ephemeralSeconds!)]);
      for (const [what, step] of steps) {
        const done = await attempt(what, id, step);
        if (!done.ok) return done;
      }
      return fresh(id);
    }
    case 'picture': {
      const found = await metadataOf(request.groupId);
      if (!found.ok) return found;
      const group = groupOf(found.value, self);
      if (group.locked && !isAdmin(group)) return fail(notAdmin(group.id, 'change the picture of a group only admins may edit'));
      const image = request.image;
      const done = await attempt('change the picture', request.groupId, () =>
        image === null
          ? socket.removeProfilePicture(request.groupId)
          : socket.updateProfilePicture(request.groupId, Buffer.from(image, 'base64')),
      );
      return done.ok ? ok({ changed: true }) : done;
    }
    case 'participants':
      return changeParticipants(run, request, metadataOf);
    case 'invite': {
      const found = await metadataOf(request.groupId);
      if (!found.ok) return found;
      if (!isAdmin(groupOf(found.value, self)))
        return fail(notAdmin(request.groupId, request.revoke ? 'reset the invite link' : 'read the invite link'));
      const code = await attempt(request.revoke ? 'reset the invite link' : 'read the invite link', request.groupId, () =>
        request.revoke ? socket.groupRevokeInvite(request.groupId) : socket.groupInviteCode(request.groupId),
      );
      if (!code.ok) return code;
      if (!code.value) return fail({ code: 'group_error', title: 'the chat network answered without an invite code', retryable: true });
      return ok({ code: code.value });
    }
    case 'join': {
      try {
        const groupId = await socket.groupAcceptInvite(request.code);
        // No group in the answer: the group's admins approve new members, and the request was sent.
        if (!groupId || !GROUP_JID.test(groupId)) return ok({ groupId: null });
        cache.forget(groupId);
        return ok({ groupId });
      } catch (err) {
        const code = codeOf(err);
        if (code === 400 || code === 404 || code === 406 || code === 410)
          return fail({
            code: 'invite_not_found',
            title: 'no group has this invite code (mistyped, or reset by an admin)',
            retryable: false,
          });
        return fail(refusalOf(err, undefined, 'join the group'));
      }
    }
    case 'leave': {
      const found = await metadataOf(request.groupId);
      if (!found.ok) return found;
      const left = await attempt('leave the group', request.groupId, () => socket.groupLeave(request.groupId));
      if (!left.ok) return left;
      cache.forget(request.groupId, { left: true });
      return ok({ left: true });
    }
    default:
      return request satisfies never;
  }
}

const isAdmin = (group: ProviderGroup) => group.role === 'admin' || group.role === 'superadmin';

/** Whether the number may make this change: settings are admins' only, the subject and description too when the group is locked. */
function updateDenied(group: ProviderGroup, change: GroupChange): ProviderError | undefined {
  if (isAdmin(group)) return undefined;
  const adminsOnly = [
    change.announcement !== undefined && 'change who may send',
    change.locked !== undefined && 'change who may edit the group',
    change.membersCanAdd !== undefined && 'change who may add members',
    change.joinApproval !== undefined && 'change join approval',
  ].filter((x): x is string => typeof x === 'string');
  if (adminsOnly.length > 0) return notAdmin(group.id, adminsOnly.join(', '));
  if (group.locked && (change.subject !== undefined || change.description !== undefined || change.ephemeralSeconds !== undefined))
    return notAdmin(group.id, 'edit a group only admins may edit');
  return undefined;
}

/** Numbers the chat network does not know: participant_not_on_network, naming them. */
async function notOnNetwork(socket: EngineSocket, phones: string[]): Promise<Result<true>> {
  if (phones.length === 0) return ok(true);
  let answers: Array<{ jid: string; exists: boolean }> | undefined;
  try {
    answers = await socket.onWhatsApp(...phones);
  } catch (err) {
    return fail(refusalOf(err, undefined, 'look the participants up'));
  }
  const known = new Set((answers ?? []).filter((a) => a.exists).map((a) => phoneOfJid(a.jid) ?? a.jid));
  const missing = phones.filter((p) => !known.has(p));
  if (missing.length === 0) return ok(true);
  return fail({
    code: 'participant_not_on_network',
    title: `not on the chat network: ${missing.map((p) => `+${p}`).join(', ')}`,
    retryable: false,
    participants: missing,
  });
}

/** Participant errors as the service answers them, per participant. */
const PARTICIPANT_ERRORS: Record<string, string> = {
  '401': 'not allowed',
  '403': "their privacy settings let only contacts add them: send them the group's invite link",
  '404': 'not on the chat network',
  '408': 'they left the group recently and cannot be added again yet',
  '409': 'already in the group',
  '500': 'the group is full',
};

async function changeParticipants(
  run: GroupRun,
  request: Extract<GroupRequest, { op: 'participants' }>,
  metadataOf: (groupId: string) => Promise<Result<GroupMetadata>>,
): Promise<Result<GroupParticipantResult[]>> {
  const { socket, cache, self } = run;
  const found = await metadataOf(request.groupId);
  if (!found.ok) return found;
  const group = groupOf(await withPhones(socket, found.value), self);
  const mayAdd = request.action === 'add' && group.membersCanAdd;
  if (!isAdmin(group) && !mayAdd) return fail(notAdmin(group.id, `${request.action} participants`));
  if (request.action === 'add') {
    const missing = await notOnNetwork(socket, request.participants);
    if (!missing.ok) return missing;
  } else {
    const members = new Set(group.participants.map((p) => p.phone));
    const outside = request.participants.filter((p) => !members.has(p));
    if (outside.length > 0)
      return fail({
        code: 'not_participant',
        title: `not in group ${group.id}: ${outside.map((p) => `+${p}`).join(', ')}`,
        retryable: false,
        participants: outside,
      });
  }
  // Members named by privacy id are changed by it (the service knows them so in a privacy-id group).
  const jidOf = new Map(
    found.value.participants.flatMap((p) => {
      const phone = participantOf(p).phone;
      return phone ? [[phone, p.id] as const] : [];
    }),
  );
  const jids = request.participants.map((p) => (request.action === 'add' ? jidOfPhone(p) : (jidOf.get(p) ?? jidOfPhone(p))));
  let answers: Awaited<ReturnType<EngineSocket['groupParticipantsUpdate']>>;
  try {
    answers = await socket.groupParticipantsUpdate(request.groupId, jids, request.action);
  } catch (err) {
    return fail(refusalOf(err, request.groupId, `${request.action} participants`));
  }
  cache.forget(request.groupId);
  const byJid = new Map(answers.map((a) => [a.jid, a.status]));
  return ok(
    request.participants.map((phone, i): GroupParticipantResult => {
      const status = byJid.get(jids[i]!) ?? answers[i]?.status ?? '200';
      return status === '200'
        ? { phone, ok: true }
        : { phone, ok: false, error: { code: `participant_${status}`, title: PARTICIPANT_ERRORS[status] ?? `refused (${status})` } };
    }),
  );
}
