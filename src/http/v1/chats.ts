/**
 * The chats of an unofficial channel's phone (capabilities `chats.manage`, `chats.history`): thin routes
 * over domain/channels/chats.ts. The chat list is the channel's conversations; changes are made on the
 * phone through the channel's engine, then kept on the conversation. docs/channels.md, "Chats".
 */
import { z } from 'zod';
import {
  CHAT_HISTORY_MAX,
  deleteChat,
  fetchChatHistory,
  getChat,
  listChats,
  forwardMessage,
  PIN_SECONDS,
  pinMessage,
  starMessage,
  updateChat,
  type ChatDeps,
} from '../../domain/channels/chats.ts';
import { DomainError } from '../../domain/errors.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, listOf, PageQuerySchema, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { presentChat, presentHistoryRequest } from './chats.presenters.ts';
import { presentMessage } from './messages.presenters.ts';
import { MessageSchema, refusalError } from './messages.ts';
import type { MessageDeps } from '../../domain/messages/accept.ts';

export const ChatSchema = z
  .object({
    id: z.string().meta({
      description: "The chat: the customer's number (E.164, with +) or a group's id `<digits>@g.us`; what the chat routes name as chatID",
    }),
    kind: z.enum(['person', 'group']),
    channel_id: z.uuid(),
    conversation_id: z.uuid().meta({ description: "The chat's conversation (GET /v1/conversations/{id}/messages for its messages)" }),
    contact_id: z.string().nullable(),
    name: z.string().nullable().meta({ description: "The contact's name, where the chat has a contact" }),
    last_message_preview: z.string().nullable(),
    last_message_at: z.string().nullable(),
    unread_count: z.number().int().meta({ description: 'Inbound messages since the chat was last read' }),
    unread: z.boolean().meta({ description: 'Unread messages, or marked unread by hand' }),
    archived: z.boolean(),
    pinned: z.boolean(),
    pinned_at: z.string().nullable(),
    muted_until: z.string().nullable().meta({ description: 'Notifications muted on the phone until then; null when not muted' }),
  })
  .meta({ id: 'Chat' });

export const ChatHistoryRequestSchema = z
  .object({
    chat_id: z.string(),
    count: z.number().int(),
    before: z
      .object({ provider_message_id: z.string(), at: z.string() })
      .meta({ description: 'The oldest message Parley holds of the chat: the phone is asked for the ones before it' }),
    status: z
      .literal('requested')
      .meta({ description: 'The messages arrive later as the chat’s messages (message.new), when the phone answers' }),
  })
  .meta({ id: 'ChatHistoryRequest' });

const CHAT_ID = /^(\+?[\d\s()-]{5,30}|\d{5,20}(-\d{5,20})?@g\.us)$/;
const ChannelParams = z.object({ channelID: PathId });
const ChatParams = z.object({
  channelID: PathId,
  chatID: z
    .string()
    .max(64)
    .regex(CHAT_ID, 'must be a phone number with its country code or a group id <digits>@g.us')
    .meta({ description: "The customer's number (E.164; `+` may be left out) or a group id `<digits>@g.us`", example: '+4915112345678' }),
});

const UpdateChatBody = z
  .object({
    archived: z.boolean().optional(),
    pinned: z.boolean().optional(),
    muted_until: z.iso
      .datetime({ offset: true })
      .nullable()
      .optional()
      .meta({ description: 'Mute notifications until then (a time in the future); null unmutes' }),
    unread: z
      .boolean()
      .optional()
      .meta({ description: 'true: mark unread; false: mark read (the unread count goes to 0, on the phone too)' }),
  })
  .strict()
  .meta({
    id: 'UpdateChatRequest',
    examples: [{ archived: true }, { pinned: true, muted_until: '2025-06-09T09:00:00.000Z' }, { unread: false }],
  });

const HistoryBody = z
  .object({
    count: z
      .number()
      .int()
      .min(1)
      .max(CHAT_HISTORY_MAX)
      .default(CHAT_HISTORY_MAX)
      .meta({ description: `How many earlier messages to ask for (1 to ${CHAT_HISTORY_MAX})` }),
  })
  .strict()
  .meta({ id: 'ChatHistoryBody', examples: [{ count: 50 }] });

