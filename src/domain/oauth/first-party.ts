/**
 * The service's own OAuth clients: public clients of no organization, written by every start, so the
 * tools Parley ships work against any installation with nothing registered by hand. Today one: the
 * `parley` command-line tool (packages/cli), which signs in by the device flow and refreshes. Its
 * users' tokens are bounded as any client's: by the scopes below, what the user approves and what
 * their role allows. No organization's management routes see these rows (they ask for their own
 * organization's clients), so none can change or delete them.
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { oauthClients } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { uuidv7 } from '../../lib/ids.ts';
import type { Permission } from '../permissions.ts';
import { GRANT_TYPES, type GrantType } from './vocabulary.ts';

export type FirstPartyClient = { clientId: string; name: string; grantTypes: GrantType[]; scopes: Permission[] };

/** The `parley` CLI's client_id, the one its users' devices send (packages/cli/src/auth.ts names it too). */
export const CLI_CLIENT_ID = 'parley-cli';

export const FIRST_PARTY_CLIENTS: readonly FirstPartyClient[] = [
  {
    clientId: CLI_CLIENT_ID,
    name: 'Parley CLI',
    grantTypes: [GRANT_TYPES.deviceCode, GRANT_TYPES.refreshToken],
    // What its commands do: send and read messages, channels (pairing included), contacts and their
    // imports, templates, webhooks (the events stream, replays, test sends). Not keys, members or clients.
    scopes: [
      'messages:read',
      'messages:send',
      'channels:read',
      'channels:write',
      'contacts:read',
      'contacts:write',
      'templates:read',
      'webhooks:read',
      'webhooks:write',
    ],
  },
];

/**
 * Writes the first-party clients as this version has them: inserted when missing, brought up to date
 * when a release changed them, left alone otherwise (an unchanged row is not written, so no process is
 * told to forget its cached clients). Safe for processes starting at once (one statement per client).
 */
export async function ensureFirstPartyClients(db: Executor, clock: Clock): Promise<void> {
  const now = clock.now();
  for (const client of FIRST_PARTY_CLIENTS) {
    await db
      .insert(oauthClients)
      .values({
        id: uuidv7(),
        clientId: client.clientId,
        organizationId: null,
        name: client.name,
        type: 'public',
        secretHash: null,
        redirectUris: [],
        grantTypes: client.grantTypes,
        scopes: client.scopes,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoUpdate({
        target: oauthClients.clientId,
        set: { name: client.name, grantTypes: client.grantTypes, scopes: client.scopes, updatedAt: now },
        setWhere: sql`${oauthClients.organizationId} is null and (${oauthClients.name}, ${oauthClients.grantTypes}, ${oauthClients.scopes}) is distinct from (excluded.name, excluded.grant_types, excluded.scopes)`,
      });
  }
}
