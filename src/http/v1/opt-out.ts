/**
 * The organization's opt-out settings: the stop and start keywords an inbound message is compared with,
 * and the labels of the marketing opt-out button (domain/contacts/opt-out.ts).
 */
import { z } from 'zod';
import {
  getOptOutSettings,
  OPT_OUT_KEYWORD_MAX,
  OPT_OUT_LIST_MAX,
  updateOptOutSettings,
  type OptOutSettings,
} from '../../domain/contacts/opt-out.ts';
import type { Permission } from '../../domain/permissions.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Executor } from '../../db/client.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { dataOf } from '../schemas.ts';
import type { App } from '../types.ts';

const TAG = 'contacts';

const MATCHING =
  'An inbound message matches when its whole text, trimmed, is one of them, compared without case or accents (`stop `, `Stop` and `STOP` match STOP; `ARRET` matches ARRÊT; `please stop` matches nothing).';

const Keyword = z.string().trim().min(1).max(OPT_OUT_KEYWORD_MAX);
const KeywordList = (description: string) => z.array(Keyword).max(OPT_OUT_LIST_MAX).meta({ description });

const STOP_DOC =
  'A text message that is one of these suppresses the contact for marketing (the suppression scope `marketing`, reason `opt_out_keyword`): broadcasts skip it.';
const START_DOC = 'A text message that is one of these lifts the marketing suppression an opt-out made (not one set through the API).';
const BUTTON_DOC =
  "The labels of a marketing template's opt-out button, as the provider localizes it (`Stop promotions`): a template quick-reply whose label or payload is one of them, or a stop keyword, suppresses (reason `opt_out_button`).";

export const OptOutSettingsSchema = z
  .object({
    stop_keywords: z.array(z.string()).meta({ description: STOP_DOC }),
    start_keywords: z.array(z.string()).meta({ description: START_DOC }),
    opt_out_buttons: z.array(z.string()).meta({ description: BUTTON_DOC }),
  })
  .meta({
    id: 'OptOutSettings',
    description: MATCHING,
    examples: [
      {
        stop_keywords: ['STOP', 'STOPP', 'UNSUBSCRIBE', 'ARRET', 'ARRÊT', 'BAJA', 'CANCELAR', 'PARAR'],
        start_keywords: ['START', 'UNSTOP', 'SUBSCRIBE'],
        opt_out_buttons: ['Stop promotions', 'Parar promoções'],
      },
    ],
  });

const UpdateOptOutSettingsBody = z
  .object({
    stop_keywords: KeywordList(STOP_DOC).optional(),
    start_keywords: KeywordList(START_DOC).optional(),
    opt_out_buttons: KeywordList(BUTTON_DOC).optional(),
  })
  .strict()
  .meta({
    id: 'UpdateOptOutSettingsRequest',
    description: `Each list given replaces the one stored; lists left out stay. At most ${OPT_OUT_LIST_MAX} entries of ${OPT_OUT_KEYWORD_MAX} characters each; duplicates (as compared) are dropped; a word may not be both a stop and a start keyword.`,
    examples: [{ stop_keywords: ['STOP', 'ARRÊT', 'HALT'] }],
  });

export type OptOutServices = { db: Executor; clock: Clock };

const read: { auth: { permission: Permission } } = { auth: { permission: 'contacts:read' } };
const write: { auth: { permission: Permission } } = { auth: { permission: 'contacts:write' } };

const present = (s: OptOutSettings) => ({
  stop_keywords: s.stop_keywords,
  start_keywords: s.start_keywords,
  opt_out_buttons: s.opt_out_buttons,
});

export async function registerOptOutRoutes(app: App, deps: OptOutServices) {
  app.get(
    '/v1/settings/opt-out',
    {
      config: read,
      schema: {
        tags: [TAG],
        summary: "The organization's opt-out keywords",
        description: `The stop and start keywords and the opt-out button labels inbound messages are compared with (the defaults until changed). ${MATCHING} Needs contacts:read.`,
        response: { 200: dataOf(OptOutSettingsSchema), ...errorResponses([401, 403]) },
      },
    },
    async (request) => ({ data: present(await getOptOutSettings(deps, actorOf(request))) }),
  );

  app.patch(
    '/v1/settings/opt-out',
    {
      config: write,
      schema: {
        tags: [TAG],
        summary: "Change the organization's opt-out keywords",
        description:
          'Replaces the lists given; applies to messages received from then on (suppressions already made stay). 400 naming the field (e.g. `/stop_keywords/0`). Needs contacts:write.',
        body: UpdateOptOutSettingsBody,
        response: { 200: dataOf(OptOutSettingsSchema), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => ({ data: present(await updateOptOutSettings(deps, actorOf(request), request.body)) }),
  );
}
