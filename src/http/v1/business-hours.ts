/**
 * Business hours, the away message and the greeting (domain/business-hours): the organization's at
 * /v1/settings/business-hours, a channel's own fields at /v1/channels/{channelID}/business-hours, and
 * each's open/closed status now.
 */
import { z } from 'zod';
import {
  BUSINESS_HOURS_FIELDS,
  channelBusinessHoursStatus,
  getChannelBusinessHours,
  getOrganizationBusinessHours,
  HOLIDAYS_MAX,
  INTERVALS_PER_DAY_MAX,
  organizationBusinessHoursStatus,
  updateChannelBusinessHours,
  updateOrganizationBusinessHours,
  type BusinessHoursSettings,
  type BusinessHoursStatus,
  type ChannelBusinessHours,
} from '../../domain/business-hours/settings.ts';
import { WEEKDAYS } from '../../domain/business-hours/hours.ts';
import type { Permission } from '../../domain/permissions.ts';
import type { Executor } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { dataOf, PathId } from '../schemas.ts';
import type { App } from '../types.ts';

const TAG = 'channels';

const WEEK_EXAMPLE = {
  monday: ['09:00-12:30', '13:30-17:30'],
  tuesday: ['09:00-17:30'],
  wednesday: ['09:00-17:30'],
  thursday: ['09:00-17:30'],
  friday: ['09:00-16:00'],
  saturday: [],
  sunday: [],
};
const EXAMPLE = {
  time_zone: 'Europe/Paris',
  weekly_hours: WEEK_EXAMPLE,
  holidays: [
    { from: '2026-12-24', to: '2026-12-26', name: 'Christmas' },
    { from: '2027-01-01', to: '2027-01-01', name: null },
  ],
  away_message: "Thanks for your message! We're closed now and will answer from 9:00 (Paris time).",
  away_template: null,
  away_every_hours: 24,
  greeting_message: 'Welcome to Acme! A member of the team will answer shortly.',
};

const TemplateRef = z
  .object({
    name: z.string().regex(/^[a-z0-9_]{1,512}$/, { error: 'a template name: lower-case letters, digits and underscores' }),
    language: z
      .object({ code: z.string().regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, { error: "the approved template's locale code, e.g. en_US" }) })
      .strict(),
  })
  .strict()
  .meta({ description: 'An approved template without parameters, by name and language.' });

const DOCS = {
  time_zone: 'An IANA time zone (`Europe/Paris`, `America/New_York`, `UTC`) the hours and holidays are read in, DST included.',
  weekly_hours:
    'Per weekday, the open intervals in local time, `"HH:MM-HH:MM"` (an en dash is accepted too; `24:00` ends a day), several a day, none: closed that day; they may not overlap. An interval past midnight is two (one each day). Null: no business hours, always open (no away message).',
  holidays:
    'Days closed all day, in local time: `{date}` or `{from, to}` (both included), with an optional `name`. Answered as `{from, to, name}`.',
  away_message: 'Sent to a customer who writes outside business hours (at most once a conversation per `away_every_hours`). Null: none.',
  away_template:
    'Sent instead of `away_message` when the customer-service window is closed (official channels), or when there is no `away_message`. Null: nothing then.',
  away_every_hours: 'At most one away message a conversation in this many hours (default 24).',
  greeting_message: "Sent to a new contact's first message (whatever the hours). Null: none.",
};

export const BusinessHoursSchema = z
  .object({
    time_zone: z.string().meta({ description: DOCS.time_zone }),
    weekly_hours: z.record(z.string(), z.array(z.string())).nullable().meta({ description: DOCS.weekly_hours }),
    holidays: z.array(z.object({ from: z.string(), to: z.string(), name: z.string().nullable() })).meta({ description: DOCS.holidays }),
    away_message: z.string().nullable().meta({ description: DOCS.away_message }),
    away_template: TemplateRef.nullable().meta({ description: DOCS.away_template }),
    away_every_hours: z.number().int().meta({ description: DOCS.away_every_hours }),
    greeting_message: z.string().nullable().meta({ description: DOCS.greeting_message }),
  })
  .meta({ id: 'BusinessHours', description: 'When the team answers, and the away message and greeting.', examples: [EXAMPLE] });

