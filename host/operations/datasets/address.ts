// Which resolved addresses fetch_url may connect to (docs/reference/datasets.md#fetch-url: only public ones).
import net from 'node:net';

export type AddressClass = 'public' | 'loopback' | 'refused';

export interface AddressVerdict {
  kind: AddressClass;
  /** Why a non-public address is refused (for the Problem detail). */
  why?: string;
}

// IPv4 ranges that are not public unicast (RFC 6890 special-purpose registry and friends).
const V4_RANGES: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared address space (CGNAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved (including broadcast)'],
];

function v4ToInt(address: string): number {
  return address.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

const V4_TABLE = V4_RANGES.map(([base, bits, why]) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { base: (v4ToInt(base) & mask) >>> 0, mask, why };
});

function classifyV4Int(n: number): AddressVerdict {
  for (const r of V4_TABLE) {
    if ((n & r.mask) >>> 0 === r.base) return r.why === 'loopback' ? { kind: 'loopback', why: r.why } : { kind: 'refused', why: r.why };
  }
  return { kind: 'public' };
}

/** Eight 16-bit groups of an IPv6 address (handles `::` and a trailing dotted IPv4). */
export function v6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = v4ToInt(dotted[1]);
    tail.push(n >>> 16, n & 0xffff);
    text = text.slice(0, -dotted[1].length);
    if (text.endsWith(':') && !text.endsWith('::')) text = text.slice(0, -1);
  }
  const [head, rest] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  const fill = 8 - left.length - right.length - tail.length;
  return [...left, ...new Array<number>(rest === undefined ? 0 : fill).fill(0), ...right, ...tail];
}

function embeddedV4(g: number[], at: number): number {
  return ((g[at] << 16) | g[at + 1]) >>> 0;
}

function classifyV6(address: string): AddressVerdict {
  const g = v6Groups(address);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 7) && g[7] === 1) return { kind: 'loopback', why: 'loopback' };
  if (zeros(0, 8)) return { kind: 'refused', why: 'unspecified' };
  // Forms that carry an IPv4 address are judged by it (a NAT64 or mapped public address is public);
  // a non-public one is refused outright, so ::ffff:127.0.0.1 never passes as loopback, even in tests.
  if (zeros(0, 5) && g[5] === 0xffff) return embedded('IPv4-mapped', embeddedV4(g, 6));
  if (zeros(0, 6)) return embedded('IPv4-compatible', embeddedV4(g, 6));
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return embedded('NAT64', embeddedV4(g, 6));
  if (g[0] === 0x64 && g[1] === 0xff9b) return { kind: 'refused', why: 'local-use NAT64' };
  if (g[0] === 0x2002) return embedded('6to4', embeddedV4(g, 1));
  if ((g[0] & 0xfe00) === 0xfc00) return { kind: 'refused', why: 'unique-local' };
  if ((g[0] & 0xffc0) === 0xfe80) return { kind: 'refused', why: 'link-local' };
  if ((g[0] & 0xffc0) === 0xfec0) return { kind: 'refused', why: 'site-local' };
  if ((g[0] & 0xff00) === 0xff00) return { kind: 'refused', why: 'multicast' };
  if (g[0] === 0x2001 && g[1] < 0x200) return { kind: 'refused', why: 'IETF protocol assignments (Teredo, ORCHID, ...)' };
  if (g[0] === 0x2001 && g[1] === 0x0db8) return { kind: 'refused', why: 'documentation' };
  if (g[0] === 0x3fff && g[1] < 0x1000) return { kind: 'refused', why: 'documentation' };
  // Only 2000::/3 is global unicast; everything else is reserved.
  if ((g[0] & 0xe000) !== 0x2000) return { kind: 'refused', why: 'reserved' };
  return { kind: 'public' };
}

function embedded(form: string, v4: number): AddressVerdict {
  const inner = classifyV4Int(v4);
  if (inner.kind === 'public') return inner;
  const dotted = [v4 >>> 24, (v4 >>> 16) & 255, (v4 >>> 8) & 255, v4 & 255].join('.');
  return { kind: 'refused', why: `${form} form of ${dotted} (${inner.why})` };
}

/** Classifies an IP address literal; anything that is not an IP address is refused. */
export function classifyAddress(address: string): AddressVerdict {
  const family = net.isIP(address.split('%')[0]);
  if (family === 4) return classifyV4Int(v4ToInt(address));
  if (family === 6) return classifyV6(address);
  return { kind: 'refused', why: 'not an IP address' };
}

/** docs/reference/datasets.md#fetch-url: public addresses pass; loopback passes only with the explicit test-only setting. */
export function addressAllowed(verdict: AddressVerdict, allowLoopback: boolean): boolean {
  return verdict.kind === 'public' || (verdict.kind === 'loopback' && allowLoopback);
}
