/** Helpers for the organization and invitation tests: invite someone and have them join. */
import assert from 'node:assert/strict';
import { randomToken } from '../src/lib/crypto.ts';
import { request, type TestServer } from './harness.ts';

export const MEMBER_PASSWORD = 'a long enough member password';

/** The session cookie a response set, as a Cookie header value. */
export function cookieFrom(res: { headers: Headers }): string {
  const match = /parley_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '');
  assert.ok(match, 'a session cookie was set');
  return `parley_session=${match[1]}`;
}

/** Invites a new email into the organization and signs them up through the link; their session cookie and ids. */
export async function inviteNewMember(
  server: TestServer,
  as: { cookie?: string; key?: string },
  organizationId: string,
  role: 'owner' | 'admin' | 'member',
  label = 'member',
) {
  const email = `${label}-${randomToken(4).toLowerCase()}@example.com`;
  const invited = await request(server, 'POST', `/v1/organizations/${organizationId}/invitations`, { ...as, body: { email, role } });
  assert.equal(invited.status, 201, invited.text);
  const accepted = await request(server, 'POST', '/v1/invitations/accept', {
    body: { token: invited.body.data.token, name: `${label} person`, password: MEMBER_PASSWORD },
  });
  assert.equal(accepted.status, 200, accepted.text);
  return { email, userId: accepted.body.data.user_id as string, cookie: cookieFrom(accepted) };
}