/** A refusal's field errors placed in the request: the chat is the path's, anything else the body's. */
async function located<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (!(err instanceof DomainError) || !err.fieldErrors) throw err;
    throw new DomainError(err.code, err.message, {
      extra: err.extra,
      fieldErrors: err.fieldErrors.map((f) => ({
        pointer: f.pointer,
        location: f.location ?? (f.pointer === '/chatID' ? 'params' : 'body'),
        message: f.message,
      })),
    });
  }
}

const chatErrors = errorResponses([400, 401, 403, 404, 409, 422, 503]);
const WHERE =
  'Unofficial channels (capability `chats.manage`; 422 on official channels); changes need the phone connected (409 otherwise).';

export type UpdateChatRequest = z.input<typeof UpdateChatBody>;

const MessageParams = z.object({ messageID: PathId });
const StarBody = z
  .object({ starred: z.boolean().default(true).meta({ description: 'false unstars it' }) })
  .strict()
  .meta({ id: 'StarMessageRequest', examples: [{ starred: true }] });
const PinBody = z
  .object({
    pinned: z.boolean().default(true).meta({ description: 'false unpins it' }),
    duration_seconds: z
      .number()
      .int()
      .optional()
      .meta({ description: `How long it stays pinned: one of ${PIN_SECONDS.join(', ')} (a day, a week, 30 days; default a week)` }),
  })
  .strict()
  .meta({ id: 'PinMessageRequest', examples: [{ pinned: true, duration_seconds: 86400 }] });

const ForwardBody = z
  .object({
    to: z
      .string()
      .min(1)
      .max(64)
      .meta({ description: 'Another chat of the same channel: a number (with country code) or a group id <digits>@g.us' }),
  })
  .strict()
  .meta({ id: 'ForwardMessageRequest', examples: [{ to: '+4915112345678' }] });

