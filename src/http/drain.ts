/**
 * How a closing server lets go of its connections. Idle keep-alive connections close at once
 * (Fastify's `forceCloseConnections: 'idle'`). A response in flight finishes with
 * `Connection: close`; one whose headers are out (a download, a stream) ends its connection once it
 * is written. Whatever is still open when the drain time is up (a client that stopped reading, a
 * download that outlasts the shutdown) is cut, so a close never waits on the keep-alive timeout or
 * on a slow client.
 */
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

export type Drain = {
  /** Starts the drain: answers finish with `Connection: close`, and everything is cut after drainMs. */
  begin(): void;
  /** Stops the drain's timer (the server has closed). */
  done(): void;
};

function trackConnections(server: Server, drainMs: number): Drain {
  const open = new Set<ServerResponse>();
  let closing = false;
  let timer: NodeJS.Timeout | undefined;
  const closeAfter = (response: ServerResponse) => {
    if (!response.headersSent) {
      response.setHeader('connection', 'close');
      return;
    }
    // Headers already out: end the connection once the response is written.
    const socket = response.socket;
    if (response.writableFinished) socket?.end();
    else response.once('finish', () => socket?.end());
  };
  server.on('request', (_request: IncomingMessage, response: ServerResponse) => {
    if (closing) return closeAfter(response);
    open.add(response);
    response.once('close', () => open.delete(response));
  });
  return {
    begin() {
      if (closing) return;
      closing = true;
      for (const response of open) closeAfter(response);
      timer = setTimeout(() => server.closeAllConnections(), drainMs);
      timer.unref();
    },
    done() {
      clearTimeout(timer);
    },
  };
}

/** Drains a Fastify server's connections when it closes (create it with `forceCloseConnections: 'idle'`). */
export function drainOnClose(app: Pick<FastifyInstance, 'server' | 'addHook'>, drainMs: number): void {
  const drain = trackConnections(app.server, drainMs);
  app.addHook('preClose', async () => drain.begin());
  app.addHook('onClose', async () => drain.done());
}
