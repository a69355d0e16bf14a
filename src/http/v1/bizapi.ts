import { z } from 'zod';
import { exchangeSignupCode, registerPhone, type OnboardingDeps } from '../../domain/channels/pairing.ts';
import { actorOf } from '../auth/actor.ts';
import type { App } from '../types.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { presentChannel } from './channels.presenters.ts';
import { ChannelSchema } from './channels.ts';
import { dataOf } from '../schemas.ts';

/** Onboarding of official numbers, after the provider's embedded-signup flow. */
export async function registerBizapiRoutes(app: App, deps: OnboardingDeps) {
  const errors = errorResponses([400, 401, 403, 404, 409, 422, 503]);

  app.post(
    '/v1/bizapi/exchange-code',
    {
      config: { auth: { permission: 'channels:write' } },
      schema: {
        tags: ['onboarding'],
        summary: 'Finish embedded signup (official only)',
        description:
          "Exchanges the signup `code` the provider's browser flow returned for a business token, reads the business account (from `waba_id`, or the token's grants) and its numbers, subscribes the app, and creates the channel (or re-points `channel_id`) as `connected`. With the sandbox on and no OFFICIAL_API_BASE, the sandbox plays the provider (get a code from POST /sandbox/official/signup).",
        body: z
          .object({
            code: z.string().min(1).max(2048),
            waba_id: z
              .string()
              .regex(/^\d{1,32}$/)
              .optional(),
            phone_number_id: z
              .string()
              .regex(/^\d{1,32}$/)
              .optional()
              .meta({ description: 'Which number of the account (default: the first)' }),
            channel_id: z.string().optional().meta({ description: 'Re-point this existing official channel instead of creating one' }),
            name: z.string().trim().min(1).max(200).optional(),
            pin: z
              .string()
              .regex(/^\d{6}$/, { error: 'a 6-digit PIN' })
              .optional()
              .meta({
                description: "The number's two-step PIN: registers the number right away (else call register-phone before sending)",
              }),
          })
          .meta({
            id: 'ExchangeCodeRequest',
            examples: [{ code: 'AQBx...', waba_id: '102290129340398', phone_number_id: '106540352242922', name: 'Support line' }],
          }),
        response: { 200: dataOf(ChannelSchema), ...errors },
      },
    },
    async (request) => {
      const b = request.body;
      const row = await inputFrom(
        'body',
        exchangeSignupCode(deps, actorOf(request), {
          code: b.code,
          wabaId: b.waba_id,
          phoneNumberId: b.phone_number_id,
          channelId: b.channel_id,
          name: b.name,
          pin: b.pin,
        }),
      );
      return { data: presentChannel(row, deps.sealer, deps.clock.now()) };
    },
  );

  app.post(
    '/v1/bizapi/register-phone',
    {
      config: { auth: { permission: 'channels:write' } },
      schema: {
        tags: ['onboarding'],
        summary: "Register an official channel's number (official only)",
        description:
          'Registers the number with the provider using its 6-digit two-step PIN; the channel becomes `connected`. 422 on unofficial channels.',
        body: z
          .object({ channel_id: z.string().min(1), pin: z.string().regex(/^\d{6}$/, { error: 'a 6-digit PIN' }) })
          .meta({ id: 'RegisterPhoneRequest', examples: [{ channel_id: '0196a0e2-7c1e-7a59-9a4c-2f5d3f3b8a10', pin: '123456' }] }),
        response: { 200: dataOf(ChannelSchema), ...errors },
      },
    },
    async (request) => ({
      data: presentChannel(
        await inputFrom('body', registerPhone(deps, actorOf(request), { channelId: request.body.channel_id, pin: request.body.pin })),
        deps.sealer,
        deps.clock.now(),
      ),
    }),
  );
}
