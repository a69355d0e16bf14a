/**
 * What the HTTP server answers before any request exists (Node's 'clientError'): a header block over
 * the limit (431), a request that did not arrive in time (408), bytes that are not HTTP (400). Written
 * as problem bodies like every other error (Fastify's own handler writes application/json), with the
 * headers every answer carries and a request id of its own; then the connection is closed, as Node does.
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { DomainError } from '../domain/errors.ts';
import { HttpError, presentError, type ApiError } from './errors.ts';

function refusalOf(err: NodeJS.ErrnoException): ApiError {
  if (err.code === 'HPE_HEADER_OVERFLOW')
    return new HttpError('header_fields_too_large', 'the request header fields are larger than the server accepts (16 KiB in all)');
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new HttpError('request_timeout', 'the request did not arrive in time');
  return new DomainError('invalid', 'the request is not valid HTTP/1.1');
}

/** A server 'clientError' listener (Fastify's clientErrorHandler) writing problem bodies; `headers`: those every answer carries. */
export function problemClientErrorHandler(headers: Readonly<Record<string, string>> = {}) {
  return (err: NodeJS.ErrnoException, socket: Socket): void => {
    // A reset connection has nobody to answer.
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    if (socket.writable) {
      const requestId = randomUUID();
      const { media, body } = presentError(refusalOf(err), 'problem', requestId);
      const text = JSON.stringify(body);
      const lines = [
        `HTTP/1.1 ${String(body.status)} ${String(body.title)}`,
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
        `content-type: ${media}; charset=utf-8`,
        `content-length: ${Buffer.byteLength(text)}`,
        `x-request-id: ${requestId}`,
        'cache-control: no-store',
        'connection: close',
      ];
      socket.write(`${lines.join('\r\n')}\r\n\r\n${text}`);
    }
    socket.destroy(err);
  };
}