const Interval = z.string().max(32);
const WeeklyHours = z
  .object(
    Object.fromEntries(WEEKDAYS.map((d) => [d, z.array(Interval).max(INTERVALS_PER_DAY_MAX).optional()])) as Record<
      (typeof WEEKDAYS)[number],
      z.ZodOptional<z.ZodArray<typeof Interval>>
    >,
  )
  .strict()
  .meta({ description: `${DOCS.weekly_hours} A weekday left out is closed.` });
const DateText = z.string().max(10);
const HolidayInput = z
  .object({
    date: DateText.optional(),
    from: DateText.optional(),
    to: DateText.optional(),
    name: z.string().max(100).nullable().optional(),
  })
  .strict();

const fields = {
  time_zone: z.string().min(1).max(64).meta({ description: DOCS.time_zone }),
  weekly_hours: WeeklyHours.nullable(),
  holidays: z.array(HolidayInput).max(HOLIDAYS_MAX).meta({ description: DOCS.holidays }),
  away_message: z.string().max(4096).nullable().meta({ description: DOCS.away_message }),
  away_template: TemplateRef.nullable().meta({ description: DOCS.away_template }),
  away_every_hours: z.number().int().min(1).max(720).meta({ description: DOCS.away_every_hours }),
  greeting_message: z.string().max(4096).nullable().meta({ description: DOCS.greeting_message }),
};
const optionalFields = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.optional()])) as {
  [K in keyof typeof fields]: z.ZodOptional<(typeof fields)[K]>;
};

const UpdateBusinessHoursBody = z
  .object(optionalFields)
  .strict()
  .meta({
    id: 'UpdateBusinessHoursRequest',
    description: 'Fields to change; those left out stay. 400 naming the field (`/time_zone`, `/weekly_hours/monday/1`, `/holidays/0/to`).',
    examples: [
      {
        time_zone: 'America/New_York',
        weekly_hours: { monday: ['09:00–17:30'], tuesday: ['09:00-17:30'], friday: ['09:00-12:00', '14:00-18:00'] },
        holidays: [
          { date: '2026-12-25', name: 'Christmas' },
          { from: '2026-12-31', to: '2027-01-01' },
        ],
        away_message: 'We are closed; we will answer from 9:00.',
      },
    ],
  });

const UpdateChannelBusinessHoursBody = z
  .object({
    ...optionalFields,
    inherit: z
      .array(z.enum(BUSINESS_HOURS_FIELDS))
      .max(BUSINESS_HOURS_FIELDS.length)
      .optional()
      .meta({ description: "Fields that go back to the organization's." }),
  })
  .strict()
  .meta({
    id: 'UpdateChannelBusinessHoursRequest',
    description: "The channel's own fields to set (each beats the organization's); `inherit` names those to drop. 400 naming the field.",
    examples: [
      { time_zone: 'America/Sao_Paulo', away_message: 'Estamos fechados; respondemos a partir das 9h.' },
      { inherit: ['away_message'] },
    ],
  });

const ChannelBusinessHoursSchema = z
  .object({
    overridden: z.array(z.string()).meta({ description: "The fields the channel sets itself; the others are the organization's." }),
    effective: BusinessHoursSchema,
  })
  .meta({
    id: 'ChannelBusinessHours',
    examples: [{ overridden: ['time_zone', 'away_message'], effective: { ...EXAMPLE, time_zone: 'America/Sao_Paulo' } }],
  });

