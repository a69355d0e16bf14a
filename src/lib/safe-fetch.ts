/**
 * Outbound HTTP to addresses that users choose (gateway bases, media URLs, webhook endpoints).
 * The SSRF guard checks the URL's scheme and every address its host resolves to, and checks again at
 * connect time through the dispatcher's DNS lookup, so a name that re-resolves to a private address
 * (DNS rebinding) is refused too.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, fetch as undiciFetch, request as undiciRequest, type Dispatcher, type RequestInit as UndiciRequestInit, type Response as UndiciResponse } from 'undici';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['64:ff9b::', 96],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** True for loopback, private, link-local, carrier-grade NAT, documentation and multicast addresses. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1]!, 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true;
}

export type TargetPolicy = {
  /** Allow private and loopback addresses (the sandbox, or an explicit setting). */
  allowPrivate: boolean;
  /** Allow plain http (only where private targets are allowed too). */
  allowHttp?: boolean;
};

export class UnsafeTargetError extends Error {}

function lookupAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );
}

/** Throws UnsafeTargetError unless the URL is https (or allowed http) and resolves only to public addresses. */
export async function assertSafeTarget(url: string, policy: TargetPolicy): Promise<URL> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UnsafeTargetError('not a valid URL');
  }
  const httpOk = policy.allowHttp ?? policy.allowPrivate;
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && httpOk)) {
    throw new UnsafeTargetError('must be an https URL');
  }
  if (parsed.username || parsed.password) throw new UnsafeTargetError('must not carry credentials');
  if (policy.allowPrivate) return parsed;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookupAll(host).catch(() => []);
  if (addresses.length === 0) throw new UnsafeTargetError(`host ${host} does not resolve`);
  const bad = addresses.find((a) => isPrivateAddress(a.address));
  if (bad) throw new UnsafeTargetError(`host ${host} resolves to a private or loopback address`);
  return parsed;
}

/** A dispatcher whose connections refuse private addresses at connect time. */
const publicOnlyAgent = new Agent({
  connect: {
    lookup(hostname, options, callback) {
      dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
        if (err) return callback(err, '', 0);
        const list = addresses as LookupAddress[];
        const bad = list.find((a) => isPrivateAddress(a.address));
        if (bad) return callback(new UnsafeTargetError(`host ${hostname} resolves to a private or loopback address`), '', 0);
        if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
        const first = list[0]!;
        return callback(null, first.address, first.family);
      });
    },
  },
});

const anyAgent = new Agent();

export type SafeResponse = UndiciResponse;

/** fetch() under the target policy; the URL is checked before the request and again at connect. */
export async function safeFetch(url: string, init: UndiciRequestInit, policy: TargetPolicy): Promise<UndiciResponse> {
  await assertSafeTarget(url, policy);
  return undiciFetch(url, { ...init, redirect: 'manual', dispatcher: policy.allowPrivate ? anyAgent : publicOnlyAgent });
}

export type SafeRequestOptions = { method: 'POST' | 'GET' | 'PUT'; headers: Record<string, string>; body?: string; signal?: AbortSignal };

/**
 * A leaner request() under the same target policy and checks (undici's request API: no fetch
 * machinery, the body as a Node stream); for hot paths such as webhook delivery. Redirects are not
 * followed.
 */
export async function safeRequest(url: string, options: SafeRequestOptions, policy: TargetPolicy): Promise<Dispatcher.ResponseData> {
  await assertSafeTarget(url, policy);
  return undiciRequest(url, { ...options, dispatcher: policy.allowPrivate ? anyAgent : publicOnlyAgent });
}
