/**
 * Contacts and profiles through an unofficial channel's phone (docs/channels.md, "Profiles, blocking
 * and privacy"): a number's profile, the channel's own profile and picture, the block list, privacy
 * settings and the privacy id ↔ phone lookup. Provider data, not the CRM's. Official channels answer
 * 422 `unsupported` naming the operation.
 */
import { z } from 'zod';
import {
  blocklist,
  lookupLid,
  numberProfile,
  ownProfile,
  privacySettings,
  removeProfilePicture,
  setBlocked,
  setProfilePicture,
  updateOwnProfile,
  updatePrivacySettings,
  type ProfileDeps,
} from '../../domain/channels/profiles.ts';
import { PRIVACY_SETTINGS, PRIVACY_CATEGORIES, type PrivacySetting, type PrivacySettings } from '../../providers/profiles.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, listOf, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { presentBlocked, presentChannelProfile, presentLid, presentNumberProfile, presentPrivacy } from './channel-profiles.presenters.ts';

const TAG = 'profiles';
const PHONE = '+4915112345678';
const LID = '177766655544433';

const E164 = z.string().nullable().meta({ description: 'The number, E.164' });
const LidField = z
  .string()
  .nullable()
  .meta({ description: "The privacy id (the chat network's LID: digits, without @lid); null when unknown", example: LID });

const BusinessProfileSchema = z
  .object({
    description: z.string().nullable(),
    category: z.string().nullable(),
    email: z.string().nullable(),
    website: z.array(z.string()),
    address: z.string().nullable(),
    hours: z
      .object({
        timezone: z.string().nullable(),
        days: z.array(
          z.object({
            day: z.string().meta({ description: 'mon, tue, …, as the network names them' }),
            mode: z.string().meta({ description: 'open_24h, appointment_only or specific_hours' }),
            open_minute: z.number().int().nullable().meta({ description: 'Minutes from midnight (specific_hours)' }),
            close_minute: z.number().int().nullable(),
          }),
        ),
      })
      .nullable()
      .meta({ description: 'Opening hours, where the business set them' }),
  })
  .meta({ id: 'BusinessProfile', description: 'What a business account shows of itself' });

export const NumberProfileSchema = z
  .object({
    phone: z.string().meta({ description: 'The number, E.164' }),
    lid: LidField,
    name: z.string().nullable().meta({
      description:
        'The name the number set for itself (its push name), where the provider has seen it (the embedded engine: on a message from it since the session connected)',
    }),
    about: z
      .string()
      .nullable()
      .meta({ description: 'Its About text; null when unset or hidden from this account by its privacy settings' }),
    about_set_at: z.string().nullable(),
    picture_url: z.string().nullable().meta({
      description:
        "Its profile picture on the chat network's servers (the URL lapses after a while: fetch it soon); null when it has none or hides it",
    }),
    business: BusinessProfileSchema.nullable().meta({ description: 'Present for business accounts' }),
  })
  .meta({
    id: 'NumberProfile',
    description: 'What the chat network shows of a number, to this channel’s account',
    examples: [
      {
        phone: PHONE,
        lid: LID,
        name: 'Ana Lima',
        about: 'Available',
        about_set_at: '2025-05-20T08:00:00.000Z',
        picture_url: 'https://pps.whatsapp.net/v/t61.24694-24/12345_n.jpg?oh=01_Q5AaI&oe=6851A2B3',
        business: {
          description: 'Bakery in Kreuzberg',
          category: 'Bakery',
          email: 'hello@example.com',
          website: ['https://example.com'],
          address: 'Oranienstraße 1, Berlin',
          hours: { timezone: 'Europe/Berlin', days: [{ day: 'mon', mode: 'specific_hours', open_minute: 480, close_minute: 1080 }] },
        },
      },
    ],
  });

export const ChannelProfileSchema = z
  .object({
    phone: E164,
    lid: LidField,
    name: z.string().nullable().meta({ description: 'The name the account shows (its push name)' }),
    about: z.string().nullable(),
    picture_url: z.string().nullable(),
  })
  .meta({
    id: 'ChannelProfile',
    description: 'The channel’s own account as others see it',
    examples: [
      {
        phone: '+4930123456',
        lid: '266655544433322',
        name: 'Kiez Bakery',
        about: 'Orders until 6 pm',
        picture_url: 'https://pps.whatsapp.net/v/t61.24694-24/67890_n.jpg?oh=01_Q5AaJ&oe=6851A2B4',
      },
    ],
  });

