/**
 * A device's side of the OAuth device flow (RFC 8628), run as its own process by
 * test/settings.browser.test.ts: it asks for a code (POST /v1/oauth/device), prints what a person
 * needs as one JSON line, then polls POST /v1/oauth/token at the interval it was given (slower on
 * slow_down) until the person approves or denies, and prints the outcome as a second JSON line.
 *
 * node_modules/.bin/node test/device-flow-client.ts <base URL> <client_id> <scope>
 */
import type { DeviceStart } from './oauth-client-fixture.ts';

const [baseUrl, clientId, scope] = process.argv.slice(2);
if (!baseUrl || !clientId || !scope) {
  process.stderr.write('usage: device-flow-client.ts <base URL> <client_id> <scope>\n');
  process.exit(2);
}

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

async function post(path: string, form: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(new URL(path, baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const started = await post('/v1/oauth/device', { client_id: clientId, scope });
if (started.status !== 200) {
  process.stdout.write(`${JSON.stringify({ error: 'device_authorization_failed', status: started.status, body: started.body })}\n`);
  process.exit(1);
}
const { device_code: deviceCode, user_code, verification_uri, verification_uri_complete, expires_in } = started.body as DeviceStart;
let interval = Number(started.body.interval) * 1000;
process.stdout.write(`${JSON.stringify({ user_code, verification_uri, verification_uri_complete, expires_in })}\n`);

const deadline = Date.now() + expires_in * 1000;
while (Date.now() < deadline) {
  await new Promise((resolve) => setTimeout(resolve, interval));
  const answer = await post('/v1/oauth/token', { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: clientId });
  if (answer.status === 200) {
    process.stdout.write(
      `${JSON.stringify({ access_token: answer.body.access_token, token_type: answer.body.token_type, scope: answer.body.scope })}\n`,
    );
    process.exit(0);
  }
  const error = answer.body.error;
  if (error === 'authorization_pending') continue;
  if (error === 'slow_down') {
    interval += 5000;
    continue;
  }
  process.stdout.write(`${JSON.stringify({ error, status: answer.status })}\n`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify({ error: 'expired_token' })}\n`);
process.exit(1);
