/**
 * Pairs a real phone with an embedded unofficial channel of a running Parley service: a manual check
 * for people who have a phone (never run in CI). It connects the channel, draws each QR the session
 * issues in the terminal (or prints the pairing code), and waits until the channel is connected.
 *
 *   PARLEY_URL=http://localhost:8080 PARLEY_API_KEY=prl_... npm run pair-phone -- <channel-id> [+49 170 1234567]
 */
import QRCode from 'qrcode';

const base = (process.env.PARLEY_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
const key = process.env.PARLEY_API_KEY;
const [channelId, phone] = process.argv.slice(2);
if (!key || !channelId) {
  process.stderr.write('usage: PARLEY_URL=... PARLEY_API_KEY=... npm run pair-phone -- <channel-id> [phone number for a pairing code]\n');
  process.exit(2);
}

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': key!, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return JSON.parse(text) as { data: any };
}

const connected = await call('POST', `/v1/channels/${channelId}/connect`, phone ? { phone_number: phone } : {});
if (connected.data.channel.status === 'connected') {
  process.stdout.write(`already connected: ${connected.data.channel.display_phone_number}\n`);
  process.exit(0);
}
if (connected.data.pairing_code)
  process.stdout.write(
    `\nOn the phone: Linked devices → Link a device → Link with phone number instead, and type\n\n    ${connected.data.pairing_code.code}\n\n`,
  );
let shown = '';
for (const started = Date.now(); Date.now() - started < 5 * 60_000; ) {
  const channel = (await call('GET', `/v1/channels/${channelId}`)).data;
  if (channel.status === 'connected') {
    process.stdout.write(`connected: ${channel.display_phone_number} (${channel.status_reason})\n`);
    process.exit(0);
  }
  if (channel.status !== 'pairing') {
    process.stderr.write(`the channel is ${channel.status}: ${channel.status_reason}\n`);
    process.exit(1);
  }
  if (!phone) {
    const qr = await call('GET', `/v1/channels/${channelId}/qr`).catch(() => undefined);
    if (qr && qr.data.qr !== shown) {
      shown = qr.data.qr;
      process.stdout.write(`\nScan with the phone (Linked devices → Link a device); valid until ${qr.data.expires_at}:\n`);
      process.stdout.write(await QRCode.toString(shown, { type: 'terminal', small: true }));
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
}
process.stderr.write('gave up after 5 minutes\n');
process.exit(1);
