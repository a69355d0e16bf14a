/**
 * Keeps a test process on the machine: every outgoing TCP connection and DNS lookup made in this
 * process (the server runs in it) is checked; a target that is not loopback is recorded as a
 * violation and sent to a closed loopback port instead, so nothing ever leaves even when the test
 * is about to fail.
 */
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

export type LoopbackGuard = { violations: string[]; restore(): void };

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1' || h === '::ffff:127.0.0.1') return true;
  return net.isIPv4(h) && h.startsWith('127.');
}

/** Installs the guard; closedPort is a loopback port nothing listens on. */
export function guardLoopback(closedPort: number): LoopbackGuard {
  const violations: string[] = [];
  const originalConnect = net.Socket.prototype.connect;
  const originalLookup = dns.lookup;
  const originalPromisesLookup = dns.promises.lookup;

  net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    const first = args[0];
    if (first && typeof first === 'object' && !Array.isArray(first)) {
      const options = first as { host?: string; port?: number; path?: string };
      if (options.path === undefined && options.host !== undefined && !isLoopbackHost(options.host)) {
        violations.push(`connect ${options.host}:${options.port}`);
        args[0] = { ...options, host: '127.0.0.1', port: closedPort, lookup: undefined };
      }
    } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
      const host = typeof args[1] === 'string' ? args[1] : 'localhost';
      if (!isLoopbackHost(host)) {
        violations.push(`connect ${host}:${first}`);
        args[0] = closedPort;
        args[1] = '127.0.0.1';
      }
    }
    return (originalConnect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof net.Socket.prototype.connect;

  const answer = (options: unknown) => {
    const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
    return all ? [{ address: '127.0.0.1', family: 4 }] : { address: '127.0.0.1', family: 4 };
  };
  dns.lookup = function guardedLookup(hostname: string, options: unknown, callback?: unknown) {
    const cb = (typeof options === 'function' ? options : callback) as (...a: unknown[]) => void;
    const opts = typeof options === 'function' ? {} : options;
    if (net.isIP(hostname) || isLoopbackHost(hostname)) return (originalLookup as (...a: unknown[]) => void)(hostname, opts, cb);
    violations.push(`dns ${hostname}`);
    const a = answer(opts);
    process.nextTick(() => (Array.isArray(a) ? cb(null, a) : cb(null, a.address, a.family)));
  } as typeof dns.lookup;
  dns.promises.lookup = async function guardedPromisesLookup(hostname: string, options?: unknown) {
    if (net.isIP(hostname) || isLoopbackHost(hostname))
      return (originalPromisesLookup as (...a: unknown[]) => Promise<unknown>)(hostname, options);
    violations.push(`dns ${hostname}`);
    return answer(options);
  } as typeof dns.promises.lookup;
  syncBuiltinESMExports();

  return {
    violations,
    restore() {
      net.Socket.prototype.connect = originalConnect;
      dns.lookup = originalLookup;
      dns.promises.lookup = originalPromisesLookup;
      syncBuiltinESMExports();
    },
  };
}
