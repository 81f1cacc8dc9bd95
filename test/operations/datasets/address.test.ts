// Which addresses fetch_url may connect to (docs/reference/datasets.md#fetch-url): a table of literals and their verdicts.
import { describe, expect, it } from 'vitest';
import { addressAllowed, classifyAddress, v6Groups } from '../../../host/operations/datasets/address.ts';

const cases: Array<[string, 'public' | 'loopback' | 'refused']> = [
  ['8.8.8.8', 'public'],
  ['93.184.216.34', 'public'],
  ['127.0.0.1', 'loopback'],
  ['127.255.0.9', 'loopback'],
  ['::1', 'loopback'],
  ['0.0.0.0', 'refused'],
  ['10.1.2.3', 'refused'],
  ['100.64.0.1', 'refused'],
  ['100.127.255.255', 'refused'],
  ['100.128.0.1', 'public'],
  ['169.254.169.254', 'refused'],
  ['172.16.0.1', 'refused'],
  ['172.31.255.255', 'refused'],
  ['172.32.0.1', 'public'],
  ['192.0.0.8', 'refused'],
  ['192.168.1.1', 'refused'],
  ['198.18.0.1', 'refused'],
  ['198.19.255.255', 'refused'],
  ['224.0.0.1', 'refused'],
  ['240.0.0.1', 'refused'],
  ['255.255.255.255', 'refused'],
  ['::', 'refused'],
  ['fe80::1', 'refused'],
  ['fe80::1%eth0', 'refused'],
  ['fd00::1', 'refused'],
  ['fc00::1', 'refused'],
  ['ff02::1', 'refused'],
  ['::ffff:127.0.0.1', 'refused'],
  ['::ffff:7f00:1', 'refused'],
  ['::127.0.0.1', 'refused'],
  ['::ffff:10.0.0.1', 'refused'],
  ['::ffff:8.8.8.8', 'public'],
  ['64:ff9b::a00:1', 'refused'],
  ['64:ff9b::808:808', 'public'],
  ['2002:a00:1::', 'refused'],
  ['2001:db8::1', 'refused'],
  ['2001::1', 'refused'],
  ['2606:4700:4700::1111', 'public'],
  ['2a00:1450:4001:81b::200e', 'public'],
  ['100::1', 'refused'],
  ['not-an-ip', 'refused'],
];

describe('classifyAddress', () => {
  it.each(cases)('%s is %s', (address, kind) => {
    expect(classifyAddress(address).kind).toBe(kind);
  });

  it('lets loopback through only with the test-only setting, and nothing else private', () => {
    expect(addressAllowed(classifyAddress('127.0.0.1'), false)).toBe(false);
    expect(addressAllowed(classifyAddress('127.0.0.1'), true)).toBe(true);
    expect(addressAllowed(classifyAddress('::1'), true)).toBe(true);
    for (const a of ['10.0.0.1', '169.254.169.254', 'fd00::1', '::ffff:127.0.0.1']) {
      expect(addressAllowed(classifyAddress(a), true)).toBe(false);
    }
  });

  it('expands IPv6 text forms into eight groups', () => {
    expect(v6Groups('::ffff:127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(v6Groups('fe80::1')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(v6Groups('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(v6Groups('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });
});
