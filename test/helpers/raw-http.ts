// HTTP/1.1 over a raw socket: requests written in order, replies parsed as they come, and whether the
// server ended the connection. Nothing between the test and the server opens a second connection behind
// its back or retries, so a connection closed under a request shows as exactly that.
import net from 'node:net';

export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One client connection: requests written in order, replies parsed as they come (content-length or chunked). */
export class Connection {
  private buffer = Buffer.alloc(0);
  private waiting: (() => void) | null = null;
  ended = false;
  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (d: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, d]);
      this.waiting?.();
    });
    const end = () => {
      this.ended = true;
      this.waiting?.();
    };
    socket.on('end', end);
    socket.on('close', end);
    socket.on('error', end);
  }

  static async open(url: string): Promise<Connection> {
    const { hostname, port } = new URL(url);
    const socket = net.connect(Number(port), hostname);
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return new Connection(socket);
  }

  send(method: string, path: string, headers: Record<string, string>, body?: Buffer): void {
    const lines = Object.entries({ host: 'localhost', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
    this.socket.write(`${method} ${path} HTTP/1.1\r\n${lines.join('')}\r\n`);
    if (body) this.socket.write(body);
  }

  /** Raw bytes on the connection (a request written slowly, a piece at a time). */
  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** The next whole reply; rejects if the connection ends first. */
  async reply(): Promise<Reply> {
    for (;;) {
      const parsed = this.parse();
      if (parsed) return parsed;
      if (this.ended) throw new Error(`the connection ended before a whole reply (${this.buffer.length} bytes of one)`);
      await new Promise<void>((resolve) => (this.waiting = resolve));
      this.waiting = null;
    }
  }

  /** Resolves once the server has ended the connection. */
  async closed(): Promise<void> {
    while (!this.ended) await new Promise<void>((resolve) => (this.waiting = resolve));
  }

  close(): void {
    this.socket.destroy();
  }

  private parse(): Reply | null {
    const headEnd = this.buffer.indexOf('\r\n\r\n');
    if (headEnd < 0) return null;
    const [statusLine, ...lines] = this.buffer.subarray(0, headEnd).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    let at = headEnd + 4;
    let body: Buffer;
    if (headers['transfer-encoding'] === 'chunked') {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = this.buffer.indexOf('\r\n', at);
        if (lineEnd < 0) return null;
        const size = parseInt(this.buffer.subarray(at, lineEnd).toString('latin1'), 16);
        if (this.buffer.length < lineEnd + 2 + size + 2) return null;
        parts.push(this.buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(parts);
    } else {
      const length = Number(headers['content-length'] ?? 0);
      if (this.buffer.length < at + length) return null;
      body = this.buffer.subarray(at, at + length);
      at += length;
    }
    this.buffer = this.buffer.subarray(at);
    return { status: Number(statusLine.split(' ')[1]), headers, body: body.toString('utf8') };
  }
}