const UpdateProfileBody = z
  .object({
    name: z.string().trim().min(1).max(25).optional().meta({ description: 'The name the account shows (1 to 25 characters)' }),
    about: z.string().trim().min(1).max(139).optional().meta({ description: 'The About text (1 to 139 characters)' }),
  })
  .strict()
  .meta({ id: 'ChannelProfileUpdateRequest', examples: [{ name: 'Kiez Bakery', about: 'Orders until 6 pm' }] });

const PictureBody = z
  .object({
    url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .meta({ description: 'A JPEG or PNG image, at most 5 MB, fetched by Parley (public addresses only); it is cropped square' }),
  })
  .strict()
  .meta({ id: 'ChannelProfilePictureRequest', examples: [{ url: 'https://cdn.example.com/logo.png' }] });

export const BlockedNumberSchema = z.object({ phone: E164, lid: LidField }).meta({
  id: 'BlockedNumber',
  description: 'An account the channel blocks: its number and privacy id, where known',
  examples: [{ phone: PHONE, lid: LID }],
});

const BlockBody = z
  .object({ phone: z.string().min(1).max(40).meta({ example: PHONE }) })
  .strict()
  .meta({ id: 'BlockNumberRequest' });

const privacyField = (name: PrivacySetting) =>
  z.enum(PRIVACY_SETTINGS[name]).meta({ description: `The network's \`${PRIVACY_CATEGORIES[name]}\` setting` });

const PRIVACY_DESCRIPTIONS: Record<PrivacySetting, string> = {
  last_seen: 'Who sees when it was last online',
  online: 'Who sees that it is online now',
  profile_picture: 'Who sees its profile picture',
  about: 'Who sees its About text',
  read_receipts: 'Whether read receipts are sent and shown',
  groups_add: 'Who may add it to groups',
  calls: 'Who may call it',
  messages: 'Who may message it',
};

const privacyShape = <T extends z.ZodType>(field: (name: PrivacySetting) => T) =>
  Object.fromEntries(
    (Object.keys(PRIVACY_SETTINGS) as PrivacySetting[]).map((name) => [
      name,
      field(name).meta({ description: PRIVACY_DESCRIPTIONS[name] }),
    ]),
  ) as Record<PrivacySetting, T>;

const PRIVACY_EXAMPLE = {
  last_seen: 'contacts',
  online: 'match_last_seen',
  profile_picture: 'contacts',
  about: 'contacts',
  read_receipts: 'all',
  groups_add: 'contacts',
  calls: 'all',
  messages: 'all',
};

export const PrivacySettingsSchema = z.object(privacyShape((name) => privacyField(name).nullable())).meta({
  id: 'PrivacySettings',
  description: 'The account’s privacy settings; null where the network said nothing of one',
  examples: [PRIVACY_EXAMPLE],
});

const PrivacyUpdateBody = z
  .object(privacyShape((name) => privacyField(name).optional()))
  .strict()
  .meta({ id: 'PrivacySettingsUpdateRequest', examples: [{ last_seen: 'contacts', read_receipts: 'none' }] });

export const LidMappingSchema = z
  .object({ phone: E164, lid: LidField })
  .meta({ id: 'LidMapping', description: 'A number and its privacy id', examples: [{ phone: PHONE, lid: LID }] });

const LidLookupBody = z
  .object({
    phone: z.string().min(1).max(40).optional().meta({ description: 'A number: its privacy id is answered' }),
    lid: z.string().min(1).max(40).optional().meta({ description: 'A privacy id (digits, optionally with @lid): its number is answered' }),
  })
  .strict()
  .meta({ id: 'LidLookupRequest', description: 'Exactly one of phone and lid', examples: [{ lid: LID }, { phone: PHONE }] });

