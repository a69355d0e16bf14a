/**
 * `parley login`, `parley logout` and `parley profiles`: sign in by the device flow into a profile
 * (one base URL, optionally one organization), sign out by revoking, and list what is signed in.
 */
import type { Command } from 'commander';
import type { ConfigFile } from '../config-store.ts';
import { DEFAULT_BASE_URL, profileFor, type Context } from '../context.ts';
import { CliError, usageError } from '../errors.ts';
import type { Action } from '../program.ts';

/** The OAuth client library and the browser opener load only for login and logout (the other commands start faster). */
const oauth = () => import('../oauth.ts');

/** The service's built-in client for this CLI (src/domain/oauth/first-party.ts). */
export const CLI_CLIENT_ID = 'parley-cli';

type LoginOptions = { browser: boolean; scope?: string; clientId: string };

/** Whether a browser can be opened for the person: a terminal, not CI, and a display where one is needed. */
export function canOpenBrowser(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.CI || !process.stdout.isTTY || !process.stdin.isTTY) return false;
  if (process.platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) return false;
  return true;
}

/** A new profile's name: "default" for the first, else the host and port (and the organization's first characters). */
function newProfileName(config: ConfigFile, baseUrl: string, organizationId: string | undefined): string {
  if (Object.keys(config.profiles).length === 0) return 'default';
  const url = new URL(baseUrl);
  const base = `${url.hostname}${url.port ? `-${url.port}` : ''}${organizationId ? `-${organizationId.slice(0, 8)}` : ''}`;
  let name = base;
  for (let n = 2; config.profiles[name]; n++) name = `${base}-${n}`;
  return name;
}

export function registerLogin(program: Command, action: Action): void {
  program
    .command('login')
    .description('Sign in through the browser (OAuth device flow) and keep the tokens in a profile')
    .option('--no-browser', 'do not open the verification page; only print it')
    .option('--scope <scopes>', 'space- or comma-separated scopes to ask for (default: every scope of the client)')
    .option('--client-id <id>', "the OAuth client (default: the service's built-in parley-cli)", CLI_CLIENT_ID)
    .addHelpText('after', '\nThe global --base-url, --organization and --profile options say where and into which profile.')
    .action(
      action(async (ctx: Context, options: LoginOptions) => {
        const baseUrl = ctx.requestedBaseUrl() ?? DEFAULT_BASE_URL;
        const organizationId = ctx.globals.organization;
        const scope = options.scope
          ?.split(/[\s,]+/)
          .filter(Boolean)
          .join(' ');
        const { oauthConfiguration, startDeviceFlow, waitForApproval } = await oauth();
        const config = oauthConfiguration(baseUrl, options.clientId);
        const started = await startDeviceFlow(config, scope);
        const url = started.verification_uri_complete ?? started.verification_uri;
        ctx.output.note(
          [
            `To sign in to ${baseUrl}, open`,
            `  ${url}`,
            `and check that it shows the code ${started.user_code} (or open ${started.verification_uri} and type it).`,
            `Waiting for the approval (the code expires in ${Math.round(started.expires_in / 60)} minutes)…`,
          ].join('\n'),
        );
        if (options.browser && canOpenBrowser()) {
          const { default: open } = await import('open');
          await open(url).catch(() => ctx.output.note('(could not open a browser; open the address above yourself)'));
        }
        const tokens = await waitForApproval(config, started);
        let profileName = '';
        ctx.store.update((file) => {
          profileName = ctx.globals.profile ?? profileFor(file, baseUrl, organizationId) ?? newProfileName(file, baseUrl, organizationId);
          file.profiles[profileName] = {
            base_url: baseUrl,
            organization_id: organizationId ?? null,
            client_id: options.clientId,
            access_token: tokens.accessToken,
            refresh_token: tokens.refreshToken,
            expires_at: tokens.expiresAt?.toISOString() ?? null,
            scope: tokens.scope,
            created_at: new Date().toISOString(),
          };
          file.default_profile = profileName;
        });
        ctx.output.result(
          {
            profile: profileName,
            base_url: baseUrl,
            organization_id: organizationId ?? null,
            scope: tokens.scope,
            config_file: ctx.store.file,
          },
          () => ctx.output.line(`Logged in to ${baseUrl} (profile ${profileName}; scopes: ${tokens.scope ?? 'all of the client'}).`),
        );
      }),
    );

  program
    .command('logout')
    .description("Revoke the profile's tokens at the service and forget them")
    .action(
      action(async (ctx: Context) => {
        const connection = ctx.connection();
        if (connection.credential.kind !== 'profile') throw usageError('logout signs a profile out; an API key is not stored by parley');
        const { name, profile } = connection.credential;
        let revoked = true;
        let failure: CliError | undefined;
        try {
          const { oauthConfiguration, revoke } = await oauth();
          const config = oauthConfiguration(profile.base_url, profile.client_id);
          if (profile.refresh_token) await revoke(config, profile.refresh_token, 'refresh_token');
          else await revoke(config, profile.access_token, 'access_token');
        } catch (err) {
          revoked = false;
          failure = err as CliError;
        }
        ctx.store.update((file) => {
          delete file.profiles[name];
          if (file.default_profile === name) file.default_profile = Object.keys(file.profiles)[0] ?? null;
        });
        if (failure) {
          throw new CliError(`forgot profile ${name}, but ${failure.message}: the tokens stay valid until they expire`, failure.exitCode, {
            profile: name,
            revoked,
          });
        }
        ctx.output.result({ profile: name, base_url: profile.base_url, revoked }, () =>
          ctx.output.line(`Logged out of ${profile.base_url} (profile ${name} revoked and forgotten).`),
        );
      }),
    );

  program
    .command('profiles')
    .description('List the signed-in profiles (the default one marked *)')
    .action(
      action(async (ctx: Context) => {
        const config = ctx.store.read();
        const rows = Object.entries(config.profiles).map(([name, p]) => ({
          name,
          default: name === config.default_profile,
          base_url: p.base_url,
          organization_id: p.organization_id,
          scope: p.scope,
          expires_at: p.expires_at,
        }));
        ctx.output.result({ config_file: ctx.store.file, profiles: rows }, () =>
          ctx.output.table(rows, [
            { header: '', value: (r) => (r.default ? '*' : ' ') },
            { header: 'name', value: (r) => r.name },
            { header: 'base url', value: (r) => r.base_url },
            { header: 'organization', value: (r) => r.organization_id },
            { header: 'scopes', value: (r) => r.scope },
          ]),
        );
      }),
    );
}
