/**
 * Groups, presence and settings for both engines of unofficial channels (capabilities `groups.manage`,
 * `presence.subscribe`): an HTTP gateway through the protocol's calls (docs/gateway-protocol.md,
 * "Groups"), the embedded engine through a command its session's holder runs (embedded/groups.ts).
 * Group pictures are fetched here, under the target policy, for the embedded engine; an HTTP gateway is
 * given the URL, as it is for media sends.
 */
import type { TargetPolicy } from '../../lib/safe-fetch.ts';
import type { ChannelConnection, GroupCalls, GroupChange, GroupParticipantResult, ProviderGroup, Result } from '../provider.ts';
import { NO_ENGINE, type GatewayAccess } from './access.ts';
import { groupFromJson, type GroupJson, type GroupRequest } from './embedded/groups.ts';
import { fetchMedia } from './embedded/outbound-media.ts';

/** How the group calls reach a channel's engine (access.ts), and where a picture's URL may point. */
export type EngineAccess = GatewayAccess & { targets: TargetPolicy };

/** A group as the gateway protocol writes it. */
type GroupWire = {
  id: string;
  subject: string;
  description?: string | null;
  owner?: string | null;
  created_at?: string | null;
  announcement?: boolean;
  locked?: boolean;
  members_can_add?: boolean;
  join_approval?: boolean;
  ephemeral_seconds?: number;
  size?: number;
  participants?: Array<{ phone?: string | null; lid?: string | null; role?: string }>;
  role?: string | null;
};

const ROLES = new Set(['member', 'admin', 'superadmin']);
const roleOf = (role: unknown) => (typeof role === 'string' && ROLES.has(role) ? (role as ProviderGroup['role'] & string) : null);

function groupOfWire(g: GroupWire): ProviderGroup {
  const participants = (Array.isArray(g.participants) ? g.participants : []).map((p) => ({
    phone: typeof p?.phone === 'string' ? p.phone : null,
    lid: typeof p?.lid === 'string' ? p.lid : null,
    role: roleOf(p?.role) ?? 'member',
  }));
  const created = g.created_at ? new Date(g.created_at) : null;
  return {
    id: String(g.id),
    subject: String(g.subject ?? ''),
    description: typeof g.description === 'string' ? g.description : null,
    owner: typeof g.owner === 'string' ? g.owner : null,
    createdAt: created && !Number.isNaN(created.getTime()) ? created : null,
    announcement: g.announcement === true,
    locked: g.locked === true,
    membersCanAdd: g.members_can_add === true,
    joinApproval: g.join_approval === true,
    ephemeralSeconds: Number.isInteger(g.ephemeral_seconds) ? g.ephemeral_seconds! : 0,
    size: Number.isInteger(g.size) ? g.size! : participants.length,
    participants,
    role: roleOf(g.role),
  };
}

const changeOfWire = (change: GroupChange) => ({
  ...(change.subject !== undefined ? { subject: change.subject } : {}),
  ...(change.description !== undefined ? { description: change.description } : {}),
  ...(change.announcement !== undefined ? { announcement: change.announcement } : {}),
  ...(change.locked !== undefined ? { locked: change.locked } : {}),
  ...(change.membersCanAdd !== undefined ? { members_can_add: change.membersCanAdd } : {}),
  ...(change.joinApproval !== undefined ? { join_approval: change.joinApproval } : {}),
  ...(change.ephemeralSeconds !== undefined ? { ephemeral_seconds: change.ephemeralSeconds } : {}),
});

/** A JPEG or PNG by its first bytes (a group picture is one of them). */
const isPicture = (bytes: Buffer) =>
  (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) ||
  bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