const ChannelParams = z.object({ channelID: PathId });
const PhoneParams = z.object({
  channelID: PathId,
  phone: z.string().min(1).max(40).meta({ description: 'The number (E.164; digits accepted)' }),
});
const errors = errorResponses([400, 401, 403, 404, 409, 422, 503]);

const UNOFFICIAL =
  'Unofficial channels (platforms with the operation); official channels answer 422 `unsupported` naming it. 409 when the channel is not connected (naming its status); 503 while its session cannot be reached for now (reconnecting).';

export async function registerChannelProfileRoutes(app: App, deps: ProfileDeps) {
  app.get(
    '/v1/channels/:channelID/profiles/:phone',
    {
      config: { auth: { permission: 'contacts:read' } },
      schema: {
        tags: [TAG],
        summary: "A number's profile",
        description: `Its name, About text, profile picture and, for a business account, its business profile, as the chat network shows them to this channel's account (\`profiles.read\`). A field the number hides from this account is null. 404 naming \`phone\` when the number has no account on the network. ${UNOFFICIAL}`,
        params: PhoneParams,
        response: { 200: dataOf(NumberProfileSchema), ...errors },
      },
    },
    async (request) => ({
      data: presentNumberProfile(
        await inputFrom(
          'params',
          numberProfile(deps, actorOf(request), { channelId: request.params.channelID, phone: request.params.phone }),
        ),
      ),
    }),
  );

  app.get(
    '/v1/channels/:channelID/profile',
    {
      config: { auth: { permission: 'channels:read' } },
      schema: {
        tags: [TAG],
        summary: "The channel's own profile",
        description: `Its name, About text and picture, as others see them (\`profile.update\`). ${UNOFFICIAL}`,
        params: ChannelParams,
        response: { 200: dataOf(ChannelProfileSchema), ...errors },
      },
    },
    async (request) => ({ data: presentChannelProfile(await ownProfile(deps, actorOf(request), { channelId: request.params.channelID })) }),
  );

  app.patch(
    '/v1/channels/:channelID/profile',
    {
      config: { auth: { permission: 'channels:write' } },
      schema: {
        tags: [TAG],
        summary: "Change the channel's name or About text",
        description: `Answers the profile as it now is. ${UNOFFICIAL}`,
        params: ChannelParams,
        body: UpdateProfileBody,
        response: { 200: dataOf(ChannelProfileSchema), ...errors },
      },
    },
    async (request) => ({
      data: presentChannelProfile(
        await inputFrom('body', updateOwnProfile(deps, actorOf(request), { channelId: request.params.channelID, ...request.body })),
      ),
    }),
  );

  app.put(
    '/v1/channels/:channelID/profile/picture',
    {
      config: { auth: { permission: 'channels:write' } },
      schema: {
        tags: [TAG],
        summary: "Set the channel's profile picture",
        description: `From an image at a URL, fetched by Parley under its target policy (public addresses only; a refused address is 400 naming \`url\`): a JPEG or PNG of at most 5 MB (422 naming \`url\` otherwise, and when it could not be fetched). ${UNOFFICIAL}`,
        params: ChannelParams,
        body: PictureBody,
        response: { 200: dataOf(ChannelProfileSchema), ...errors },
      },
    },
    async (request) => ({
      data: presentChannelProfile(
        await inputFrom('body', setProfilePicture(deps, actorOf(request), { channelId: request.params.channelID, url: request.body.url })),
      ),
    }),
  );

  app.delete(
    '/v1/channels/:channelID/profile/picture',
    {
      config: { auth: { permission: 'channels:write' } },
      schema: {
        tags: [TAG],
        summary: "Remove the channel's profile picture",
        description: UNOFFICIAL,
        params: ChannelParams,
        response: { 200: dataOf(ChannelProfileSchema), ...errors },
      },
    },
    async (request) => ({
      data: presentChannelProfile(await removeProfilePicture(deps, actorOf(request), { channelId: request.params.channelID })),
    }),
  );

  app.get(
    '/v1/channels/:channelID/blocklist',
    {
      config: { auth: { permission: 'contacts:read' } },
      schema: {
        tags: [TAG],
        summary: 'The numbers the channel blocks',
        description: `In one page (\`contacts.block\`): each by number and privacy id, where the session knows them. ${UNOFFICIAL}`,
        params: ChannelParams,
        response: { 200: listOf(BlockedNumberSchema), ...errors },
      },
    },
    async (request) => ({
      data: (await blocklist(deps, actorOf(request), { channelId: request.params.channelID })).map(presentBlocked),
      meta: { next_cursor: null },
    }),
  );

  app.post(
    '/v1/channels/:channelID/blocklist',
    {
      config: { auth: { permission: 'contacts:write' } },
      schema: {
        tags: [TAG],
        summary: 'Block a number',
        description: `The number can no longer call or message the channel's account; blocking one that is blocked changes nothing. 404 naming \`phone\` when it has no account on the network. ${UNOFFICIAL}`,
        params: ChannelParams,
        body: BlockBody,
        response: { 200: dataOf(BlockedNumberSchema), ...errors },
      },
    },
    async (request) => ({
      data: presentBlocked(
        await inputFrom(
          'body',
          setBlocked(deps, actorOf(request), {
            channelId: request.params.channelID,
            phone: request.body.phone,
            blocked: true,
            pointer: '/phone',
          }),
        ),
      ),
    }),
  );

  app.delete(
    '/v1/channels/:channelID/blocklist/:phone',
    {
      config: { auth: { permission: 'contacts:write' } },
      schema: {
        tags: [TAG],
        summary: 'Unblock a number',
        description: `Unblocking one that is not blocked changes nothing. 404 naming \`phone\` when it has no account on the network. ${UNOFFICIAL}`,
        params: PhoneParams,
        response: { 200: dataOf(BlockedNumberSchema), ...errors },
      },
    },
    async (request) => ({
      data: presentBlocked(
        await inputFrom(
          'params',
          setBlocked(deps, actorOf(request), {
            channelId: request.params.channelID,
            phone: request.params.phone,
            blocked: false,
            pointer: '/phone',
          }),
        ),
      ),
    }),
  );

  app.get(
    '/v1/channels/:channelID/privacy',
    {
      config: { auth: { permission: 'channels:read' } },
      schema: {
        tags: [TAG],
        summary: "The account's privacy settings",
        description: `As the chat network holds them now (\`privacy.settings\`). ${UNOFFICIAL}`,
        params: ChannelParams,
        response: { 200: dataOf(PrivacySettingsSchema), ...errors },
      },
    },
    async (request) => ({ data: presentPrivacy(await privacySettings(deps, actorOf(request), { channelId: request.params.channelID })) }),
  );

  app.patch(
    '/v1/channels/:channelID/privacy',
    {
      config: { auth: { permission: 'channels:write' } },
      schema: {
        tags: [TAG],
        summary: "Change the account's privacy settings",
        description: `Each setting given is changed; the answer is every setting as it now is. ${UNOFFICIAL}`,
        params: ChannelParams,
        body: PrivacyUpdateBody,
        response: { 200: dataOf(PrivacySettingsSchema), ...errors },
      },
    },
    async (request) => ({
      data: presentPrivacy(
        await inputFrom(
          'body',
          updatePrivacySettings(deps, actorOf(request), {
            channelId: request.params.channelID,
            // Each field is its own setting's enum (privacyShape builds them from PRIVACY_SETTINGS).
            changes: request.body as PrivacySettings,
          }),
        ),
      ),
    }),
  );

  app.post(
    '/v1/channels/:channelID/lids/lookup',
    {
      config: { auth: { permission: 'contacts:read' } },
      schema: {
        tags: [TAG],
        summary: 'A privacy id’s number, or a number’s privacy id',
        description: `The chat network names people by a privacy id (its LID) as well as by number (\`contacts.lid\`). Give \`lid\` for the number the session knows for it, or \`phone\` for its privacy id. 404 naming the field when none is known. ${UNOFFICIAL}`,
        params: ChannelParams,
        body: LidLookupBody,
        response: { 200: dataOf(LidMappingSchema), ...errors },
      },
    },
    async (request) => ({
      data: presentLid(
        await inputFrom('body', lookupLid(deps, actorOf(request), { channelId: request.params.channelID, ...request.body })),
      ),
    }),
  );
}
