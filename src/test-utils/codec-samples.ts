/**
 * Seeded sample data for codec round-trip tests: blocks of 32 drawn from several distributions,
 * including the edge cases a block quantizer must survive (all equal, all zero, one outlier,
 * negative only, a narrow range far from zero).
 */
const { cos, log, sqrt, PI } = Math;

/** mulberry32: a small seeded PRNG returning floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal samples (Box–Muller) from a uniform source. */
export function gaussian(rand: () => number): () => number {
  return () => sqrt(-2 * log(1 - rand())) * cos(2 * PI * rand());
}

export interface SampleBlock {
  name: string;
  values: Float32Array;
}

/** Named blocks of `block` elements each, deterministic for a seed. */
export function sampleBlocks(seed: number, block = 32): SampleBlock[] {
  const rand = mulberry32(seed);
  const normal = gaussian(rand);
  const make = (name: string, f: (i: number) => number): SampleBlock => ({
    name,
    values: Float32Array.from({ length: block }, (_, i) => f(i)),
  });
  return [
    make('gaussian', () => normal()),
    make('gaussian wide', () => 40 * normal()),
    make('uniform [-3, 5]', () => -3 + 8 * rand()),
    make('all equal 0.3', () => 0.3),
    make('all equal -7.25', () => -7.25),
    make('all zero', () => 0),
    make('one outlier', (i) => (i === 11 ? 100 : 0.01 * (rand() - 0.5))),
    make('negative outlier', (i) => (i === 30 ? -250 : rand())),
    make('negative only', () => -1 - rand()),
    make('positive only', () => 1 + 2 * rand()),
    make('narrow far from zero', () => 1000 + 0.5 * rand()),
    make('small', () => 1e-3 * normal()),
    make('sparse', () => (rand() < 0.8 ? 0 : normal())),
  ];
}

/** All sample blocks laid end to end in one row. */
export function sampleRow(seed: number, block = 32): Float32Array {
  const blocks = sampleBlocks(seed, block);
  const row = new Float32Array(blocks.length * block);
  blocks.forEach((b, i) => row.set(b.values, i * block));
  return row;
}