export async function registerChatRoutes(app: App, deps: ChatDeps & { messages: MessageDeps }) {
  const tags = ['chats'];

  app.get(
    '/v1/channels/:channelID/chats',
    {
      config: { auth: { permission: 'messages:read' } },
      schema: {
        tags,
        summary: "The phone's chats",
        description: `The channel's chats, most recent activity first, each with its last message, unread count and state on the phone (archived, pinned, muted). Filters combine: \`archived=false\` is the phone's main list, \`pinned=true\` the chats pinned to its top. A chat deleted on the phone is left out until a newer message. ${WHERE.split(';')[0]}).`,
        params: ChannelParams,
        querystring: PageQuerySchema.extend({
          archived: z.enum(['true', 'false']).optional().meta({ description: '`true`: only archived chats; `false`: only the others' }),
          pinned: z.enum(['true', 'false']).optional().meta({ description: '`true`: only pinned chats; `false`: only the others' }),
        }),
        response: { 200: listOf(ChatSchema), ...errorResponses([400, 401, 403, 404, 422]) },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await inputFrom(
        'query',
        listChats(deps, actorOf(request), {
          channelId: request.params.channelID,
          archived: q.archived === undefined ? undefined : q.archived === 'true',
          pinned: q.pinned === undefined ? undefined : q.pinned === 'true',
          limit: q.limit,
          cursor: q.cursor,
        }),
      );
      return { data: page.items.map(presentChat), meta: { next_cursor: page.nextCursor } };
    },
  );

  app.get(
    '/v1/channels/:channelID/chats/:chatID',
    {
      config: { auth: { permission: 'messages:read' } },
      schema: {
        tags,
        summary: 'A chat',
        description: `404 names a chat the channel does not have. ${WHERE.split(';')[0]}).`,
        params: ChatParams,
        response: { 200: dataOf(ChatSchema), ...errorResponses([400, 401, 403, 404, 422]) },
      },
    },
    async (request) => {
      const { channelID: channelId, chatID: chatId } = request.params;
      return { data: presentChat(await inputFrom('params', getChat(deps, actorOf(request), { channelId, chatId }))) };
    },
  );

  app.patch(
    '/v1/channels/:channelID/chats/:chatID',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags,
        summary: 'Archive, pin, mute or mark a chat read or unread',
        description: `Each field given is changed on the phone (and every device linked to it), then on the chat; records \`conversation.updated\` when it changed. Answers the chat as it now is. 404 names a chat the channel does not have; 400 a number not on the chat network. ${WHERE}`,
        params: ChatParams,
        body: UpdateChatBody,
        response: { 200: dataOf(ChatSchema), ...chatErrors },
      },
    },
    async (request) => {
      const { channelID: channelId, chatID: chatId } = request.params;
      const b = request.body;
      const chat = await located(
        updateChat(deps, actorOf(request), {
          channelId,
          chatId,
          change: {
            archived: b.archived,
            pinned: b.pinned,
            mutedUntil: b.muted_until === undefined ? undefined : b.muted_until === null ? null : new Date(b.muted_until),
            unread: b.unread,
          },
        }),
      );
      return { data: presentChat(chat) };
    },
  );

  app.delete(
    '/v1/channels/:channelID/chats/:chatID',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags,
        summary: 'Delete a chat',
        description: `Deletes the chat and its messages on the phone. Parley keeps the conversation and its history (the inbox still has it); the chat leaves the chat list until a newer message. ${WHERE}`,
        params: ChatParams,
        response: { 204: z.null().describe('Deleted'), ...chatErrors },
      },
    },
    async (request, reply) => {
      const { channelID: channelId, chatID: chatId } = request.params;
      await inputFrom('params', deleteChat(deps, actorOf(request), { channelId, chatId }));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/messages/:messageID/star',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags,
        summary: 'Star or unstar a message',
        description:
          "Stars the message on the linked phone (and its other devices), as the chat app's starred messages; the record's `starred` says so. 409 while the message has not reached the chat network (no provider id). Unofficial channels (capability `messages.star`; 422 on official channels), with the phone connected.",
        params: MessageParams,
        body: StarBody,
        response: { 200: dataOf(MessageSchema), ...chatErrors },
      },
    },
    async (request) => ({
      data: presentMessage(
        await located(starMessage(deps, actorOf(request), { messageId: request.params.messageID, starred: request.body.starred })),
      ),
    }),
  );

  app.post(
    '/v1/messages/:messageID/forward',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags,
        summary: 'Forward a message to another chat',
        description:
          "Sends the message's content again to another chat of its channel, shown as forwarded: a new outbound message (201), accepted and sent like any other. Text, media with an address the network can fetch (a URL, or the provider's media id) and locations with a name and address can be forwarded; a view-once or deleted message and other kinds are 409, saying why. A number not on the chat network is 400 naming `to`. Unofficial channels (capability `messages.forward`; 422 on official channels).",
        params: MessageParams,
        body: ForwardBody,
        response: { 201: dataOf(MessageSchema), ...chatErrors },
      },
    },
    async (request, reply) => {
      const outcome = await located(forwardMessage(deps, actorOf(request), { messageId: request.params.messageID, to: request.body.to }));
      if (outcome.refusal !== null) throw refusalError(outcome);
      return reply.code(201).send({ data: presentMessage(outcome.message) });
    },
  );

  app.post(
    '/v1/messages/:messageID/pin',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags,
        summary: 'Pin or unpin a message in its chat',
        description:
          "Pins the message at the top of its chat for everyone in it (a day, a week or 30 days), or unpins it; the record's `pinned_until` says until when. 409 while the message has not reached the chat network. Unofficial channels (capability `messages.pin`; 422 on official channels), with the phone connected.",
        params: MessageParams,
        body: PinBody,
        response: { 200: dataOf(MessageSchema), ...chatErrors },
      },
    },
    async (request) => {
      const b = request.body;
      const message = await located(
        pinMessage(deps, actorOf(request), { messageId: request.params.messageID, pinned: b.pinned, seconds: b.duration_seconds }),
      );
      return { data: presentMessage(message) };
    },
  );

  app.post(
    '/v1/channels/:channelID/chats/:chatID/history',
    {
      config: { auth: { permission: 'messages:read' } },
      schema: {
        tags,
        summary: "Fetch a chat's earlier messages from the phone",
        description: `Asks the phone for up to \`count\` messages sent before the oldest one Parley holds of the chat (the history the phone offers). They arrive later, when the phone answers, as the chat's messages: inbound messages and echoes, each stored once, announced as \`message.new\`. 409 when Parley holds no message of the chat yet. Unofficial channels (capability \`chats.history\`; 422 on official channels), with the phone connected.`,
        params: ChatParams,
        body: HistoryBody,
        response: { 202: dataOf(ChatHistoryRequestSchema), ...chatErrors },
      },
    },
    async (request, reply) => {
      const { channelID: channelId, chatID: chatId } = request.params;
      const asked = await located(fetchChatHistory(deps, actorOf(request), { channelId, chatId, count: request.body.count }));
      return reply.code(202).send({ data: presentHistoryRequest(asked) });
    },
  );
}
