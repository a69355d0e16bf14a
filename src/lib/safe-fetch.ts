/**
 * Outbound HTTP to addresses that users choose (gateway bases, media URLs, webhook endpoints).
 * The SSRF guard checks the URL's scheme and every address its host resolves to, and checks again at
 * connect time through the dispatcher's DNS lookup, so a name that re-resolves to a private address
 * (DNS rebinding) is refused too. Address classes are ipaddr.js's: only its 'unicast' range is public.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import {
  Agent,
  fetch as undiciFetch,
  request as undiciRequest,
  type Dispatcher,
  type RequestInit as UndiciRequestInit,
  type Response as UndiciResponse,
} from 'undici';

/** The IPv4 addresses an IPv6 address carries: mapped, compatible, SIIT, NAT64, 6to4 and Teredo forms. */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = address.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([(hi >> 8) & 0xff, hi & 0xff, (lo >> 8) & 0xff, lo & 0xff]);
  const found: ipaddr.IPv4[] = [];
  // ::a.b.c.d (compatible), ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (RFC 6145)
  if (p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && (p[4] === 0 || p[4] === 0xffff) && (p[5] === 0 || p[5] === 0xffff))
    found.push(v4(p[6]!, p[7]!));
  switch (address.range()) {
    case 'rfc6052': // NAT64 64:ff9b::/96 and 64:ff9b:1::/48: the last 32 bits
      found.push(v4(p[6]!, p[7]!));
      break;
    case '6to4': // 2002:AABB:CCDD::/48
      found.push(v4(p[1]!, p[2]!));
      break;
    case 'teredo': // 2001:0:server(32):flags:port:~client(32)
      found.push(v4(p[2]!, p[3]!), v4(~p[6]! & 0xffff, ~p[7]! & 0xffff));
      break;
    default:
      break;
  }
  return found;
}

/**
 * True only for addresses in ipaddr.js's 'unicast' range (and IPv4-mapped IPv6 of one); every IPv4
 * address an IPv6 address embeds must be unicast too. Anything that is not a canonical IP is not public.
 */
export function isPublicAddress(address: string): boolean {
  if (isIP(address) === 0) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (embeddedIPv4(v6).some((a) => a.range() !== 'unicast')) return false;
  // A dual-stack socket names an IPv4 peer this way: the embedded address (checked above) decides.
  if (v6.range() === 'ipv4Mapped') return true;
  return v6.range() === 'unicast';
}

export type TargetPolicy = {
  /** Allow private, loopback and other non-public addresses, and plain http (ALLOW_PRIVATE_NETWORK_TARGETS). */
  allowPrivate: boolean;
  /** Allow plain http to public addresses (default: only where private targets are allowed). */
  allowHttp?: boolean;
  /**
   * URL prefixes of this service's own routes (the sandbox provider's, while it is on), reached
   * whatever their scheme and address: a URL matches when its origin is the prefix's exactly and its
   * path lies under the prefix's path.
   */
  ownPrefixes?: readonly string[];
};

export class UnsafeTargetError extends Error {
  /** True when the refusal is the private-network rule's (plain http, a non-public address): allowPrivate would let the URL through. */
  readonly privateRule: boolean;
  constructor(message: string, options: { privateRule?: boolean } = {}) {
    super(message);
    this.privateRule = options.privateRule ?? false;
  }
}

/** True when the URL is under one of the prefixes: the same origin, and the path at or below the prefix's. */
export function matchesOwnPrefix(url: URL, prefixes: readonly string[] | undefined): boolean {
  if (!prefixes || url.username || url.password) return false;
  return prefixes.some((prefix) => {
    const own = new URL(prefix);
    if (own.origin !== url.origin) return false;
    const base = own.pathname.replace(/\/+$/, '');
    return url.pathname === base || url.pathname.startsWith(`${base}/`);
  });
}

function lookupAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => dnsLookup(host, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));
}

type CheckedTarget = {
  url: URL;
  /** The host, without the brackets of an IPv6 literal. */
  host: string;
  /** One of the policy's own prefixes: no address check, any dispatcher. */
  own: boolean;
};

