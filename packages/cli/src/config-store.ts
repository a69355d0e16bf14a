/**
 * Where `parley` keeps what outlives a command: the signed-in profiles (tokens) and the local signing
 * secret of `parley listen`, in one JSON file, `config.json`, of the user's config directory:
 * PARLEY_CONFIG_DIR when set, else `$XDG_CONFIG_HOME/parley` when XDG_CONFIG_HOME is set (on every
 * platform), else the platform's config directory (env-paths: ~/.config/parley on Linux,
 * ~/Library/Preferences/parley on macOS, %APPDATA%\parley\Config on Windows).
 *
 * The file holds secrets: it is written with mode 0600 in a directory made with mode 0700, and
 * replaced atomically (a new file beside it, then a rename), so a command killed mid-write, or two
 * commands writing at once, never leave half a file. A change re-reads the file just before writing,
 * so a token rotated by one command does not undo a login made by another meanwhile.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import envPaths from 'env-paths';
import { CliError } from './errors.ts';
import { EXIT } from './exit-codes.ts';

/** A signed-in profile: one base URL, optionally one organization, and the tokens of its grant. */
export type Profile = {
  base_url: string;
  organization_id: string | null;
  client_id: string;
  access_token: string;
  refresh_token: string | null;
  /** When the access token expires (ISO 8601), as the token endpoint said. */
  expires_at: string | null;
  scope: string | null;
  created_at: string;
};

export type ConfigFile = {
  version: 1;
  /** The profile commands use when none is named (the last one logged in). */
  default_profile: string | null;
  /** `parley listen`'s signing secret (whsec_…), made once. */
  listen_secret: string | null;
  profiles: Record<string, Profile>;
};

export const CONFIG_FILE = 'config.json';

/** The directory of the config file, by the rule above. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PARLEY_CONFIG_DIR) return path.resolve(env.PARLEY_CONFIG_DIR);
  if (env.XDG_CONFIG_HOME) return path.join(path.resolve(env.XDG_CONFIG_HOME), 'parley');
  return envPaths('parley', { suffix: '' }).config;
}

function emptyConfig(): ConfigFile {
  return { version: 1, default_profile: null, listen_secret: null, profiles: {} };
}

export class ConfigStore {
  readonly dir: string;
  readonly file: string;

  constructor(dir: string) {
    this.dir = dir;
    this.file = path.join(dir, CONFIG_FILE);
  }

  read(): ConfigFile {
    if (!existsSync(this.file)) return emptyConfig();
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch (err) {
      throw new CliError(`${this.file} is not valid JSON (${(err as Error).message}); fix it or remove it and log in again`, EXIT.api);
    }
    const config = parsed as Partial<ConfigFile> | null;
    if (!config || typeof config !== 'object' || config.version !== 1 || typeof config.profiles !== 'object' || config.profiles === null) {
      throw new CliError(`${this.file} is not a parley config file (version 1); remove it and log in again`, EXIT.api);
    }
    return { ...emptyConfig(), ...config } as ConfigFile;
  }

  /** Reads the file, applies the change, and writes it back atomically; the new contents. */
  update(change: (config: ConfigFile) => void): ConfigFile {
    const config = this.read();
    change(config);
    this.write(config);
    return config;
  }

  private write(config: ConfigFile): void {
    if (!existsSync(this.dir)) {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      // mkdir's mode is narrowed by the umask, never widened; say it exactly.
      chmodSync(this.dir, 0o700);
    }
    const temporary = path.join(this.dir, `.${CONFIG_FILE}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    const fd = openSync(temporary, 'wx', 0o600);
    try {
      writeSync(fd, `${JSON.stringify(config, null, 2)}\n`);
      fsyncSync(fd);
    } catch (err) {
      closeSync(fd);
      rmSync(temporary, { force: true });
      throw err;
    }
    closeSync(fd);
    // An existing file made by hand with a wider mode is replaced by this one, which is 0600.
    chmodSync(temporary, 0o600);
    renameSync(temporary, this.file);
  }
}
