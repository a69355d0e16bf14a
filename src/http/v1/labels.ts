/**
 * Business labels of an unofficial channel's number, on its chats, and status posts (capabilities
 * `labels.manage`, `status.post`): thin routes over domain/channels/labels.ts. docs/channels.md,
 * "Labels" and "Status".
 */
import { z } from 'zod';
import {
  assignLabel,
  createLabel,
  deleteLabel,
  getLabel,
  LABEL_COLORS,
  LABEL_NAME_MAX,
  listLabels,
  postStatus,
  STATUS_FONTS,
  STATUS_RECIPIENTS_MAX,
  STATUS_TEXT_MAX,
  updateLabel,
  type LabelDeps,
} from '../../domain/channels/labels.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { presentLabel, presentStatusPost } from './labels.presenters.ts';

const Chat = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .meta({ description: "A contact's phone (with its country code) or a group id `<digits>@g.us`", example: '+49 151 12345678' });

export const LabelSchema = z
  .object({
    id: z.string().meta({ description: "The engine's id of the label (the chat app's: a small number)" }),
    channel_id: z.uuid(),
    name: z.string(),
    color: z
      .number()
      .int()
      .meta({ description: `The chat app's label color: 0 to ${LABEL_COLORS - 1}` }),
    chats: z.array(z.string()).meta({ description: 'The chats it is on: phones (E.164) and group ids, first labelled first' }),
    updated_at: z.string(),
  })
  .meta({ id: 'ChatLabel' });

const ChannelParams = z.object({ channelID: PathId });
const LabelParams = z.object({
  channelID: PathId,
  chatLabelID: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/)
    .meta({ description: "The label's id", example: '3' }),
});
const ChatParams = LabelParams.extend({ chat: Chat });

const ListQuery = z.object({ chat: Chat.optional().meta({ description: 'Only the labels on this chat' }) });

const Color = z
  .number()
  .int()
  .min(0)
  .max(LABEL_COLORS - 1)
  .meta({ description: `The chat app's label color, 0 to ${LABEL_COLORS - 1}` });

const CreateLabelBody = z
  .object({ name: z.string().trim().min(1).max(LABEL_NAME_MAX), color: Color.optional() })
  .strict()
  .meta({ id: 'CreateChatLabelRequest', examples: [{ name: 'Paid', color: 5 }] });

const UpdateLabelBody = z
  .object({ name: z.string().trim().min(1).max(LABEL_NAME_MAX).optional(), color: Color.optional() })
  .strict()
  .meta({ id: 'UpdateChatLabelRequest', examples: [{ name: 'Paid in full' }, { color: 2 }] });

const AssignBody = z
  .object({
    chat: Chat,
    message_id: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .meta({ description: "Label one message of the chat instead (the chat network's id of it, a message's provider_message_id)" }),
  })
  .strict()
  .meta({ id: 'AssignChatLabelRequest', examples: [{ chat: '+4915112345678' }, { chat: '120363025246125888@g.us' }] });

const UnassignQuery = z.object({
  message_id: z.string().min(1).max(128).optional().meta({ description: 'Take the label off this message of the chat instead' }),
});

const Recipients = z.array(z.string().min(1).max(40)).min(1).max(STATUS_RECIPIENTS_MAX).meta({
  description: 'Who sees the post: phone numbers with their country code (the chat app shows a status only to those it is sent to)',
});