const StatusSchema = z
  .object({
    open: z.boolean(),
    reason: z.enum(['always_open', 'hours', 'holiday']).meta({
      description: '`always_open`: no weekly hours; `holiday`: closed for the holiday named; `hours`: inside or outside the weekly hours.',
    }),
    holiday: z.string().nullable().meta({ description: "The holiday's name, when closed for one that has a name." }),
    next_change_at: z.iso.datetime().nullable().meta({
      description: 'When it next opens (closed) or closes (open), within about a year; null: never.',
    }),
    time_zone: z.string(),
    at: z.iso.datetime().meta({ description: 'The time the status is for (now).' }),
  })
  .meta({
    id: 'BusinessHoursStatus',
    examples: [
      {
        open: false,
        reason: 'hours',
        holiday: null,
        next_change_at: '2026-12-01T08:00:00.000Z',
        time_zone: 'Europe/Paris',
        at: '2026-11-30T19:12:00.000Z',
      },
    ],
  });

export type BusinessHoursServices = { db: Executor; clock: Clock };

const read: { auth: { permission: Permission } } = { auth: { permission: 'channels:read' } };
const write: { auth: { permission: Permission } } = { auth: { permission: 'channels:write' } };
const ChannelParams = z.object({ channelID: PathId });

const present = (s: BusinessHoursSettings) => ({ ...s });
const presentChannel = (c: ChannelBusinessHours) => ({ overridden: c.overridden, effective: present(c.effective) });
const presentStatus = (s: BusinessHoursStatus) => ({
  open: s.open,
  reason: s.reason,
  holiday: s.holiday,
  next_change_at: s.next_change_at?.toISOString() ?? null,
  time_zone: s.time_zone,
  at: s.at.toISOString(),
});

export async function registerBusinessHoursRoutes(app: App, deps: BusinessHoursServices) {
  app.get(
    '/v1/settings/business-hours',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: "The organization's business hours",
        description: 'The hours, holidays, away message and greeting every channel uses unless it sets its own. Needs channels:read.',
        response: { 200: dataOf(BusinessHoursSchema), ...errorResponses([401, 403]) },
      },
    },
    async (request) => ({ data: present(await getOrganizationBusinessHours(deps, actorOf(request))) }),
  );

  app.patch(
    '/v1/settings/business-hours',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: "Change the organization's business hours",
        description: 'Changes the fields given; applies to messages received from then on. 400 naming the field. Needs channels:write.',
        body: UpdateBusinessHoursBody,
        response: { 200: dataOf(BusinessHoursSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => ({ data: present(await updateOrganizationBusinessHours(deps, actorOf(request), request.body)) }),
  );

  app.get(
    '/v1/settings/business-hours/status',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: "Whether the organization's business hours are open now",
        description: 'Open or closed now, why, and when that next changes. Needs channels:read.',
        response: { 200: dataOf(StatusSchema), ...errorResponses([401, 403]) },
      },
    },
    async (request) => ({ data: presentStatus(await organizationBusinessHoursStatus(deps, actorOf(request))) }),
  );

  app.get(
    '/v1/channels/:channelID/business-hours',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: "A channel's business hours",
        description:
          "What applies to the channel (its own fields over the organization's) and which fields are its own. 404 for a channel of another organization. Needs channels:read.",
        params: ChannelParams,
        response: { 200: dataOf(ChannelBusinessHoursSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentChannel(await getChannelBusinessHours(deps, actorOf(request), request.params.channelID)) }),
  );

  app.patch(
    '/v1/channels/:channelID/business-hours',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: "Change a channel's business hours",
        description:
          "Sets the channel's own fields given (each beats the organization's) and drops those in `inherit`. 400 naming the field. Needs channels:write.",
        params: ChannelParams,
        body: UpdateChannelBusinessHoursBody,
        response: { 200: dataOf(ChannelBusinessHoursSchema), ...errorResponses([400, 401, 403, 404]) },
      },
    },
    async (request) => ({
      data: presentChannel(await updateChannelBusinessHours(deps, actorOf(request), request.params.channelID, request.body)),
    }),
  );

  app.get(
    '/v1/channels/:channelID/business-hours/status',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: "Whether a channel's business hours are open now",
        description: 'Open or closed now by the hours that apply to the channel, why, and when that next changes. Needs channels:read.',
        params: ChannelParams,
        response: { 200: dataOf(StatusSchema), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => ({ data: presentStatus(await channelBusinessHoursStatus(deps, actorOf(request), request.params.channelID)) }),
  );
}
