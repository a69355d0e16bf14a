import assert from 'node:assert/strict';
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import { createServer, type Socket } from 'node:net';
import { mock, test } from 'node:test';
import ipaddr from 'ipaddr.js';
import {
  assertSafeTarget,
  embeddedIPv4,
  isPublicAddress,
  matchesOwnPrefix,
  safeFetch,
  safeRequest,
  UnsafeTargetError,
  type TargetPolicy,
} from './safe-fetch.ts';

const PUBLIC_ONLY: TargetPolicy = { allowPrivate: false };

test('only ipaddr.js unicast addresses are public, and IPv6 forms that embed IPv4 are judged by it too', () => {
  const publicAddresses = [
    '8.8.8.8',
    '93.184.216.34',
    '1.1.1.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:81c::200e',
    '::ffff:8.8.8.8',
    '::ffff:93.184.216.34',
  ];
  const notPublic = [
    // IPv4 classes
    '0.0.0.0',
    '0.1.2.3',
    '10.0.0.1',
    '100.64.0.1',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '192.168.1.1',
    '198.18.0.1',
    '198.51.100.1',
    '203.0.113.1',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    // IPv6 classes
    '::',
    '::1',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '2001:db8::1',
    '100::1',
    'fec0::1',
    // IPv4-mapped
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '::ffff:10.0.0.1',
    '::ffff:0.0.0.0',
    // IPv4-compatible (deprecated): ipaddr.js calls ::7f00:1 unicast, the embedded 127.0.0.1 decides
    '::127.0.0.1',
    '::7f00:1',
    '::a9fe:a9fe',
    '::10.0.0.1',
    '::0.0.0.2',
    // SIIT (RFC 6145)
    '::ffff:0:7f00:1',
    // NAT64 (RFC 6052, RFC 8215), with a private and with a public IPv4 inside
    '64:ff9b::7f00:1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::808:808',
    '64:ff9b:1::a9fe:a9fe',
    // 6to4, with a private and with a public IPv4 inside
    '2002:7f00:1::1',
    '2002:a9fe:a9fe::1',
    '2002:808:808::1',
    // Teredo: the client address is stored inverted (here 127.0.0.1)
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    '2001:0:808:808::1',
    // Not a canonical IP at all
    '127.1',
    '0x7f000001',
    '2130706433',
    'localhost',
    '',
    'example.com',
  ];
  for (const address of publicAddresses) assert.equal(isPublicAddress(address), true, address);
  for (const address of notPublic) assert.equal(isPublicAddress(address), false, address);
});

test('the embedded IPv4 addresses are found in each form', () => {
  const of = (v6: string) => embeddedIPv4(ipaddr.IPv6.parse(v6)).map(String);
  assert.deepEqual(of('::ffff:127.0.0.1'), ['127.0.0.1']);
  assert.deepEqual(of('::7f00:1'), ['127.0.0.1']);
  assert.deepEqual(of('::ffff:0:a9fe:a9fe'), ['169.254.169.254']);
  assert.deepEqual(of('64:ff9b::a9fe:a9fe'), ['169.254.169.254']);
  assert.deepEqual(of('2002:7f00:1::1'), ['127.0.0.1']);
  assert.deepEqual(of('2001:0:4136:e378:8000:63bf:80ff:fffe'), ['65.54.227.120', '127.0.0.1']);
  assert.deepEqual(of('2606:4700:4700::1111'), []);
});

test('URLs with a non-public literal host are refused without a lookup, however the address is spelled', async () => {
  const lookups = mock.method(dns, 'lookup');
  syncBuiltinESMExports();
  try {
    for (const url of [
      'https://169.254.169.254/latest/meta-data',
      'https://[::127.0.0.1]/',
      'https://[::7f00:1]/',
      'https://[2002:7f00:1::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::ffff:a9fe:a9fe]/',
      'https://[64:ff9b::a9fe:a9fe]/',
      'https://2130706433/', // 127.0.0.1, as the URL parser reads it
      'https://0x7f.1/',
      'https://127.1/',
      'https://localhost/',
      'https://api.localhost/',
      'https://LOCALHOST./',
      'https://[::1]:8443/',
    ]) {
      await assert.rejects(
        assertSafeTarget(url, PUBLIC_ONLY),
        (err: unknown) => err instanceof UnsafeTargetError && /private or loopback/.test(err.message),
        url,
      );
    }
    await assert.rejects(assertSafeTarget('http://93.184.216.34/', PUBLIC_ONLY), /https/);
    await assert.rejects(assertSafeTarget('https://user:pw@93.184.216.34/', PUBLIC_ONLY), /credentials/);
    assert.equal((await assertSafeTarget('https://93.184.216.34/hook', PUBLIC_ONLY)).href, 'https://93.184.216.34/hook');
    assert.equal(lookups.mock.callCount(), 0, 'no DNS lookup for a literal');
  } finally {
    lookups.mock.restore();
    syncBuiltinESMExports();
  }
});

