// Requests Node's HTTP parser refuses before any route sees them (a header block past its size limit, a
// malformed request line, a request whose headers or body took longer than the connection timeouts of
// host/http/connection-timeouts.ts): answered as a Problem like every other error, not Node's bare
// plain-text 431, 400 or 408, then the connection is closed.
import { maxHeaderSize, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { ServiceError, toProblem } from '../errors.ts';
import { PROBLEM_CONTENT_TYPE } from './errors.ts';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.ts';
import { CONNECTION_TIMEOUTS } from './connection-timeouts.ts';

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/**
 * The Problem for a parser error: 431 headers_too_large for too many header bytes, 408 request_timeout for
 * headers or a body that did not arrive in time, else 400 bad_request.
 */
export function clientErrorOf(err: { code?: string; message?: string }, maxHeaderSize: number): ServiceError {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ServiceError(
      'request_timeout',
      `The request did not arrive in time (its headers within ${Math.round(CONNECTION_TIMEOUTS.headersMs / 1000)} s, ` +
        `the whole of it within ${Math.round(CONNECTION_TIMEOUTS.requestMs / 1000)} s); nothing was done.`,
    );
  }
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    return new ServiceError(
      'headers_too_large',
      `The request's headers are larger than this server reads (${maxHeaderSize} bytes in all); nothing was read.`,
    );
  }
  return new ServiceError('bad_request', `The request is not well-formed HTTP (${err.code ?? 'parse error'}); nothing was read.`);
}

/** Installs the handler on `server`; `baseUrl` is read at each error (it is known only once listening). */
export function answerClientErrors(server: Server, baseUrl: () => string): void {
  server.on('clientError', (err: Error & { code?: string }, socket: Duplex) => {
    // A client that went away, or a response already started: nothing can be written.
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const problem = toProblem(clientErrorOf(err, maxHeaderSize), baseUrl(), requestIdOf(undefined));
    const body = JSON.stringify(problem);
    socket.end(
      `HTTP/1.1 ${problem.status} ${REASONS[problem.status] ?? 'Error'}\r\n` +
        `content-type: ${PROBLEM_CONTENT_TYPE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `${REQUEST_ID_HEADER}: ${problem.request_id}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
}
