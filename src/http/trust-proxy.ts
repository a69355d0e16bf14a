/**
 * TRUST_PROXY as Fastify's trustProxy option, which makes request.ip (every per-address rule reads it)
 * and the forwarded protocol and host. A hop count is a function of the hop: Fastify 5 refuses a bare
 * number, since it trusts whatever connects directly (docs/configuration.md says so); a list of proxy
 * addresses goes as it is (proxy-addr compiles it). Fastify's own `true` (every hop, so the client's
 * first entry) is never passed.
 */
import type { FastifyServerOptions } from 'fastify';
import type { TrustProxy } from '../config.ts';

export function fastifyTrustProxy(trust: TrustProxy): NonNullable<FastifyServerOptions['trustProxy']> {
  if (trust === false) return false;
  if ('hops' in trust) {
    const { hops } = trust;
    return (_address: string, hop: number) => hop < hops;
  }
  return trust.proxies;
}
