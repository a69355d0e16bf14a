/**
 * The embedded engine's narrow socket interface: the part of the linked-device library's socket
 * (baileys 7) the engine uses, events in and calls out. The real factory wraps makeWASocket; tests
 * drive the engine with a scripted socket that emits the library's own event shapes (built with its
 * protobuf types) and records the calls. Nothing else in Parley imports the library's socket.
 */
import type {
  AnyMessageContent,
  AuthenticationState,
  BaileysEventMap,
  GroupMetadata,
  MiscMessageGenerationOptions,
  ParticipantAction,
  proto,
  WAMessage,
  WAMessageKey,
  WAPresence,
} from 'baileys';
import type { LabelSocketCalls } from './labels.ts';
import type { ChatSocket } from './chats.ts';
import type { ProfileSocket } from './profiles.ts';

/** The library's events the engine listens to. */
export type SocketEvents = Pick<
  BaileysEventMap,
  | 'connection.update'
  | 'creds.update'
  | 'messages.upsert'
  | 'messages.update'
  | 'message-receipt.update'
  | 'messages.reaction'
  | 'messages.delete'
  | 'messaging-history.set'
  | 'groups.upsert'
  | 'groups.update'
  | 'group-participants.update'
  | 'presence.update'
  | 'call'
  | 'labels.edit'
  | 'labels.association'
  | 'chats.update'
  | 'chats.delete'
>;

/** The whole socket the engine holds: messaging, profiles and calls (profiles.ts), groups and presence, labels (labels.ts), chats (chats.ts). */
export type EngineSocket = ProfileSocket & MessageSocket & GroupSocketCalls & LabelSocketCalls & ChatSocket;

/** What sending and receiving messages use of the socket (outbound.ts takes only this). */
export type MessageSocket = {
  ev: {
    on<K extends keyof SocketEvents>(event: K, listener: (arg: SocketEvents[K]) => void): void;
    off<K extends keyof SocketEvents>(event: K, listener: (arg: SocketEvents[K]) => void): void;
  };
  /** The paired account (id is the jid `digits:device@s.whatsapp.net`), once the phone paired. */
  readonly user: { id: string; name?: string; lid?: string } | undefined;
  sendMessage(jid: string, content: AnyMessageContent, options?: MiscMessageGenerationOptions): Promise<WAMessage | undefined>;
  readMessages(keys: WAMessageKey[]): Promise<void>;
  sendPresenceUpdate(type: WAPresence, toJid?: string): Promise<void>;
  onWhatsApp(...phoneNumbers: string[]): Promise<Array<{ jid: string; exists: boolean }> | undefined>;
  /** An 8-character code the phone types instead of scanning (digits without `+`). */
  requestPairingCode(phoneNumber: string): Promise<string>;
  /** Unlinks this device from the phone (the credentials are dead afterwards). */
  logout(message?: string): Promise<void>;
  /** Closes the connection and keeps the credentials. */
  end(error: Error | undefined): Promise<void> | void;
  /**
   * The phone jid (`digits@s.whatsapp.net`) the library's store maps a privacy id (`<lid>@lid`) to, for
   * a message that names its sender by privacy id only; undefined when it knows none.
   */
  phoneJidOfLid?(lidJid: string): Promise<string | undefined>;
  /** A group's metadata, asked of the service (the group cache's fetch). */
  groupMetadata?(jid: string): Promise<GroupMetadata>;
};

/** Groups (groups.ts; a group's picture is ProfileSocket's) and presence: the library's own calls. */
export type GroupSocketCalls = {
  groupFetchAllParticipating(): Promise<{ [id: string]: GroupMetadata }>;
  groupCreate(subject: string, participants: string[]): Promise<GroupMetadata>;
  groupUpdateSubject(jid: string, subject: string): Promise<void>;
  groupUpdateDescription(jid: string, description?: string): Promise<void>;
  groupSettingUpdate(jid: string, setting: 'announcement' | 'not_announcement' | 'locked' | 'unlocked'): Promise<void>;
  groupMemberAddMode(jid: string, mode: 'admin_add' | 'all_member_add'): Promise<void>;
  groupJoinApprovalMode(jid: string, mode: 'on' | 'off'): Promise<void>;
  groupToggleEphemeral(jid: string, seconds: number): Promise<void>;
  groupParticipantsUpdate(
    jid: string,
    participants: string[],
    action: ParticipantAction,
  ): Promise<Array<{ status: string; jid: string | undefined }>>;
  groupInviteCode(jid: string): Promise<string | undefined>;
  groupRevokeInvite(jid: string): Promise<string | undefined>;
  groupAcceptInvite(code: string): Promise<string | undefined>;
  groupLeave(jid: string): Promise<void>;
  /** Asks the service for a contact's presence updates (they come as presence.update). */
  presenceSubscribe(jid: string): Promise<void>;
};

/** What a socket is made with: the session's auth state (creds and signal keys, kept in PostgreSQL). */
export type SocketInput = {
  channelId: string;
  auth: AuthenticationState;
  /**
   * The library's getMessage: the content of a message this session sent, which it re-encrypts when a
   * recipient's phone could not decrypt it and asks again (session-messages.ts); undefined past its bounds.
   */
  getMessage(key: WAMessageKey): Promise<proto.IMessage | undefined>;
  /** The library's cachedGroupMetadata (group-cache.ts). */
  cachedGroupMetadata(jid: string): Promise<GroupMetadata | undefined>;
  /** Which history syncs the library processes (history.ts shouldSyncHistory, from the channel's import_history). */
  shouldSyncHistoryMessage(notification: proto.Message.IHistorySyncNotification): boolean;
  /** Shown online as soon as the connection opens (the channel's always_online setting). */
  markOnlineOnConnect?: boolean;
};

/**
 * Makes one socket (the real one connects to the service; the scripted one is driven by a test). The
 * real factory loads the chat library on its first call, hence the promise.
 */
export type SocketFactory = (input: SocketInput) => EngineSocket | Promise<EngineSocket>;
