/**
 * Boot: load the config, then the service (src/serve.ts) and start the roles (api, worker).
 *   node src/main.ts           serve (roles from ROLES, default api,worker)
 *   node src/main.ts migrate   apply database migrations and exit
 * The configuration is checked before anything else is loaded: a wrong value stops the process in
 * a moment, whatever the machine is doing.
 */
import './boot/module-hooks.ts';
import { loadConfigOrFail } from './config.ts';

function fail(message: string): never {
  process.stderr.write(`parley: ${message}\n`);
  process.exit(1);
}

async function main() {
  const config = loadConfigOrFail(fail);
  const command = process.argv[2] ?? 'serve';
  switch (command) {
    case 'serve':
      return (await import('./serve.ts')).serve(config);
    case 'migrate':
      return (await import('./serve.ts')).runMigrations(config);
    default:
      fail(`unknown command ${JSON.stringify(command)}: use serve or migrate`);
  }
}

main().catch((err: unknown) => {
  fail(err instanceof Error ? err.message : String(err));
});
