/**
 * `parley send` and `parley messages get [--watch]`: send a text or a template message, read one, and
 * follow its statuses live until it is read or failed (the events stream wakes the watch at once; a
 * slow poll covers the moments before the stream is open, and a credential without webhooks:read).
 */
import type { Parley } from '@parley/sdk';
import { Option, type Command } from 'commander';
import type { Context } from '../context.ts';
import { CliError, usageError } from '../errors.ts';
import { EXIT } from '../exit-codes.ts';
import type { Action } from '../program.ts';
import { untilInterrupted } from '../signals.ts';

type SendOptions = {
  channel: string;
  to: string;
  text?: string;
  template?: string;
  language?: string;
  var: string[];
  idempotencyKey?: string;
};

type StatusEntry = { status: string; at: string; error: { code: string; title: string } | null };
type MessageStatus = { message_id: string; status: string; history: StatusEntry[]; error: unknown };

/** The statuses a message does not leave (for the watch: read is as far as a sent message goes). */
const FINAL = new Set(['read', 'failed']);

const collect = (value: string, previous: string[]) => [...previous, value];

/** The send body of the options: a text, or a template with its body variables. */
export function sendBody(options: SendOptions): Record<string, unknown> {
  const base = { channel_id: options.channel, to: options.to };
  if (options.text !== undefined && options.template !== undefined) throw usageError('give --text or --template, not both');
  if (options.text !== undefined) {
    if (options.var.length > 0 || options.language) throw usageError('--var and --language go with --template');
    return { ...base, type: 'text', content: { body: options.text } };
  }
  if (options.template === undefined) throw usageError('give --text "…" or --template NAME --language CODE');
  if (!options.language) throw usageError('--template needs --language (the approved template’s locale, e.g. en_US)');
  const components =
    options.var.length > 0 ? [{ type: 'body', parameters: options.var.map((text) => ({ type: 'text', text })) }] : undefined;
  return {
    ...base,
    type: 'template',
    content: { template: { name: options.template, language: { code: options.language }, ...(components ? { components } : {}) } },
  };
}

function printStatus(ctx: Context, messageId: string, entry: StatusEntry): void {
  const error = entry.error ? `  ${entry.error.code}: ${entry.error.title}` : '';
  ctx.output.item({ message_id: messageId, ...entry }, `${entry.at}  ${entry.status}${error}`);
}

/** Follows the message's statuses until read or failed (or Ctrl-C); the last status. */
async function watch(ctx: Context, parley: Parley, messageId: string): Promise<string | undefined> {
  let shown = 0;
  let last: string | undefined;
  // One refresh at a time, whoever asks (the stream or the poll), so each status prints once, in order.
  let chain: Promise<boolean> = Promise.resolve(false);
  const refresh = () =>
    (chain = chain.then(async () => {
      const status = (await parley.messages.getStatus({ messageID: messageId })).data as MessageStatus;
      for (const entry of status.history.slice(shown)) printStatus(ctx, messageId, entry);
      shown = Math.max(shown, status.history.length);
      last = status.status;
      return FINAL.has(status.status);
    }));

  await untilInterrupted(async (interrupted) => {
    if (await refresh()) return;
    const finished = new AbortController();
    const signal = AbortSignal.any([interrupted, finished.signal]);
    const pollEveryMs = 2000;
    let failure: unknown;
    const poller = setInterval(() => {
      refresh().then(
        (done) => done && finished.abort(),
        (err: unknown) => {
          failure = err;
          finished.abort();
        },
      );
    }, pollEveryMs);
    try {
      const stream = parley.events.stream({ types: ['message.status_update'], signal });
      for await (const event of stream) {
        if ((event.data as { message_id?: string }).message_id === messageId && (await refresh())) break;
      }
    } catch (err) {
      // A credential without webhooks:read cannot open the stream: the poll goes on alone.
      if (signal.aborted) return;
      ctx.output.note(`(no live events: ${(err as Error).message}; polling every ${pollEveryMs / 1000} s)`);
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    } finally {
      clearInterval(poller);
    }
    if (failure) throw failure;
  });
  return last;
}

export function registerMessages(program: Command, action: Action): void {
  program
    .command('send')
    .description('Send a text or template message')
    .requiredOption('--channel <id>', 'the channel to send from')
    .requiredOption('--to <number>', "the recipient's phone number (digits, with the country code)")
    .option('--text <text>', 'a text message')
    .option('--template <name>', 'an approved template, by name')
    .option('--language <code>', "the template's language (e.g. en_US)")
    .option('--var <value>', 'a template body variable, in order (repeat for each)', collect, [])
    .addOption(new Option('--idempotency-key <key>', 'send once per key, however often the command runs'))
    .action(
      action(async (ctx: Context, options: SendOptions) => {
        const body = sendBody(options);
        const parley = ctx.client();
        const sent = await parley.messages.send({ body: body as never, idempotencyKey: options.idempotencyKey });
        const message = sent.data as { id: string; status: string };
        ctx.output.result(message, () => ctx.output.line(`Message ${message.id} ${message.status} (to ${options.to}).`));
      }),
    );

  const messages = program.command('messages').description('Read messages');
  messages
    .command('get')
    .description('Show a message; --watch follows its statuses until it is read or failed')
    .argument('<id>', 'the message id')
    .option('--watch', 'print each status as it comes, until read or failed (exit 5 when failed)')
    .action(
      action(async (ctx: Context, options: { watch?: boolean }, id: string) => {
        const parley = ctx.client();
        if (!options.watch) {
          const message = (await parley.messages.get({ messageID: id })).data as Record<string, unknown>;
          ctx.output.result(message, () => {
            for (const key of ['id', 'channel_id', 'direction', 'to', 'from', 'type', 'status', 'created_at']) {
              if (message[key] !== undefined) ctx.output.line(`${`${key}:`.padEnd(12)}${String(message[key])}`);
            }
          });
          return;
        }
        const final = await watch(ctx, parley, id);
        if (final === 'failed')
          throw new CliError(`message ${id} failed`, EXIT.failed, { message_id: id, status: final }, { resultPrinted: true });
      }),
    );
}
