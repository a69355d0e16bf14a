/** Any process's side of the commands: asks the session's holder for what only its socket can do, and waits for the answer. */
import { eq } from 'drizzle-orm';
import { channelSessionCommands } from '../../../../db/schema.ts';
import { uuidv7 } from '../../../../lib/ids.ts';
import type { Result } from '../../../provider.ts';
import { notify, readSession } from '../sessions.ts';
import { COMMAND_ASKED, COMMAND_DONE, notRunning, type CommandKind, type EngineContext } from './context.ts';

export async function askHolder(
  engine: EngineContext,
  channelId: string,
  kind: CommandKind,
  input: Record<string, unknown>,
): Promise<Result<unknown>> {
  const { db, waiters } = engine;
  const { sealer, clock, commandTimeoutMs } = engine.options;
  const session = await readSession(db, channelId);
  if (!session?.wanted) return notRunning('the session is not started: connect the channel first');
  const id = uuidv7();
  await db.transaction(async (tx) => {
    await tx
      .insert(channelSessionCommands)
      .values({ id, channelId, kind, inputSealed: sealer.seal(JSON.stringify(input)), createdAt: clock.now() });
    await notify(tx, COMMAND_ASKED, channelId);
  });
  try {
    const answer = await waiters.wait(
      COMMAND_DONE,
      id,
      async () => {
        const [row] = await db
          .select({ state: channelSessionCommands.state, result: channelSessionCommands.resultSealed })
          .from(channelSessionCommands)
          .where(eq(channelSessionCommands.id, id));
        return row?.state === 'done' && row.result ? row.result : undefined;
      },
      commandTimeoutMs,
    );
    if (answer === undefined) return notRunning(`no worker holding the session answered within ${Math.round(commandTimeoutMs / 1000)} s`);
    return JSON.parse(sealer.open(answer)) as Result<unknown>;
  } finally {
    await db
      .delete(channelSessionCommands)
      .where(eq(channelSessionCommands.id, id))
      .catch(() => undefined);
  }
}
