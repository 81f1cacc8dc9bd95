// How long the server keeps a connection, decided against the clients and load balancers in front of it
// (docs/guides/overload.md, "Connections"). Measured on Node 24 (test/http/connection-timeouts.test.ts):
// - keepAliveTimeout is the idle time between requests after which the server closes a connection (plus
//   Node's own keepAliveTimeoutBuffer of 1 s); the reply's `Keep-Alive: timeout=65` tells clients so, and
//   undici (Node's fetch) then closes its side a second earlier. It must be longer than any idle time of a
//   client or load balancer that reuses connections (undici 4 s, Node's http.Agent 5 s, HAProxy's pool of
//   idle server connections 5 s, AWS ALB 60 s, nginx upstream keepalive 60 s), so the server is never the
//   side that closes a connection just as the other side sends on it: a reset the client cannot safely
//   retry for a POST.
// - headersTimeout runs from the first byte of a request to the end of its headers; it does not run while a
//   keep-alive connection is idle (so it need not exceed keepAliveTimeout, as older Node needed). It bounds
//   how long a client that sends headers slowly holds a connection: HAProxy's `timeout http-request`.
// - requestTimeout runs from the first byte of a request to the end of its body: the slowest upload taken
//   in one request (a 100 MB presigned PUT needs about 350 KB/s); a slower link sends the file in pieces,
//   each its own request.
// Both timeouts are checked every connectionsCheckingInterval, so they fire up to that much late; either
// ends the request with 408 request_timeout and `Connection: close` (host/http/client-errors.ts).

export interface ConnectionTimeouts {
  keepAliveMs: number;
  headersMs: number;
  requestMs: number;
  /** How often Node checks the two timeouts above (a server option, set when the server is made). */
  checkEveryMs: number;
}

export const CONNECTION_TIMEOUTS: ConnectionTimeouts = {
  keepAliveMs: 65_000,
  headersMs: 30_000,
  requestMs: 300_000,
  checkEveryMs: 5_000,
};
