/**
 * A seeded PRNG (splitmix32): every fuzz input is a pure function of (campaign seed, target, index), so a finding
 * is reproduced from the three numbers the campaign prints, on any machine, without the input file.
 */
export interface Rng {
  /** A uint32. */
  u32(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  /** One element of a non-empty list. */
  pick<T>(xs: readonly T[]): T;
  chance(p: number): boolean;
}

export function rng(seed: number): Rng {
  let s = seed >>> 0;
  const u32 = (): number => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  const int = (n: number): number => (n <= 1 ? 0 : Math.floor((u32() / 2 ** 32) * n));
  return {
    u32,
    int,
    pick: <T>(xs: readonly T[]): T => xs[int(xs.length)] as T,
    chance: (p: number) => u32() / 2 ** 32 < p,
  };
}

/** FNV-1a of a string: the per-input seed from the campaign seed, the target's name and the input's index. */
export function inputSeed(seed: number, target: string, index: number): number {
  let h = 0x811c9dc5;
  for (const ch of `${seed}/${target}/${index}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h;
}
