/**
 * Calls to an unofficial channel's number (docs/channels.md, "Calls"): rejecting one while it rings,
 * optionally with a message to the caller. The calls themselves are `call` messages in the caller's
 * conversation and `call.*` events.
 */
import { z } from 'zod';
import { rejectCall, type CallRejectDeps } from '../../domain/calls/reject.ts';
import { actorOf } from '../auth/actor.ts';
import { errorResponses } from '../errors.ts';
import { inputFrom } from '../input-location.ts';
import { dataOf, PathId } from '../schemas.ts';
import type { App } from '../types.ts';
import { MessageSchema, refusalError } from './messages.ts';
import { presentMessage } from './messages.presenters.ts';

const RejectBody = z
  .object({
    message: z.string().trim().min(1).max(4096).optional().meta({
      description: 'A text sent to the caller once the call is rejected, as any message (it is in the answer and the conversation)',
    }),
  })
  .strict()
  .meta({ id: 'RejectCallRequest', examples: [{ message: 'Sorry, we cannot take calls here. Please write to us.' }] });

const RejectedCallSchema = z
  .object({
    call: MessageSchema.meta({
      description:
        'The call’s record: a message of type `call` whose content (`call_id`, `video`, `status`, `rejected_by`, times) shows it rejected',
    }),
    message: MessageSchema.nullable().meta({ description: 'The message sent to the caller (queued), or null' }),
    message_refusal: z
      .object({ code: z.string(), detail: z.string() })
      .nullable()
      .meta({ description: 'Why the message was not sent, when one was given and refused (the call is rejected all the same)' }),
  })
  .meta({ id: 'RejectedCall' });

export async function registerChannelCallRoutes(app: App, deps: CallRejectDeps) {
  app.post(
    '/v1/channels/:channelID/calls/:callID/reject',
    {
      config: { auth: { permission: 'messages:send' } },
      schema: {
        tags: ['calls'],
        summary: 'Reject a ringing call',
        description:
          "The call ends on the caller's phone; its record becomes `rejected` (`rejected_by: parley`) and call.rejected is recorded; then `message`, when given, is sent to the caller. `callID` is the call's id (`call_id` in the call.* events and in its record's content). 404 naming `callID` for a call the channel does not have; 409 when it no longer rings (answered, missed, rejected) or the channel is not connected. Unofficial channels (`calls.reject`); official channels answer 422 `unsupported`. The channel's `reject_calls` setting does this for every call as it rings, with `reject_calls_message`.",
        params: z.object({ channelID: PathId, callID: z.string().min(1).max(128) }),
        body: RejectBody.nullish(),
        response: { 200: dataOf(RejectedCallSchema), ...errorResponses([400, 401, 403, 404, 409, 422, 503]) },
      },
    },
    async (request) => {
      const result = await inputFrom(
        'params',
        rejectCall(deps, actorOf(request), {
          channelId: request.params.channelID,
          callId: request.params.callID,
          message: request.body?.message,
        }),
      );
      const sent = result.message;
      const refusal = sent && sent.refusal !== null ? refusalError(sent) : null;
      return {
        data: {
          call: presentMessage(result.call),
          message: sent && sent.refusal === null ? presentMessage(sent.message) : null,
          message_refusal: refusal ? { code: refusal.code, detail: refusal.message } : null,
        },
      };
    },
  );
}