/** What can be decided from the URL alone: scheme, credentials, own prefix, and an IP literal's class. */
function checkSyntax(url: string, policy: TargetPolicy): CheckedTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UnsafeTargetError('not a valid URL');
  }
  if (parsed.username || parsed.password) throw new UnsafeTargetError('must not carry credentials');
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (matchesOwnPrefix(parsed, policy.ownPrefixes)) return { url: parsed, host, own: true };
  const httpOk = policy.allowHttp ?? policy.allowPrivate;
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && httpOk)) {
    throw new UnsafeTargetError('must be an https URL', { privateRule: parsed.protocol === 'http:' && policy.allowHttp === undefined });
  }
  if (!policy.allowPrivate) {
    // RFC 6761: localhost names are loopback whatever a resolver says.
    const name = host.toLowerCase().replace(/\.$/, '');
    const loopbackName = name === 'localhost' || name.endsWith('.localhost');
    if (loopbackName || (isIP(host) !== 0 && !isPublicAddress(host))) throw refusedHost(host);
  }
  return { url: parsed, host, own: false };
}

function refusedHost(host: string): UnsafeTargetError {
  return new UnsafeTargetError(`host ${host} resolves to a private or loopback address`, { privateRule: true });
}

/**
 * Throws UnsafeTargetError unless the URL passes the checks that need no DNS (scheme, credentials,
 * an IP literal's class): for request paths that must not wait on a resolver. The full check runs
 * again when the request is made.
 */
export function assertSafeTargetSyntax(url: string, policy: TargetPolicy): URL {
  return checkSyntax(url, policy).url;
}

async function checkTarget(url: string, policy: TargetPolicy): Promise<CheckedTarget> {
  const target = checkSyntax(url, policy);
  if (target.own || policy.allowPrivate || isIP(target.host) !== 0) return target;
  const addresses = await lookupAll(target.host).catch(() => []);
  if (addresses.length === 0) throw new UnsafeTargetError(`host ${target.host} does not resolve`);
  if (addresses.some((a) => !isPublicAddress(a.address))) throw refusedHost(target.host);
  return target;
}

/** Throws UnsafeTargetError unless the URL is https (or allowed http) and resolves only to public addresses, or is one of the policy's own prefixes. */
export async function assertSafeTarget(url: string, policy: TargetPolicy): Promise<URL> {
  return (await checkTarget(url, policy)).url;
}

/** A DNS lookup that refuses non-public addresses at connect time. */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list = addresses as LookupAddress[];
    if (list.some((a) => !isPublicAddress(a.address))) return callback(refusedHost(hostname), '', 0);
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
    const first = list[0]!;
    return callback(null, first.address, first.family);
  });
};

/** A dispatcher whose connections refuse non-public addresses at connect time. */
const publicOnlyAgent = new Agent({ connect: { lookup: publicOnlyLookup } });

const anyAgent = new Agent();

function dispatcherFor(target: CheckedTarget, policy: TargetPolicy): Dispatcher {
  return target.own || policy.allowPrivate ? anyAgent : publicOnlyAgent;
}

/** fetch() under the target policy; the URL is checked before the request and again at connect. */
export async function safeFetch(url: string, init: UndiciRequestInit, policy: TargetPolicy): Promise<UndiciResponse> {
  const target = await checkTarget(url, policy);
  return undiciFetch(target.url, { ...init, redirect: 'manual', dispatcher: dispatcherFor(target, policy) });
}

/**
 * safeFetch with connections of its own, destroyed by `close()`: for a long download that may be
 * stopped part way (a size limit passed), so no socket of it outlives the download in a shared pool.
 */
export function createSafeFetcher(): {
  fetch(url: string, init: UndiciRequestInit, policy: TargetPolicy): Promise<UndiciResponse>;
  close(): void;
} {
  let any: Agent | undefined;
  let publicOnly: Agent | undefined;
  return {
    async fetch(url, init, policy) {
      const target = await checkTarget(url, policy);
      const dispatcher =
        target.own || policy.allowPrivate ? (any ??= new Agent()) : (publicOnly ??= new Agent({ connect: { lookup: publicOnlyLookup } }));
      return undiciFetch(target.url, { ...init, redirect: 'manual', dispatcher });
    },
    close() {
      void any?.destroy().catch(() => undefined);
      void publicOnly?.destroy().catch(() => undefined);
    },
  };
}

export type SafeRequestOptions = { method: 'POST' | 'GET' | 'PUT'; headers: Record<string, string>; body?: string; signal?: AbortSignal };

/**
 * A leaner request() under the same target policy and checks (undici's request API: no fetch
 * machinery, the body as a Node stream); for hot paths such as webhook delivery. Redirects are not
 * followed.
 */
export async function safeRequest(url: string, options: SafeRequestOptions, policy: TargetPolicy): Promise<Dispatcher.ResponseData> {
  const target = await checkTarget(url, policy);
  return undiciRequest(target.url, { ...options, dispatcher: dispatcherFor(target, policy) });
}