export function createGroupCalls(access: EngineAccess): GroupCalls {
  const path = (connection: ChannelConnection, rest = '') => `sessions/${access.session(connection)}/groups${rest}`;
  const groupPath = (connection: ChannelConnection, groupId: string, rest = '') =>
    path(connection, `/${encodeURIComponent(groupId)}${rest}`);

  /** Runs a request on the embedded engine (answer as the holder wrote it), or answers undefined for an HTTP gateway. */
  const onEmbedded = async <T>(
    connection: ChannelConnection,
    request: GroupRequest,
    read: (value: unknown) => T,
  ): Promise<Result<T> | undefined> => {
    const engine = access.embedded(connection);
    if (engine === undefined) return undefined;
    if (engine === null) return { ok: false, error: NO_ENGINE };
    const answer = await engine.group(connection.channelId, request);
    return answer.ok ? { ok: true, value: read(answer.value) } : answer;
  };
  const asGroup = (value: unknown) => groupFromJson(value as GroupJson);

  return {
    async list(connection) {
      const embedded = await onEmbedded(connection, { op: 'list' }, (v) => (v as GroupJson[]).map(groupFromJson));
      if (embedded) return embedded;
      const result = await access.client(connection).call<{ groups?: GroupWire[] }>('GET', path(connection));
      if (!result.ok) return result;
      return { ok: true, value: (Array.isArray(result.value.groups) ? result.value.groups : []).map(groupOfWire) };
    },

    async get(connection, groupId) {
      const embedded = await onEmbedded(connection, { op: 'get', groupId }, asGroup);
      if (embedded) return embedded;
      const result = await access.client(connection).call<GroupWire>('GET', groupPath(connection, groupId));
      return result.ok ? { ok: true, value: groupOfWire(result.value) } : result;
    },

    async create(connection, input) {
      const embedded = await onEmbedded(connection, { op: 'create', ...input }, asGroup);
      if (embedded) return embedded;
      const result = await access.client(connection).call<GroupWire>('POST', path(connection), input);
      return result.ok ? { ok: true, value: groupOfWire(result.value) } : result;
    },

    async update(connection, groupId, change) {
      const embedded = await onEmbedded(connection, { op: 'update', groupId, change }, asGroup);
      if (embedded) return embedded;
      const result = await access.client(connection).call<GroupWire>('PATCH', groupPath(connection, groupId), changeOfWire(change));
      return result.ok ? { ok: true, value: groupOfWire(result.value) } : result;
    },

    async setPicture(connection, groupId, imageUrl) {
      const engine = access.embedded(connection);
      if (engine === null) return { ok: false, error: NO_ENGINE };
      if (engine) {
        let image: string | null = null;
        if (imageUrl !== null) {
          const fetched = await fetchMedia(imageUrl, 'image', access.targets);
          if (!fetched.ok) return fetched;
          if (!isPicture(fetched.value.bytes))
            return {
              ok: false,
              error: { code: 'picture_not_an_image', title: 'the picture must be a JPEG or PNG image', retryable: false },
            };
          image = fetched.value.bytes.toString('base64');
        }
        const answer = await engine.group(connection.channelId, { op: 'picture', groupId, image });
        return answer.ok ? { ok: true, value: { changed: true } } : answer;
      }
      const result =
        imageUrl === null
          ? await access.client(connection).call('DELETE', groupPath(connection, groupId, '/picture'))
          : await access.client(connection).call('PUT', groupPath(connection, groupId, '/picture'), { url: imageUrl });
      return result.ok ? { ok: true, value: { changed: true } } : result;
    },

    async participants(connection, groupId, action, participants) {
      const embedded = await onEmbedded(
        connection,
        { op: 'participants', groupId, action, participants },
        (v) => v as GroupParticipantResult[],
      );
      if (embedded) return embedded;
      const result = await access
        .client(connection)
        .call<{ participants?: GroupParticipantResult[] }>('POST', groupPath(connection, groupId, '/participants'), {
          action,
          participants,
        });
      if (!result.ok) return result;
      const answered = new Map(
        (Array.isArray(result.value.participants) ? result.value.participants : []).map((p) => [String(p.phone), p]),
      );
      return {
        ok: true,
        value: participants.map((phone): GroupParticipantResult => {
          const one = answered.get(phone);
          if (!one)
            return { phone, ok: false, error: { code: 'not_answered', title: 'the gateway did not say what became of this participant' } };
          return one.ok === true
            ? { phone, ok: true }
            : { phone, ok: false, error: { code: String(one.error?.code ?? 'refused'), title: String(one.error?.title ?? 'refused') } };
        }),
      };
    },

    async invite(connection, groupId, options) {
      const embedded = await onEmbedded(connection, { op: 'invite', groupId, revoke: options.revoke }, (v) => v as { code: string });
      if (embedded) return embedded;
      const result = options.revoke
        ? await access.client(connection).call<{ code: string }>('POST', groupPath(connection, groupId, '/invite/revoke'))
        : await access.client(connection).call<{ code: string }>('GET', groupPath(connection, groupId, '/invite'));
      if (!result.ok) return result;
      if (typeof result.value.code !== 'string' || result.value.code === '')
        return { ok: false, error: { code: 'bad_response', title: 'the gateway answered without an invite code', retryable: false } };
      return { ok: true, value: { code: result.value.code } };
    },

    async join(connection, code) {
      const embedded = await onEmbedded(connection, { op: 'join', code }, (v) => v as { groupId: string | null });
      if (embedded) return embedded;
      const result = await access
        .client(connection)
        .call<{ group_id?: unknown; pending?: unknown }>('POST', path(connection, '/join'), { code });
      if (!result.ok) return result;
      if (result.value.pending === true) return { ok: true, value: { groupId: null } };
      if (typeof result.value.group_id !== 'string')
        return { ok: false, error: { code: 'bad_response', title: 'the gateway answered without the group id', retryable: false } };
      return { ok: true, value: { groupId: result.value.group_id } };
    },

    async leave(connection, groupId) {
      const embedded = await onEmbedded(connection, { op: 'leave', groupId }, () => ({ left: true as const }));
      if (embedded) return embedded;
      const result = await access.client(connection).call('POST', groupPath(connection, groupId, '/leave'));
      return result.ok ? { ok: true, value: { left: true } } : result;
    },
  };
}

/** The settings an HTTP gateway is told (PUT /sessions/{session}/settings): the ones it has to honour (calls are Parley's to reject). */
export function gatewaySettingsOf(settings: Record<string, unknown>) {
  return {
    always_online: settings.always_online === true,
    read_receipts: settings.read_receipts === true,
    group_messages: settings.group_messages === true,
    status_messages: settings.status_messages === true,
  };
}
