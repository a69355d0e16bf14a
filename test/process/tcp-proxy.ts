/**
 * A TCP proxy on loopback for fault tests: the service connects to it instead of the database, and
 * the test cuts it (every open connection destroyed, new ones refused: what a restarting or
 * unreachable server looks like to the client) and restores it.
 */
import { createServer, Socket, type Server } from 'node:net';

export type TcpProxy = {
  port: number;
  /** Destroys every proxied connection and refuses new ones until restore(). */
  cut(): void;
  restore(): void;
  /** Connections open through the proxy now. */
  open(): number;
  close(): Promise<void>;
};

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let refusing = false;
  const server: Server = createServer((inbound) => {
    if (refusing) {
      // A reset, like a port nobody listens on.
      inbound.resetAndDestroy();
      return;
    }
    const outbound = new Socket();
    sockets.add(inbound);
    sockets.add(outbound);
    const drop = () => {
      inbound.destroy();
      outbound.destroy();
      sockets.delete(inbound);
      sockets.delete(outbound);
    };
    inbound.on('error', drop).on('close', drop);
    outbound.on('error', drop).on('close', drop);
    outbound.connect(target.port, target.host);
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    cut() {
      refusing = true;
      for (const socket of sockets) socket.resetAndDestroy();
      sockets.clear();
    },
    restore() {
      refusing = false;
    },
    open: () => sockets.size / 2,
    close() {
      refusing = true;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The URL with its host and port replaced by the proxy's. */
export function throughProxy(url: string, proxy: TcpProxy): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(proxy.port);
  return u.toString();
}
