// Fixed, well-known hashing and an integer PRNG: FNV-1a 64 for entity ids, splitmix64 for seeded draws
// (docs/design/engine.md#step-1: no host randomness, no clock).

const FNV_OFFSET: u64 = 0xcbf29ce484222325;
const FNV_PRIME: u64 = 0x100000001b3;

/** FNV-1a 64 of `len` bytes at `p`. */
export function fnv1a64(p: usize, len: i32): u64 {
  let h = FNV_OFFSET;
  for (let i = 0; i < len; i++) {
    h ^= <u64>load<u8>(p + <usize>i);
    h *= FNV_PRIME;
  }
  return h;
}

/** splitmix64 finaliser: a well-mixed 64-bit value from any 64-bit input. */
export function mix64(x: u64): u64 {
  let z = x + 0x9e3779b97f4a7c15;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
  z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
  return z ^ (z >> 31);
}