test('private targets and plain http only with allowPrivate', async () => {
  const allow: TargetPolicy = { allowPrivate: true };
  assert.ok(await assertSafeTarget('http://127.0.0.1:9/x', allow));
  assert.ok(await assertSafeTarget('https://[::7f00:1]/x', allow));
  await assert.rejects(assertSafeTarget('ftp://127.0.0.1/x', allow), /https/);
});

test("own prefixes: the exact origin, and a path at or under the prefix's", async () => {
  const own = ['http://127.0.0.1:8080/sandbox/'];
  const matches = (url: string) => matchesOwnPrefix(new URL(url), own);
  assert.equal(matches('http://127.0.0.1:8080/sandbox/gateway/sessions/x'), true);
  assert.equal(matches('http://127.0.0.1:8080/sandbox'), true);
  assert.equal(matches('http://127.0.0.1:8080/sandbox/../v1/messages'), false, 'normalized first');
  assert.equal(matches('http://127.0.0.1:8080/sandbox/%2e%2e/v1/messages'), false, 'percent-encoded dots too');
  assert.equal(matches('http://127.0.0.1:8080/sandboxes/x'), false);
  assert.equal(matches('http://127.0.0.1:8080/v1/messages'), false);
  assert.equal(matches('http://127.0.0.1:8081/sandbox/x'), false, 'another port');
  assert.equal(matches('https://127.0.0.1:8080/sandbox/x'), false, 'another scheme');
  assert.equal(matches('http://localhost:8080/sandbox/x'), false, 'another host name for the same address');
  assert.equal(matches('http://[::ffff:127.0.0.1]:8080/sandbox/x'), false);
  assert.equal(matches('http://u:p@127.0.0.1:8080/sandbox/x'), false, 'credentials');
  const policy: TargetPolicy = { allowPrivate: false, ownPrefixes: own };
  assert.ok(await assertSafeTarget('http://127.0.0.1:8080/sandbox/official/v21.0/1/messages', policy));
  await assert.rejects(assertSafeTarget('http://127.0.0.1:8080/v1/messages', policy), /https/);
  await assert.rejects(assertSafeTarget('https://127.0.0.1:8080/v1/messages', policy), /private or loopback/);
});

test('a name that re-resolves to loopback between the check and the connection is refused at connect (DNS rebinding)', async () => {
  const accepted: Socket[] = [];
  const listener = createServer((socket) => {
    accepted.push(socket);
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const { port } = listener.address() as { port: number };
  let calls = 0;
  // The first answer (the check) is public; every later one (the connection) is this listener's.
  const lookups = mock.method(dns, 'lookup', (_host: string, options: unknown, callback: (...args: unknown[]) => void) => {
    const address = calls++ === 0 ? { address: '93.184.216.34', family: 4 } : { address: '127.0.0.1', family: 4 };
    if ((options as { all?: boolean }).all) callback(null, [address]);
    else callback(null, address.address, address.family);
  });
  syncBuiltinESMExports();
  try {
    const refusedAtConnect = (err: unknown) => {
      const cause = (err as { cause?: unknown }).cause;
      return err instanceof UnsafeTargetError || cause instanceof UnsafeTargetError;
    };
    await assert.rejects(safeFetch(`https://rebind.test:${port}/x`, { method: 'GET' }, PUBLIC_ONLY), refusedAtConnect);
    calls = 0;
    await assert.rejects(
      safeRequest(`https://rebind.test:${port}/x`, { method: 'POST', headers: {}, body: '{}' }, PUBLIC_ONLY),
      refusedAtConnect,
    );
    assert.ok(lookups.mock.callCount() >= 4, 'looked up for the check and again for the connection');
    assert.equal(accepted.length, 0, 'no connection was made');
  } finally {
    lookups.mock.restore();
    syncBuiltinESMExports();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  }
});
