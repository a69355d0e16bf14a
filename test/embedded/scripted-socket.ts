/**
 * A scripted linked-device socket for the embedded engine's tests: it implements EngineSocket, emits
 * the library's own event shapes (connection.update with a QR, open and close with a Boom-like error
 * carrying the library's DisconnectReason code; creds.update merged into the creds the library's way;
 * messages built with the library's protobuf types) and records every call made on it. Like the real
 * socket, it shows a QR soon after it is made when its creds are not paired, and opens by itself when
 * they are. Nothing leaves the process.
 */
import { appendFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import {
  DisconnectReason,
  generateProfilePicture,
  generateWAMessage,
  getCodeFromWSError,
  jidNormalizedUser,
  proto,
  USyncStatusProtocol,
  type AnyMessageContent,
  type AuthenticationState,
  type BaileysEventMap,
  type BinaryNode,
  type GroupMetadata,
  type MiscMessageGenerationOptions,
  type WABusinessProfile,
  type WACallEvent,
  type WACallUpdateType,
  type WAMessage,
  type WAMessageKey,
} from 'baileys';
import type { EngineSocket, SocketEvents, SocketFactory, SocketInput } from '../../src/providers/gateway/embedded/socket.ts';

export { DisconnectReason };

export type Call = { method: string; args: unknown[] };

export type ScriptedSocket = EngineSocket & {
  channelId: string;
  auth: AuthenticationState;
  /** What the engine gave the library: getMessage, cachedGroupMetadata, shouldSyncHistoryMessage. */
  input: SocketInput;
  /**
   * A recipient's phone could not decrypt one of our messages and asks for it again: what the library
   * does (messages-recv.js sendMessagesAgain) after its in-memory cache of recent sends (gone after a
   * restart, or 5 minutes): it asks getMessage for the content to encrypt again.
   */
  askRetry(key: WAMessageKey): Promise<proto.IMessage | undefined>;
  /** Every call the engine made on it, in order. */
  calls: Call[];
  /** Closed (by the engine's end, or by the connection closing). */
  ended: boolean;
  /** The next sendMessage records the call, then throws this (the bytes went out, the answer did not come back). */
  failNextSend?: Error;
  emit<K extends keyof SocketEvents>(event: K, data: SocketEvents[K]): void;
  /** Shows a new QR (connection.update {qr}); returns it. */
  showQr(): string;
  /** The phone scans: the creds become paired (creds.update, a pre-key written) and the library asks for a restart (515). */
  scan(phone: string, name?: string): Promise<void>;
  /** Opens the connection as a paired device. */
  open(): void;
  /** Closes the connection with the library's DisconnectReason code. */
  close(code: number, message?: string): void;
  /** The connection fails with a network error (NETWORK_ERRORS), surfaced as the library surfaces it. */
  fail(networkError: Error): void;
  /** A customer's text arrives (messages.upsert, a proto.WebMessageInfo). */
  receiveText(from: string, text: string, id?: string): WAMessage;
  /** Acks of one of our own sends (messages.update with the library's WebMessageInfo.Status). */
  ack(id: string, to: string, status: proto.WebMessageInfo.Status): void;
  /**
   * A call's event, as the library emits it (`call`, one WACallEvent): `from` is the caller's address
   * (a phone jid, or a privacy id with the phone as callerPn or not at all). Returns the event.
   */
  callEvent(call: {
    id: string;
    from: string;
    status: WACallUpdateType;
    callerPn?: string;
    video?: boolean;
    groupJid?: string;
  }): WACallEvent;
  /** What the account's own profile and settings are now (what the profile calls changed). */
  account: {
    about: string;
    picture: Buffer | undefined;
    /** Blocked addresses, as the service lists them (privacy ids). */
    blocked: Set<string>;
    /** The privacy categories, as the service names them (fetchPrivacySettings). */
    privacy: Record<string, string>;
  };
};

/** What the scripted service knows of another account (by its digits). */
export type ScriptedProfile = {
  about?: string;
  aboutSetAt?: Date;
  /** A picture URL, or `hidden` (the privacy settings keep it from us: the service's 401). */
  picture?: string | 'hidden';
  /** The business profile, as the library builds it from the service's node (attrs are strings). */
  business?: WABusinessProfile;
};

export type ScriptedSocketsOptions = {
  /** Show a QR soon after an unpaired socket is made (default true). */
  autoQr?: boolean;
  /** Open soon after a paired socket is made (default true). */
  autoOpen?: boolean;
  /** Pair by itself right after it is made (children of the process tests, where no test scans). */
  autoPair?: { phone: string; name?: string };
  /** Called with each record of a socket opening or ending (for the process tests' file). */
  record?: (entry: { event: 'open' | 'end'; channelId: string; at: number }) => void;
  /**
   * The network error each new socket's connection fails with, before any QR (NETWORK_ERRORS): a
   * machine that cannot reach the service. A test may set it and clear it as it goes.
   */
  unreachable?: Error;
  /** Numbers onWhatsApp answers as not on the service. */
  notOnNetwork?: Set<string>;
  /** The library store's privacy id → phone jid mapping (`<lid>@lid` → `digits@s.whatsapp.net`). */
  lidPhones?: Map<string, string>;
  /** The groups the account is in (groupMetadata answers them; any other is the service's 404). The group calls change them. */
  groups?: Map<string, GroupMetadata>;
  /** Groups the account may join by invite code (groupAcceptInvite adds it to them). */
  invites?: Map<string, GroupMetadata>;
  /** Numbers whose privacy settings refuse being added to groups (the service answers 403 for each). */
  privateAdds?: Set<string>;
  /** Other accounts' profiles (by digits); an account not listed has none of these set. */
  profiles?: Map<string, ScriptedProfile>;
  /**
   * The phone's earlier messages of each chat (by chat jid, oldest first): fetchMessageHistory answers with
   * those before the oldest message named, as an ON_DEMAND history sync (messaging-history.set).
   */
  history?: Map<string, WAMessage[]>;
};

/** The privacy id the scripted service gives a number it has no mapping for (stable, so a test can name it). */
export const derivedLid = (digits: string) => String(BigInt(digits) + 100_000_000_000_000n);

/** The privacy categories of a new account, as the service answers them. */
const DEFAULT_PRIVACY = {
  last: 'all',
  online: 'all',
  profile: 'all',
  status: 'contacts',
  readreceipts: 'all',
  groupadd: 'all',
  calladd: 'all',
  messages: 'all',
};

/** The library's errors are Boom errors: the status code of the disconnect is `output.statusCode`. */
export function boomLike(statusCode: number, message: string): Error {
  return Object.assign(new Error(message), {
    isBoom: true,
    output: { statusCode, payload: { statusCode, error: message, message } },
    data: undefined,
  });
}

/**
 * The service's refusal of a query, as the library raises it (assertNodeErrorFree): a Boom whose data is
 * the service's code (404 item-not-found, 403 forbidden, 401 not-authorized, …), status 500.
 */
export function serviceError(code: number, text: string): Error {
  return Object.assign(boomLike(500, text), { data: code });
}

/**
 * The library's error for a connection the network refused (its socket.js mapWebSocketError): a Boom
 * whose data is the WebSocket's own error, with the status code the library gives it
 * (getCodeFromWSError: 408 for Node's `E…` codes and timeouts, 500 for the rest, such as a
 * certificate the TLS layer refused).
 */
export function libraryConnectionError(networkError: Error): Error {
  return Object.assign(boomLike(getCodeFromWSError(networkError), `WebSocket Error (${networkError.message})`), { data: networkError });
}

const nodeError = (message: string, fields: Record<string, unknown>) => Object.assign(new Error(message), fields);

/** Node's errors for a connection that cannot be made, as dns, net, tls and ws raise them (see network-failures.unit.test.ts for the real ones). */
export const NETWORK_ERRORS = {
  dns: () =>
    nodeError('getaddrinfo ENOTFOUND web.whatsapp.com', {
      code: 'ENOTFOUND',
      errno: -3008,
      syscall: 'getaddrinfo',
      hostname: 'web.whatsapp.com',
    }),
  dnsAgain: () =>
    nodeError('getaddrinfo EAI_AGAIN web.whatsapp.com', {
      code: 'EAI_AGAIN',
      errno: -3001,
      syscall: 'getaddrinfo',
      hostname: 'web.whatsapp.com',
    }),
  networkUnreachable: () =>
    nodeError('connect ENETUNREACH 157.240.0.53:443 - Local (0.0.0.0:0)', {
      code: 'ENETUNREACH',
      errno: -101,
      syscall: 'connect',
      address: '157.240.0.53',
      port: 443,
    }),
  refused: () =>
    nodeError('connect ECONNREFUSED 157.240.0.53:443', {
      code: 'ECONNREFUSED',
      errno: -111,
      syscall: 'connect',
      address: '157.240.0.53',
      port: 443,
    }),
  /** A certificate the TLS layer refused (an intercepting proxy): no `E…` code, so the library gives it 500. */
  tlsCertificate: () => nodeError('self-signed certificate in certificate chain', { code: 'SELF_SIGNED_CERT_IN_CHAIN' }),
  handshakeTimeout: () => new Error('Opening handshake has timed out'),
};

const soon = (fn: () => void) => setImmediate(fn);

type Label = BaileysEventMap['labels.edit'];
type Association = BaileysEventMap['labels.association']['association'];
/** A label association as chat-utils.js builds it (LabelAssociationType is not exported from the package root). */
const chatLabel = (chatId: string, labelId: string) => ({ type: 'label_jid', chatId, labelId }) as Association;
const messageLabel = (chatId: string, messageId: string, labelId: string) =>
  ({ type: 'label_message', chatId, messageId, labelId }) as Association;

/** The library's update…Privacy calls: each sets one category (chats.js privacyQuery). */
function privacyUpdates(calls: Call[], privacy: () => Record<string, string>) {
  const update = (method: string, category: string) => async (value: string) => {
    calls.push({ method, args: [value] });
    privacy()[category] = value;
  };
  return {
    updateLastSeenPrivacy: update('updateLastSeenPrivacy', 'last'),
    updateOnlinePrivacy: update('updateOnlinePrivacy', 'online'),
    updateProfilePicturePrivacy: update('updateProfilePicturePrivacy', 'profile'),
    updateStatusPrivacy: update('updateStatusPrivacy', 'status'),
    updateReadReceiptsPrivacy: update('updateReadReceiptsPrivacy', 'readreceipts'),
    updateGroupsAddPrivacy: update('updateGroupsAddPrivacy', 'groupadd'),
    updateCallPrivacy: update('updateCallPrivacy', 'calladd'),
    updateMessagesPrivacy: update('updateMessagesPrivacy', 'messages'),
  };
}

export function createScriptedSockets(options: ScriptedSocketsOptions = {}) {
  const sockets: ScriptedSocket[] = [];

  const factory: SocketFactory = (input) => {
    const { channelId, auth } = input;
    const listeners = new Map<string, Set<(arg: never) => void>>();
    let user: { id: string; name?: string; lid?: string } | undefined;
    const calls: Call[] = [];
    /** The account's labels as the service holds them (app state). */
    const labels = new Map<string, Label>();
    const emit = <K extends keyof SocketEvents>(event: K, data: SocketEvents[K]) => {
      // The library merges creds updates into its creds before anyone hears of them.
      if (event === 'creds.update') Object.assign(auth.creds, data);
      for (const listener of [...(listeners.get(event) ?? [])]) (listener as (arg: SocketEvents[K]) => void)(data);
    };
    // The service's side of groups: the account's groups (options.groups), changed by the group calls.
    const groups = (): Map<string, GroupMetadata> => (options.groups ??= new Map());
    const selfJid = () => `${(auth.creds.me?.id ?? '0').split(/[:@]/)[0]}@s.whatsapp.net`;
    const groupOf = (jid: string): GroupMetadata => {
      const group = groups().get(jid);
      if (!group) throw serviceError(404, 'item-not-found');
      return group;
    };
    const isAdmin = (group: GroupMetadata) =>
      group.participants.some((p) => (p.id === selfJid() || p.phoneNumber === selfJid()) && p.admin);
    /** A change of the group's own fields; the service refuses a member where only admins may, and notifies the change. */
    const changeGroup = (jid: string, info: boolean, change: Partial<GroupMetadata>) => {
      const group = groupOf(jid);
      if (!isAdmin(group) && (!info || group.restrict)) throw serviceError(403, 'forbidden');
      Object.assign(group, change);
      soon(() => emit('groups.update', [{ id: jid, ...change, author: selfJid() }]));
    };
    const closeWith = (error: Error) => {
      if (!socket.ended) {
        socket.ended = true;
        options.record?.({ event: 'end', channelId, at: Date.now() });
      }
      emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date() } });
    };
    const socket: ScriptedSocket = {
      channelId,
      auth,
      input,
      calls,
      ended: false,
      ev: {
        on(event, listener) {
          const set = listeners.get(event) ?? new Set();
          set.add(listener as (arg: never) => void);
          listeners.set(event, set);
        },
        off(event, listener) {
          listeners.get(event)?.delete(listener as (arg: never) => void);
        },
      },
      get user() {
        return user;
      },
      emit,
      showQr() {
        const qr = [
          '2@' + randomBytes(24).toString('base64'),
          randomBytes(32).toString('base64'),
          randomBytes(32).toString('base64'),
          randomBytes(32).toString('base64'),
        ].join(',');
        emit('connection.update', { qr });
        return qr;
      },
      async scan(phone, name) {
        emit('creds.update', { me: { id: `${phone}:7@s.whatsapp.net`, name }, registered: true, platform: 'android' });
        await auth.keys.set({ 'pre-key': { '1': { public: randomBytes(32), private: randomBytes(32) } } });
        socket.close(DisconnectReason.restartRequired, 'Stream Errored (restart required)');
      },
      open() {
        const me = auth.creds.me;
        user = me ? { id: me.id, name: me.name } : undefined;
        emit('connection.update', { connection: 'open', isNewLogin: false });
      },
      close(code, message = 'Connection Closed') {
        closeWith(boomLike(code, message));
      },
      fail(networkError) {
        closeWith(libraryConnectionError(networkError));
      },
      receiveText(from, text, id = '3A' + randomBytes(9).toString('hex').toUpperCase()) {
        const message = proto.WebMessageInfo.fromObject({
          key: { remoteJid: `${from}@s.whatsapp.net`, fromMe: false, id },
          message: { conversation: text },
          messageTimestamp: Math.floor(Date.now() / 1000),
          pushName: 'Scripted Customer',
        }) as WAMessage;
        emit('messages.upsert', { messages: [message], type: 'notify' });
        return message;
      },
      ack(id, to, status) {
        emit('messages.update', [{ key: { remoteJid: `${to}@s.whatsapp.net`, fromMe: true, id }, update: { status } }]);
      },
      callEvent(call) {
        // As the library's handleCall builds it (messages-recv.js).
        const event: WACallEvent = {
          chatId: call.groupJid ?? call.from,
          from: call.from,
          ...(call.callerPn ? { callerPn: call.callerPn } : {}),
          id: call.id,
          date: new Date(),
          offline: false,
          status: call.status,
          isVideo: call.video === true,
          isGroup: Boolean(call.groupJid),
          ...(call.groupJid ? { groupJid: call.groupJid } : {}),
        };
        emit('call', [event]);
        return event;
      },
      account: { about: 'Hey there! I am using WhatsApp.', picture: undefined, blocked: new Set(), privacy: { ...DEFAULT_PRIVACY } },
      async profilePictureUrl(jid, type) {
        calls.push({ method: 'profilePictureUrl', args: [jid, type] });
        const digits = jidNormalizedUser(jid).split('@')[0]!;
        if (digits === auth.creds.me?.id.split(/[:@]/)[0])
          return socket.account.picture ? `https://pps.whatsapp.net/v/t61.24694-24/own_${digits}.jpg?oe=ABC` : undefined;
        const picture = options.profiles?.get(digits)?.picture;
        if (picture === 'hidden') throw boomLike(401, 'not-authorized');
        if (!picture) throw boomLike(404, 'item-not-found');
        return picture;
      },
      async fetchStatus(...jids) {
        calls.push({ method: 'fetchStatus', args: jids });
        const own = auth.creds.me?.id.split(/[:@]/)[0];
        // The service's status nodes, read by the library's own protocol parser.
        return jids.map((jid) => {
          const digits = jid.split('@')[0]!;
          const profile = digits === own ? { about: socket.account.about, aboutSetAt: new Date(0) } : options.profiles?.get(digits);
          const node: BinaryNode = profile?.about
            ? {
                tag: 'status',
                attrs: { t: String(Math.floor((profile.aboutSetAt ?? new Date()).getTime() / 1000)) },
                content: Buffer.from(profile.about),
              }
            : { tag: 'status', attrs: { code: '401' } };
          return { id: jid, status: new USyncStatusProtocol().parser(node) };
        });
      },
      async getBusinessProfile(jid) {
        calls.push({ method: 'getBusinessProfile', args: [jid] });
        return options.profiles?.get(jid.split('@')[0]!)?.business;
      },
      async updateProfileName(name) {
        calls.push({ method: 'updateProfileName', args: [name] });
        // The app-state change comes back as the library's creds update (emitOwnEvents).
        emit('creds.update', { me: { ...auth.creds.me!, name } });
        user = user ? { ...user, name } : user;
      },
      async updateProfileStatus(status) {
        calls.push({ method: 'updateProfileStatus', args: [status] });
        socket.account.about = status;
      },
      async updateProfilePicture(jid, content) {
        // A group's picture (groups.ts): the bytes as handed to the library; the service refuses a member of a locked group.
        if (jid.endsWith('@g.us')) {
          calls.push({ method: 'updateProfilePicture', args: [jid, content] });
          if (!isAdmin(groupOf(jid)) && groupOf(jid).restrict) throw serviceError(403, 'forbidden');
          return;
        }
        calls.push({ method: 'updateProfilePicture', args: [jid] });
        // What the library does with the bytes (its image library must read them), before sending them.
        const { img } = await generateProfilePicture(content);
        socket.account.picture = img;
      },
      async removeProfilePicture(jid) {
        calls.push({ method: 'removeProfilePicture', args: [jid] });
        if (jid.endsWith('@g.us')) groupOf(jid);
        else socket.account.picture = undefined;
      },
      async updateBlockStatus(jid, action) {
        calls.push({ method: 'updateBlockStatus', args: [jid, action] });
        // As the library: a phone jid is blocked by its privacy id (the service's lookup when the store has none).
        const lid = jid.endsWith('@lid') ? jid : await socket.lidOfPhoneJid!(jid);
        if (!lid) throw boomLike(400, `Unable to resolve LID for PN JID: ${jid}`);
        if (action === 'block') socket.account.blocked.add(lid);
        else socket.account.blocked.delete(lid);
      },
      async fetchBlocklist() {
        calls.push({ method: 'fetchBlocklist', args: [] });
        return [...socket.account.blocked];
      },
      async fetchPrivacySettings(force) {
        calls.push({ method: 'fetchPrivacySettings', args: [force] });
        return { ...socket.account.privacy };
      },
      ...privacyUpdates(calls, () => socket.account.privacy),
      async rejectCall(callId, callFrom) {
        calls.push({ method: 'rejectCall', args: [callId, callFrom] });
      },
      async lidOfPhoneJid(phoneJid) {
        calls.push({ method: 'lidOfPhoneJid', args: [phoneJid] });
        const digits = phoneJid.split(/[:@]/)[0]!;
        if (options.notOnNetwork?.has(digits)) return undefined;
        for (const [lid, pn] of options.lidPhones ?? []) if (pn.split(/[:@]/)[0] === digits) return lid;
        return `${derivedLid(digits)}@lid`;
      },
      async sendMessage(jid: string, content: AnyMessageContent, messageOptions?: MiscMessageGenerationOptions) {
        calls.push({ method: 'sendMessage', args: [jid, content, messageOptions] });
        const failure = socket.failNextSend;
        socket.failNextSend = undefined;
        if (failure) throw failure;
        // The library's own message building (uploads faked: nothing leaves the process).
        return generateWAMessage(jid, content, {
          userJid: auth.creds.me?.id ?? '0@s.whatsapp.net',
          upload: async () => ({ mediaUrl: 'https://mmg.invalid/scripted', directPath: '/scripted' }),
          ...messageOptions,
          messageId: messageOptions?.messageId ?? '3EB0' + randomBytes(9).toString('hex').toUpperCase(),
        });
      },
      async askRetry(key) {
        calls.push({ method: 'askRetry', args: [key] });
        return input.getMessage(key);
      },
      async groupMetadata(jid) {
        calls.push({ method: 'groupMetadata', args: [jid] });
        return structuredClone(groupOf(jid));
      },
      async groupFetchAllParticipating() {
        calls.push({ method: 'groupFetchAllParticipating', args: [] });
        const all = Object.fromEntries([...groups().values()].map((g) => [g.id, structuredClone(g)]));
        // As the library: every group's whole metadata is emitted as groups.update too.
        emit('groups.update', Object.values(structuredClone(all)));
        return all;
      },
      async groupCreate(subject, participants) {
        calls.push({ method: 'groupCreate', args: [subject, participants] });
        const me = selfJid();
        const group: GroupMetadata = {
          id: `1203630${String(100000000000 + groups().size + Math.floor(Math.random() * 1e9)).slice(0, 12)}@g.us`,
          subject,
          owner: me,
          creation: Math.floor(Date.now() / 1000),
          participants: [{ id: me, admin: 'superadmin' }, ...participants.map((id) => ({ id, admin: null }))],
        };
        groups().set(group.id, group);
        soon(() => emit('groups.upsert', [{ ...structuredClone(group), author: me }]));
        return structuredClone(group);
      },
      async groupUpdateSubject(jid, subject) {
        calls.push({ method: 'groupUpdateSubject', args: [jid, subject] });
        changeGroup(jid, true, { subject });
      },
      async groupUpdateDescription(jid, description) {
        calls.push({ method: 'groupUpdateDescription', args: [jid, description] });
        changeGroup(jid, true, { desc: description });
      },
      async groupSettingUpdate(jid, setting) {
        calls.push({ method: 'groupSettingUpdate', args: [jid, setting] });
        changeGroup(
          jid,
          false,
          setting === 'announcement' || setting === 'not_announcement'
            ? { announce: setting === 'announcement' }
            : { restrict: setting === 'locked' },
        );
      },
      async groupMemberAddMode(jid, mode) {
        calls.push({ method: 'groupMemberAddMode', args: [jid, mode] });
        changeGroup(jid, false, { memberAddMode: mode === 'all_member_add' });
      },
      async groupJoinApprovalMode(jid, mode) {
        calls.push({ method: 'groupJoinApprovalMode', args: [jid, mode] });
        changeGroup(jid, false, { joinApprovalMode: mode === 'on' });
      },
      async groupToggleEphemeral(jid, seconds) {
        calls.push({ method: 'groupToggleEphemeral', args: [jid, seconds] });
        // The change comes back as a protocol message in the group, not a group event.
        groupOf(jid).ephemeralDuration = seconds || undefined;
      },
      async groupParticipantsUpdate(jid, jids, action) {
        calls.push({ method: 'groupParticipantsUpdate', args: [jid, jids, action] });
        const group = groupOf(jid);
        if (!isAdmin(group) && !(action === 'add' && group.memberAddMode)) throw serviceError(403, 'forbidden');
        const index = (id: string) => group.participants.findIndex((p) => p.id === id || p.phoneNumber === id);
        const answers = jids.map((id) => {
          const phone = id.split('@')[0]!;
          const at = index(id);
          if (action === 'add') {
            if (at >= 0) return { status: '409', jid: id };
            if (options.notOnNetwork?.has(phone)) return { status: '404', jid: id };
            if (options.privateAdds?.has(phone)) return { status: '403', jid: id };
            group.participants.push({ id, admin: null });
          } else {
            if (at < 0) return { status: '404', jid: id };
            if (action === 'remove') group.participants.splice(at, 1);
            else group.participants[at]!.admin = action === 'promote' ? 'admin' : null;
          }
          return { status: '200', jid: id };
        });
        const done = answers
          .filter((a) => a.status === '200')
          .map((a) => ({ id: a.jid, admin: action === 'promote' ? ('admin' as const) : null }));
        if (done.length > 0) soon(() => emit('group-participants.update', { id: jid, author: selfJid(), participants: done, action }));
        return answers;
      },
      async groupInviteCode(jid) {
        calls.push({ method: 'groupInviteCode', args: [jid] });
        const group = groupOf(jid);
        group.inviteCode ??= randomBytes(11).toString('base64url');
        return group.inviteCode;
      },
      async groupRevokeInvite(jid) {
        calls.push({ method: 'groupRevokeInvite', args: [jid] });
        const group = groupOf(jid);
        if (!isAdmin(group)) throw serviceError(401, 'not-authorized');
        group.inviteCode = randomBytes(11).toString('base64url');
        return group.inviteCode;
      },
      async groupAcceptInvite(code) {
        calls.push({ method: 'groupAcceptInvite', args: [code] });
        const group = options.invites?.get(code);
        if (!group) throw serviceError(406, 'not-acceptable');
        options.invites!.delete(code);
        group.participants.push({ id: selfJid(), admin: null });
        groups().set(group.id, group);
        return group.id;
      },
      async groupLeave(jid) {
        calls.push({ method: 'groupLeave', args: [jid] });
        const group = groupOf(jid);
        group.participants = group.participants.filter((p) => p.id !== selfJid());
        groups().delete(jid);
        soon(() => emit('group-participants.update', { id: jid, author: selfJid(), participants: [{ id: selfJid() }], action: 'remove' }));
      },
      async chatModify(mod, jid) {
        calls.push({ method: 'chatModify', args: [mod, jid] });
        // As the library: the patch is applied on our side too (emitOwnEvents: chat-utils processSyncAction).
        const m = mod as Record<string, unknown>;
        soon(() => {
          if ('archive' in m) emit('chats.update', [{ id: jid, archived: m.archive === true }]);
          else if ('pin' in m) emit('chats.update', [{ id: jid, pinned: m.pin ? Math.floor(Date.now() / 1000) : null }]);
          else if ('mute' in m) emit('chats.update', [{ id: jid, muteEndTime: m.mute ? (m.mute as number) : null }]);
          else if ('markRead' in m) emit('chats.update', [{ id: jid, unreadCount: m.markRead ? 0 : -1 }]);
          else if ('delete' in m) emit('chats.delete', [jid]);
          else if ('star' in m) {
            const star = m.star as { messages: Array<{ id: string; fromMe?: boolean }>; star: boolean };
            emit(
              'messages.update',
              star.messages.map((one) => ({
                key: { remoteJid: jid, id: one.id, fromMe: one.fromMe === true },
                update: { starred: star.star },
              })),
            );
          }
        });
      },
      async fetchMessageHistory(count, oldestMsgKey, oldestMsgTimestamp) {
        calls.push({ method: 'fetchMessageHistory', args: [count, oldestMsgKey, oldestMsgTimestamp] });
        const earlier = (options.history?.get(oldestMsgKey.remoteJid ?? '') ?? []).filter(
          (m) => Number(m.messageTimestamp) * 1000 < Number(oldestMsgTimestamp),
        );
        const messages = earlier.slice(-count).reverse();
        // The phone answers later, as a history sync of its own (newest first, as the library hands chunks over).
        soon(() =>
          emit('messaging-history.set', {
            chats: [],
            contacts: [],
            messages,
            syncType: proto.HistorySync.HistorySyncType.ON_DEMAND,
            isLatest: false,
          }),
        );
        return '3EB0' + randomBytes(9).toString('hex').toUpperCase();
      },
      async presenceSubscribe(jid) {
        calls.push({ method: 'presenceSubscribe', args: [jid] });
      },
      // Labels: app-state patches; the library emits our own changes back (emitOwnEvents), as chat-utils.js builds them.
      async addLabel(jid, label) {
        calls.push({ method: 'addLabel', args: [jid, label] });
        const known = labels.get(label.id);
        const next: Label = {
          id: label.id,
          name: label.name ?? known?.name ?? '',
          color: label.color ?? known?.color ?? 0,
          deleted: label.deleted === true,
        };
        if (next.deleted) labels.delete(label.id);
        else labels.set(label.id, next);
        soon(() => emit('labels.edit', { ...next }));
      },
      async addChatLabel(jid, labelId) {
        calls.push({ method: 'addChatLabel', args: [jid, labelId] });
        soon(() => emit('labels.association', { type: 'add', association: chatLabel(jid, labelId) }));
      },
      async removeChatLabel(jid, labelId) {
        calls.push({ method: 'removeChatLabel', args: [jid, labelId] });
        soon(() => emit('labels.association', { type: 'remove', association: chatLabel(jid, labelId) }));
      },
      async addMessageLabel(jid, messageId, labelId) {
        calls.push({ method: 'addMessageLabel', args: [jid, messageId, labelId] });
        soon(() =>
          emit('labels.association', {
            type: 'add',
            association: messageLabel(jid, messageId, labelId),
          }),
        );
      },
      async removeMessageLabel(jid, messageId, labelId) {
        calls.push({ method: 'removeMessageLabel', args: [jid, messageId, labelId] });
        soon(() =>
          emit('labels.association', {
            type: 'remove',
            association: messageLabel(jid, messageId, labelId),
          }),
        );
      },
      async readMessages(keys) {
        calls.push({ method: 'readMessages', args: [keys] });
      },
      async sendPresenceUpdate(type, toJid) {
        calls.push({ method: 'sendPresenceUpdate', args: [type, toJid] });
      },
      async phoneJidOfLid(lidJid) {
        calls.push({ method: 'phoneJidOfLid', args: [lidJid] });
        return options.lidPhones?.get(lidJid);
      },
      async onWhatsApp(...phones) {
        calls.push({ method: 'onWhatsApp', args: phones });
        return phones.map((p) => ({ jid: `${p}@s.whatsapp.net`, exists: !options.notOnNetwork?.has(p) }));
      },
      async requestPairingCode(phone) {
        calls.push({ method: 'requestPairingCode', args: [phone] });
        return randomBytes(8).toString('hex').toUpperCase().slice(0, 8);
      },
      async logout(message) {
        calls.push({ method: 'logout', args: [message] });
        socket.close(DisconnectReason.loggedOut, 'Intentional Logout');
      },
      end(error) {
        calls.push({ method: 'end', args: [error] });
        if (!socket.ended) socket.close(DisconnectReason.connectionClosed, 'Connection Closed');
      },
    };
    sockets.push(socket);
    options.record?.({ event: 'open', channelId, at: Date.now() });
    soon(() => {
      if (socket.ended) return;
      emit('connection.update', { connection: 'connecting' });
      if (options.unreachable) return socket.fail(options.unreachable);
      const paired = Boolean(auth.creds.me);
      if (!paired && options.autoPair) {
        const phone = options.autoPair;
        socket.showQr();
        // A phone takes a moment to scan (connect reads the QR first).
        setTimeout(() => void socket.scan(phone.phone, phone.name), 500);
        return;
      }
      if (paired && options.autoOpen !== false) socket.open();
      else if (!paired && options.autoQr !== false) socket.showQr();
    });
    return socket;
  };

  return {
    factory,
    sockets,
    /** The options, which a test may change as it goes (say, autoOpen off so a reconnect fails before it opens). */
    options,
    /** The sockets made for a channel, oldest first. */
    of: (channelId: string) => sockets.filter((s) => s.channelId === channelId),
    /** The newest socket of a channel. */
    latest: (channelId: string) => sockets.filter((s) => s.channelId === channelId).at(-1),
  };
}

/** A factory for a child service (EMBEDDED_SOCKET_MODULE): pairs by itself and appends open/end records to a file. */
export function recordingSocketFactory(file: string, worker: string, autoPair: { phone: string; name?: string }): SocketFactory {
  return createScriptedSockets({
    autoPair,
    record: (entry) => appendFileSync(file, JSON.stringify({ ...entry, worker, pid: process.pid }) + '\n'),
  }).factory;
}
