/**
 * The command tree of `parley` (commander), its global options, and how a command's failure becomes
 * its exit code (exit-codes.ts). The completion scripts are generated from this same tree by
 * @bomb.sh/tab, so a new command or option completes without more work.
 */
import { Command, Option } from 'commander';
import tab from '@bomb.sh/tab/commander';
import { registerChannels } from './commands/channels.ts';
import { registerContacts } from './commands/contacts.ts';
import { registerListen } from './commands/listen.ts';
import { registerLogin } from './commands/login.ts';
import { registerMessages } from './commands/messages.ts';
import { registerWebhooks } from './commands/webhooks.ts';
import { Context, VERSION, type GlobalOptions } from './context.ts';
import { toCliError } from './errors.ts';
import { EXIT } from './exit-codes.ts';

/**
 * Wraps a command's implementation as a commander action: it gets the context (global options
 * merged in), its own options, then its arguments in order.
 */
export type Action = <O, A extends unknown[]>(
  run: (ctx: Context, options: O, ...args: A) => Promise<void>,
) => (...params: unknown[]) => Promise<void>;

const action: Action =
  (run) =>
  async (...params) => {
    const command = params.at(-1) as Command;
    const ctx = new Context(command.optsWithGlobals<GlobalOptions>());
    await (run as (ctx: Context, options: unknown, ...args: unknown[]) => Promise<void>)(ctx, params.at(-2), ...params.slice(0, -2));
  };

export function createProgram(): Command {
  const program = new Command('parley')
    .description("Parley from the terminal: sign in, send and watch messages, forward the service's events to a local URL")
    .version(VERSION, '-V, --version', 'print the version')
    .addOption(
      new Option('--base-url <url>', 'the Parley service (default http://localhost:8080, or the profile’s)').env('PARLEY_BASE_URL'),
    )
    .addOption(new Option('--api-key <key>', 'an API key (prl_…) instead of a login, for scripts').env('PARLEY_API_KEY'))
    .addOption(new Option('--profile <name>', 'the signed-in profile to use (default: the last one logged in)').env('PARLEY_PROFILE'))
    .addOption(new Option('--organization <id>', 'the organization to act in (X-Organization-Id)').env('PARLEY_ORGANIZATION_ID'))
    .option('--json', 'machine-readable output: one JSON document (a JSON line per item for live commands)')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();

  registerLogin(program, action);
  registerListen(program, action);
  registerMessages(program, action);
  registerChannels(program, action);
  registerContacts(program, action);
  registerWebhooks(program, action);

  // Completion scripts for bash, zsh, fish (and powershell): `parley completion <shell>` prints one;
  // the shell then asks the hidden `parley complete -- <words>` for candidates, read from this tree.
  tab(program, { completionCommandName: 'completion' });
  for (const command of program.commands) command.exitOverride();
  return program;
}

/** Runs the CLI on argv (process.argv's form); resolves to the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const program = createProgram();
  try {
    await program.parseAsync(argv as string[]);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (err) {
    const failure = toCliError(err);
    if (failure.exitCode === EXIT.ok) return EXIT.ok; // --help, --version
    const json = Boolean(program.opts<GlobalOptions>().json) || argv.includes('--json');
    // The parser has already printed its own message.
    if (!(failure.details && typeof failure.details.code === 'string' && failure.details.code.startsWith('commander.'))) {
      process.stderr.write(`parley: ${failure.message}\n`);
    }
    if (json && !failure.resultPrinted) {
      process.stdout.write(
        `${JSON.stringify({ error: { message: failure.message, exit_code: failure.exitCode, ...failure.details } }, null, 2)}\n`,
      );
    }
    return failure.exitCode;
  }
}
