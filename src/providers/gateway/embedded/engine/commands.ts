/** The holder's side of the commands: takes the pending commands of the sessions it holds, runs each, writes its answer. */
import { and, eq, inArray } from 'drizzle-orm';
import { channelSessionCommands } from '../../../../db/schema.ts';
import type { Result } from '../../../provider.ts';
import { runChatRequest, type ChatRequest } from '../chats.ts';
import { runGroupRequest, type GroupRequest } from '../groups.ts';
import { runLabelRequest, type LabelRequest } from '../labels.ts';
import { jidOfPhone, phoneOfJid } from '../ids.ts';
import { notify } from '../sessions.ts';
import { runProfileOp, type ProfileOp } from '../profiles.ts';
import { COMMAND_DONE, FIRST_QR_MS, notRunning, profileMemoryOf, type CommandKind, type EngineContext, type Held } from './context.ts';
import { endSession, enqueue } from './hold.ts';
import { refreshSettings } from './settings.ts';

/** What a command carries: a phone (pairing code, lookup, presence), a profile operation and its input, or a group request (groups.ts). */
type CommandInput = { phone?: string; op?: ProfileOp; input?: unknown } & Partial<Record<string, unknown>>;

/**
 * A refusal the library threw for a profile operation (a Boom error: its status and message), as the
 * provider's error: 4xx are the request's fault and final, the rest worth another try.
 */
function libraryRefusal(err: unknown): Result<never> {
  const boom = err as { output?: { statusCode?: unknown }; message?: unknown } | null;
  const status = typeof boom?.output?.statusCode === 'number' ? boom.output.statusCode : undefined;
  if (status === undefined) throw err;
  const message = typeof boom?.message === 'string' ? boom.message : 'the chat network refused';
  return {
    ok: false,
    error: {
      code: status === 404 ? 'not_found' : `library_${status}`,
      title: `the chat network answered ${status}: ${message}`,
      retryable: status >= 500 || status === 408 || status === 429,
    },
  };
}

export async function runCommands(engine: EngineContext): Promise<void> {
  const ids = [...engine.sessions.keys()];
  if (ids.length === 0) return;
  const pending = await engine.db
    .update(channelSessionCommands)
    .set({ state: 'running' })
    .where(and(inArray(channelSessionCommands.channelId, ids), eq(channelSessionCommands.state, 'pending')))
    .returning();
  for (const command of pending) engine.loop.run(() => runCommand(engine, command));
}

async function runCommand(engine: EngineContext, command: typeof channelSessionCommands.$inferSelect): Promise<void> {
  const { sealer, clock, logger } = engine.options;
  let result: Result<unknown>;
  try {
    const input = JSON.parse(sealer.open(command.inputSealed)) as CommandInput;
    result = await execute(engine, command.kind as CommandKind, engine.sessions.get(command.channelId), input);
  } catch (err) {
    logger.error({ err, channel_id: command.channelId, kind: command.kind }, 'embedded engine: command failed');
    result = {
      ok: false,
      error: { code: 'session_error', title: `the session could not do it: ${(err as Error).message}`, retryable: true },
    };
  }
  await engine.db.transaction(async (tx) => {
    await tx
      .update(channelSessionCommands)
      .set({ state: 'done', resultSealed: sealer.seal(JSON.stringify(result)), finishedAt: clock.now() })
      .where(eq(channelSessionCommands.id, command.id));
    await notify(tx, COMMAND_DONE, command.id);
  });
}

async function execute(engine: EngineContext, kind: CommandKind, held: Held | undefined, input: CommandInput): Promise<Result<unknown>> {
  const { clock, logger } = engine.options;
  if (kind === 'logout') {
    if (!held) return notRunning('this process no longer holds the session');
    await enqueue(engine, held, async () => {
      const socket = held.socket;
      // The close the logout causes is this command's, not news.
      held.generation++;
      held.socket = undefined;
      held.closing = true;
      try {
        if (socket)
          await socket
            .logout()
            .catch((err: unknown) =>
              logger.warn(
                { err, channel_id: held.channelId },
                'embedded engine: the logout was not confirmed; dropping the credentials anyway',
              ),
            );
        await held.auth?.clear();
        await endSession(
          engine,
          held,
          { state: 'STOPPED', disconnectReason: 'logged out by the user', disconnectCode: null, disconnectCause: 'LOGOUT' },
          'logged out by the user',
        );
      } finally {
        held.closing = false;
      }
    });
    return { ok: true, value: { status: 'STOPPED' } };
  }
  if (kind === 'settings') {
    if (held) await refreshSettings(engine, [held.channelId]);
    return { ok: true, value: { applied: true } };
  }
  const socket = held?.socket;
  if (!held || !socket) return notRunning('the session is not connected right now (reconnecting, or not started)');
  const phone = typeof input.phone === 'string' ? input.phone : '';
  if (kind === 'group') {
    if (!held.paired || !held.groupCache) return notRunning('the session is not paired');
    return runGroupRequest(
      { socket, cache: held.groupCache, self: { phone: held.phone, lid: held.lid } },
      input as unknown as GroupRequest,
    );
  }
  if (kind === 'label') {
    if (!held.paired) return notRunning('the session is not paired');
    return runLabelRequest(socket, input as unknown as LabelRequest).catch(libraryRefusal);
  }
  if (kind === 'chat') {
    if (!held.paired) return notRunning('the session is not paired');
    return runChatRequest(socket, input as unknown as ChatRequest);
  }
  if (kind === 'presence') {
    if (!held.paired) return notRunning('the session is not paired');
    await socket.presenceSubscribe(jidOfPhone(phone));
    return { ok: true, value: { subscribed: true } };
  }
  // Contacts, profiles and calls (profiles.ts): the library's refusals are the provider's answer.
  if (kind === 'profile') return runProfileOp(socket, profileMemoryOf(held), input.op!, input.input as never).catch(libraryRefusal);
  if (kind === 'pairing_code') {
    if (held.paired) return { ok: false, error: { code: 'already_paired', title: 'the session is paired already', retryable: false } };
    const code = await socket.requestPairingCode(phone);
    const expiresAt = held.qrExpiresAt ?? new Date(clock.now().getTime() + FIRST_QR_MS);
    return { ok: true, value: { code, expiresAt: expiresAt.toISOString() } };
  }
  const [found] = (await socket.onWhatsApp(phone)) ?? [];
  return {
    ok: true,
    value: { exists: found?.exists === true, ...(found?.exists ? { chatappId: phoneOfJid(found.jid) ?? found.jid } : {}) },
  };
}
