/**
 * Business labels and status posts on the embedded engine (docs/channels.md, "Labels" and "Status"):
 * the library's own calls, run by the session's holder, and its label events as Parley's.
 *
 * - Labels are app-state records of the account: `addLabel` makes or changes one (the id is the
 *   client's choice; `deleted: true` removes it), `addChatLabel` / `removeChatLabel` put one on a chat
 *   or take it off, `addMessageLabel` / `removeMessageLabel` on one message. The library reports every
 *   change, the phone's and our own (emitOwnEvents), as `labels.edit` and `labels.association`.
 * - A status post is a message to `status@broadcast` with `statusJidList` (who sees it) and, for text,
 *   `backgroundColor` and `font`.
 */
import type { AnyMessageContent, BaileysEventMap } from 'baileys';
import type { InboundEvent, ProviderLabel, Result } from '../../provider.ts';
import { jidOfPhone, phoneOfJid, serverOf } from './ids.ts';
import { STATUS_BROADCAST } from './inbound.ts';

/** The library's label and status calls the engine uses (Socket/chats.d.ts, messages-send). */
export type LabelSocketCalls = {
  addLabel(jid: string, labels: { id: string; name?: string; color?: number; deleted?: boolean }): Promise<void>;
  addChatLabel(jid: string, labelId: string): Promise<void>;
  removeChatLabel(jid: string, labelId: string): Promise<void>;
  addMessageLabel(jid: string, messageId: string, labelId: string): Promise<void>;
  removeMessageLabel(jid: string, messageId: string, labelId: string): Promise<void>;
};

/** A status post as the holder is handed it: media already fetched (base64). */
export type StatusRequest =
  | { type: 'text'; text: string; backgroundColor: string; font: number; recipients: string[] }
  | { type: 'image' | 'video'; media: string; mimeType: string; caption?: string; recipients: string[] };

export type LabelRequest =
  | { op: 'save'; label: ProviderLabel }
  | { op: 'remove'; labelId: string }
  | { op: 'assign'; labelId: string; chat: string; messageId?: string; action: 'add' | 'remove' }
  | { op: 'status'; post: StatusRequest };

type Socket = LabelSocketCalls & {
  sendMessage(
    jid: string,
    content: AnyMessageContent,
    options?: Record<string, unknown>,
  ): Promise<{ key?: { id?: string | null } } | undefined>;
};

/** A labelled chat's jid: a group's id as it is, a contact's phone as its phone jid. */
const chatJid = (chat: string) => (serverOf(chat) === 'g.us' ? chat : jidOfPhone(chat));

export async function runLabelRequest(socket: Socket, request: LabelRequest): Promise<Result<unknown>> {
  switch (request.op) {
    case 'save': {
      const { id, name, color } = request.label;
      await socket.addLabel('', { id, name, color, deleted: false });
      return { ok: true, value: { id, name, color } };
    }
    case 'remove':
      await socket.addLabel('', { id: request.labelId, deleted: true });
      return { ok: true, value: { removed: true } };
    case 'assign': {
      const jid = chatJid(request.chat);
      const { labelId, messageId, action } = request;
      if (messageId)
        await (action === 'add' ? socket.addMessageLabel(jid, messageId, labelId) : socket.removeMessageLabel(jid, messageId, labelId));
      else await (action === 'add' ? socket.addChatLabel(jid, labelId) : socket.removeChatLabel(jid, labelId));
      return { ok: true, value: { changed: true } };
    }
    case 'status': {
      const post = request.post;
      const statusJidList = post.recipients.map(jidOfPhone);
      const content: AnyMessageContent =
        post.type === 'text'
          ? { text: post.text }
          : post.type === 'image'
            ? { image: Buffer.from(post.media, 'base64'), mimetype: post.mimeType, ...(post.caption ? { caption: post.caption } : {}) }
            : { video: Buffer.from(post.media, 'base64'), mimetype: post.mimeType, ...(post.caption ? { caption: post.caption } : {}) };
      const options = post.type === 'text' ? { statusJidList, backgroundColor: post.backgroundColor, font: post.font } : { statusJidList };
      const sent = await socket.sendMessage(STATUS_BROADCAST, content, options);
      const id = sent?.key?.id;
      if (!id) return { ok: false, error: { code: 'bad_response', title: 'the library answered without the post’s id', retryable: false } };
      return { ok: true, value: { id } };
    }
    default:
      return request satisfies never;
  }
}

export type LabelSocketEvent =
  | { event: 'labels.edit'; data: BaileysEventMap['labels.edit'] }
  | { event: 'labels.association'; data: BaileysEventMap['labels.association'] };

/** The privacy-id jid a label association names (whose phone the engine asks the library's store for). */
export function labelLidsOf(input: LabelSocketEvent): string[] {
  if (input.event !== 'labels.association') return [];
  const chat = input.data.association.chatId;
  return serverOf(chat) === 'lid' ? [chat] : [];
}

/**
 * The events of one label event. A chat named by privacy id is named by its phone where the library's
 * store maps it (`phones`); a chat with neither (a broadcast list, a newsletter) is left out.
 */
export function labelSocketEvents(
  ref: string,
  input: LabelSocketEvent,
  context: { now: Date; phones?: ReadonlyMap<string, string> },
): InboundEvent[] {
  const { now, phones = new Map<string, string>() } = context;
  if (input.event === 'labels.edit') {
    const label = input.data;
    if (!label?.id) return [];
    return [
      {
        kind: 'label.edit',
        ref,
        labelId: String(label.id),
        name: typeof label.name === 'string' ? label.name : '',
        color: Number.isInteger(label.color) && label.color >= 0 && label.color < 20 ? label.color : 0,
        deleted: label.deleted === true,
        timestamp: now,
      },
    ];
  }
  const { association, type } = input.data;
  const jid = association.chatId;
  const chat = serverOf(jid) === 'g.us' ? jid : (phoneOfJid(jid) ?? phoneOfJid(phones.get(jid)));
  if (!chat || !association.labelId) return [];
  return [
    {
      kind: 'label.association',
      ref,
      labelId: String(association.labelId),
      chat,
      ...('messageId' in association && association.messageId ? { messageId: association.messageId } : {}),
      action: type,
      timestamp: now,
    },
  ];
}