const StatusBody = z
  .discriminatedUnion('type', [
    z
      .object({
        type: z.literal('text'),
        text: z.string().trim().min(1).max(STATUS_TEXT_MAX),
        background_color: z
          .string()
          .regex(/^#[0-9a-fA-F]{6}$/)
          .optional()
          .meta({ description: 'The background, #RRGGBB (default #128C7E)' }),
        font: z
          .number()
          .int()
          .min(0)
          .max(STATUS_FONTS - 1)
          .optional()
          .meta({ description: `The chat app's font, 0 to ${STATUS_FONTS - 1} (default 0)` }),
        recipients: Recipients,
      })
      .strict(),
    z
      .object({
        type: z.enum(['image', 'video']),
        url: z.url().max(2048).meta({ description: 'The image (JPEG, PNG) or video (MP4), at a public https address' }),
        caption: z.string().max(STATUS_TEXT_MAX).optional(),
        recipients: Recipients,
      })
      .strict(),
  ])
  .meta({
    id: 'PostStatusRequest',
    examples: [
      { type: 'text', text: 'Open on Sunday 10-14', background_color: '#128C7E', font: 1, recipients: ['+4915112345678'] },
      { type: 'image', url: 'https://cdn.example.com/offers/june.jpg', caption: 'June offers', recipients: ['+4915112345678'] },
    ],
  });

export const StatusPostSchema = z
  .object({
    id: z.string().meta({ description: "The post's id on the chat network" }),
    channel_id: z.uuid(),
    type: z.enum(['text', 'image', 'video']),
    recipients: z.array(z.string()).meta({ description: 'Who it was sent to (E.164), each once' }),
  })
  .meta({ id: 'StatusPost' });

export type CreateChatLabelRequest = z.input<typeof CreateLabelBody>;
export type PostStatusRequest = z.input<typeof StatusBody>;

const labelErrors = errorResponses([400, 401, 403, 404, 409, 422, 503]);
const WHERE =
  'Unofficial channels (capability `labels.manage`; 422 on official channels; changes need the phone connected, 409 otherwise).';

export async function registerLabelRoutes(app: App, deps: LabelDeps) {
  const tags = ['labels'];

  app.get(
    '/v1/channels/:channelID/labels',
    {
      config: { auth: { permission: 'channels:read' } },
      schema: {
        tags,
        summary: "The number's labels, with the chats each is on",
        description: `As Parley keeps them: what the engine reported (the phone's changes too) and what was done here. \`chat\` keeps those on one chat. ${WHERE}`,
        params: ChannelParams,
        querystring: ListQuery,
        response: { 200: dataOf(z.array(LabelSchema)), ...labelErrors },
      },
    },
    async (request) => {
      const channelId = request.params.channelID;
      const labels = await inputFrom('query', listLabels(deps, actorOf(request), { channelId, chat: request.query.chat }));
      return { data: labels.map((l) => presentLabel(channelId, l)) };
    },
  );

  app.post(
    '/v1/channels/:channelID/labels',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags,
        summary: 'Create a label',
        description: `On the number (every device of it sees it); announced as label.updated. 400 names a name another label has; 409 past the chat app's ${20} labels. ${WHERE}`,
        params: ChannelParams,
        body: CreateLabelBody,
        response: { 201: dataOf(LabelSchema), ...labelErrors },
      },
    },
    async (request, reply) => {
      const channelId = request.params.channelID;
      const label = await inputFrom('body', createLabel(deps, actorOf(request), { channelId, ...request.body }));
      return reply.code(201).send({ data: presentLabel(channelId, label) });
    },
  );

  app.get(
    '/v1/channels/:channelID/labels/:chatLabelID',
    {
      config: { auth: { permission: 'channels:read' } },
      schema: {
        tags,
        summary: 'A label, with the chats it is on',
        description: WHERE,
        params: LabelParams,
        response: { 200: dataOf(LabelSchema), ...labelErrors },
      },
    },
    async (request) => {
      const { channelID: channelId, chatLabelID: labelId } = request.params;
      return { data: presentLabel(channelId, await getLabel(deps, actorOf(request), { channelId, labelId })) };
    },
  );

  app.patch(
    '/v1/channels/:channelID/labels/:chatLabelID',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags,
        summary: 'Rename or recolor a label',
        description: `Announced as label.updated. ${WHERE}`,
        params: LabelParams,
        body: UpdateLabelBody,
        response: { 200: dataOf(LabelSchema), ...labelErrors },
      },
    },
    async (request) => {
      const { channelID: channelId, chatLabelID: labelId } = request.params;
      const label = await inputFrom('body', updateLabel(deps, actorOf(request), { channelId, labelId, ...request.body }));
      return { data: presentLabel(channelId, label) };
    },
  );

  app.delete(
    '/v1/channels/:channelID/labels/:chatLabelID',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags,
        summary: 'Delete a label',
        description: `It comes off every chat; announced as label.updated with deleted true. ${WHERE}`,
        params: LabelParams,
        response: { 204: z.null().meta({ description: 'Deleted' }), ...labelErrors },
      },
    },
    async (request, reply) => {
      const { channelID: channelId, chatLabelID: labelId } = request.params;
      await deleteLabel(deps, actorOf(request), { channelId, labelId });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/channels/:channelID/labels/:chatLabelID/chats',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags,
        summary: 'Put a label on a chat',
        description: `A contact's chat (by phone) or a group's, or one message of it (\`message_id\`); announced as label.assigned. Answers the label as it now is. ${WHERE}`,
        params: LabelParams,
        body: AssignBody,
        response: { 200: dataOf(LabelSchema), ...labelErrors },
      },
    },
    async (request) => {
      const { channelID: channelId, chatLabelID: labelId } = request.params;
      const { chat, message_id: messageId } = request.body;
      const label = await inputFrom('body', assignLabel(deps, actorOf(request), { channelId, labelId, chat, messageId, action: 'add' }));
      return { data: presentLabel(channelId, label) };
    },
  );

  app.delete(
    '/v1/channels/:channelID/labels/:chatLabelID/chats/:chat',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags,
        summary: 'Take a label off a chat',
        description: `Or off one message of it (\`message_id\`); announced as label.unassigned. Answers the label as it now is. ${WHERE}`,
        params: ChatParams,
        querystring: UnassignQuery,
        response: { 200: dataOf(LabelSchema), ...labelErrors },
      },
    },
    async (request) => {
      const { channelID: channelId, chatLabelID: labelId, chat } = request.params;
      const label = await inputFrom(
        'params',
        assignLabel(deps, actorOf(request), { channelId, labelId, chat, messageId: request.query.message_id, action: 'remove' }),
      );
      return { data: presentLabel(channelId, label) };
    },
  );

  app.post(
    '/v1/channels/:channelID/status',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags: ['status'],
        summary: 'Post a status (a story)',
        description:
          "Text on a colored background, or an image or video from a URL (fetched by Parley for the embedded engine, under the target policy), shown for a day to the recipients. Contacts' own posts arrive as status.received events where the channel keeps them (its `status_messages` setting). Unofficial channels (capability `status.post`; 422 on official channels, 409 while the channel is not connected).",
        params: ChannelParams,
        body: StatusBody,
        response: { 201: dataOf(StatusPostSchema), ...labelErrors },
      },
    },
    async (request, reply) => {
      const channelId = request.params.channelID;
      const b = request.body;
      const input =
        b.type === 'text'
          ? { type: b.type, text: b.text, backgroundColor: b.background_color, font: b.font, recipients: b.recipients }
          : { type: b.type, url: b.url, caption: b.caption, recipients: b.recipients };
      const posted = await inputFrom('body', postStatus(deps, actorOf(request), { channelId, ...input }));
      return reply.code(201).send({ data: presentStatusPost(channelId, b.type, posted) });
    },
  );
}
