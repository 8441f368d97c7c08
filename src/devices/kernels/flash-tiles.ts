/**
 * Tile parameters of the flash-attention kernel (flash-wgsl.ts): compile-time constants, all in
 * the shader key. S = Q·Kᵀ of a rows×keys tile is a register-tiled micro-GEMM: threads arranged
 * (rows/scoreRows) × (keys/scoreKeys), each owning scoreRows×scoreKeys logits, over D in chunks
 * of `chunk` columns staged transposed in workgroup memory. O (rows×E) lives in registers: threads
 * arranged (rows/outRows) row groups × TXo column groups, each owning outRows rows × NV vec4
 * columns (col = (j·TXo + tx)·4); V is staged `valueKeys` keys at a time.
 */
export interface FlashTiles {
  /** Query rows per workgroup (BR). */
  rows: number;
  /** Keys per tile (BC). */
  keys: number;
  /** Columns of Q and K per staged chunk (DC). */
  chunk: number;
  /** Threads per workgroup: (rows/scoreRows)·(keys/scoreKeys). */
  threads: number;
  /** Logit rows per thread (multiple of 4). */
  scoreRows: number;
  /** Logit keys per thread (multiple of 4). */
  scoreKeys: number;
  /** Output rows per thread (multiple of 4). */
  outRows: number;
  /** Keys of V per staged sub-chunk (divides keys). */
  valueKeys: number;
  /** Fetch the next V sub-chunk into registers while the current one is multiplied (as Q and K are). */
  prefetchV?: boolean;
  /** Unroll the per-column (Q·Kᵀ) and per-key (P·V) loops in the WGSL, constant indices throughout. */
  unroll?: boolean;
}

/** The derived layout for one (tiles, D, E): counts in vec4 unless named otherwise. */
export interface FlashLayout {
  /** Row groups × key groups of the logit micro-GEMM. */
  ty: number;
  tx: number;
  /** Row groups × column groups of the output micro-GEMM; vec4 columns per thread. */
  oy: number;
  ox: number;
  nv: number;
  /** Staged widths (vec4 per staged row): Qᵀ, Kᵀ (padded by one), V (E padded to ox·nv·4), Pᵀ. */
  qs4: number;
  ks4: number;
  ep4: number;
  ps4: number;
  /** vec4 of the shared staging area (Qᵀ+Kᵀ chunk, or a V sub-chunk), of Pᵀ; floats of the partials. */
  stage: number;
  p: number;
  red: number;
}

export function flashLayout(t: FlashTiles, E: number): FlashLayout {
  const ty = t.rows / t.scoreRows,
    tx = t.keys / t.scoreKeys;
  const oy = t.rows / t.outRows,
    ox = t.threads / oy;
  const nv = Math.ceil(E / (4 * ox));
  const qs4 = t.rows / 4 + 1,
    ks4 = t.keys / 4 + 1,
    ep4 = nv * ox,
    ps4 = t.rows / 4;
  const stage = Math.max(t.chunk * (qs4 + ks4), t.valueKeys * ep4);
  return { ty, tx, oy, ox, nv, qs4, ks4, ep4, ps4, stage, p: t.keys * ps4, red: tx * t.rows };
}

/** Bytes of workgroup memory the program declares for `t` at value width E. */
export function tileBytes(t: FlashTiles, E: number): number {
  const l = flashLayout(t, E);
  return 16 * (l.stage + l.p) + 4 * (l.red + 2 * t.rows + 1);
}

/** Output floats each thread keeps in registers (outRows · 4·nv). */
export function accumulatorFloats(t: FlashTiles, E: number): number {
  return t.outRows * 4 * flashLayout(t, E).nv;
}

/** Why `t` cannot be used (the thread mappings need exact divisions), or null. */
export function tilesProblem(t: FlashTiles): string | null {
  const vals = [t.rows, t.keys, t.chunk, t.threads, t.scoreRows, t.scoreKeys, t.outRows, t.valueKeys];
  if (!vals.every((v) => Number.isInteger(v) && v > 0)) return 'tile sizes must be positive integers';
  for (const [name, v] of [
    ['scoreRows', t.scoreRows],
    ['scoreKeys', t.scoreKeys],
    ['outRows', t.outRows],
  ] as const) {
    if (v % 4 !== 0) return `${name} (${v}) must be a multiple of 4`;
  }
  if (t.rows % t.scoreRows !== 0 || t.keys % t.scoreKeys !== 0)
    return `scoreRows (${t.scoreRows}) and scoreKeys (${t.scoreKeys}) must divide rows (${t.rows}) and keys (${t.keys})`;
  const logitThreads = (t.rows / t.scoreRows) * (t.keys / t.scoreKeys);
  if (logitThreads !== t.threads) return `threads (${t.threads}) must equal (rows/scoreRows)·(keys/scoreKeys) = ${logitThreads}`;
  if (t.rows % t.outRows !== 0 || t.threads % (t.rows / t.outRows) !== 0)
    return `outRows (${t.outRows}) must divide rows (${t.rows}) and rows/outRows must divide threads (${t.threads})`;
  if (t.keys % t.valueKeys !== 0) return `valueKeys (${t.valueKeys}) must divide keys (${t.keys})`;
  if (t.rows > t.threads) return `rows (${t.rows}) must not exceed threads (${t.threads})`;
  return null;
}

/** The device limits the defaults are chosen within. */
export interface TileLimits {
  maxComputeWorkgroupStorageSize: number;
  maxComputeInvocationsPerWorkgroup: number;
}

// V through registers: 15.9 against 15.2 TFLOP/s (MHA), 18.5 against 17.4 (MQA) on the H200 (issue 8, second round);
// the micro-GEMM loops (and the row max/sum over the key groups) unrolled: 16.3 against 15.7 (MHA), 19.2 against 17.9 (MQA)
// (issue 8, third round; two Q/K chunk buffers ran at 13.6 / 15.2 there: not taken).
// The compiler does not unroll these loops itself: chunk 32 as a loop ran the MQA form at 7.4 (5-unroll).
const tiles = (rows: number, keys: number, threads: number, valueKeys: number, o: Partial<FlashTiles> = {}): FlashTiles => ({
  rows,
  keys,
  chunk: 16,
  threads,
  scoreRows: 4,
  scoreKeys: 4,
  outRows: 4,
  valueKeys,
  prefetchV: true,
  unroll: true,
  ...o,
});

/**
 * Candidates per form, fastest first (the H200's 48 KiB first, then ones within 32 KiB, then the
 * WebGPU default 16 KiB / 256 threads). H200 sweeps, every set unrolled (issue 8, fifth round):
 * - NARROW (MHA, E = 256): 64 rows × 128 keys with 8×4 logits per thread (chunk 8, 4 V keys per
 *   stage, 47.9 KB): 1.33 against 2.84 ms at T = 512, 7.7 against 8.4 at 2048, 96.9 against 108.3
 *   at 8192 for the earlier default, 64 × 64 with 4×4 (the next entry; 1-tiles-fast, 3-tiles-mha).
 * - NARROW_LONG, from LONG_ROWS query rows per head: 128 rows × 64 keys, 512 threads, 8 output rows
 *   each: 91.7 against 97.1 ms at T = 8192, 7.63 against 7.71 at 2048, but 1.37 against 1.16 at 512
 *   (7-ab-candidates).
 * - WIDE (MQA, the 512-wide latent): 64 rows × 64 keys (O at 128 floats per thread; 32 rows were
 *   13.1 against 17.1 TFLOP/s in an H200 sweep), Q and K staged 32 columns at a
 *   time, each thread's output 8 rows × 16 columns, V staged 4 keys at a time: 180.8 ms at T = 8192
 *   (7-ab-candidates; 184.5 with 8 V keys, 209.4 for chunk 16 with 4 rows × 32 columns, 5-mqa-candidates).
 */
const NARROW = [
  tiles(64, 128, 256, 4, { chunk: 8, scoreRows: 8 }),
  tiles(64, 64, 256, 16),
  tiles(64, 64, 256, 8),
  tiles(32, 64, 128, 8),
  tiles(32, 64, 128, 4, { chunk: 8 }),
  tiles(16, 32, 32, 8),
];
const NARROW_LONG = [tiles(128, 64, 512, 4, { chunk: 8, outRows: 8 }), ...NARROW];
const WIDE = [
  tiles(64, 64, 256, 4, { chunk: 32, outRows: 8 }),
  tiles(64, 64, 256, 8),
  tiles(64, 64, 256, 4),
  tiles(32, 128, 256, 8),
  tiles(32, 128, 256, 4),
  tiles(32, 64, 128, 4),
  tiles(16, 32, 32, 4),
];

/** Query rows per head from which the MHA form takes NARROW_LONG. */
export const LONG_ROWS = 4096;

/** The default tiles for D×E (and `rows` query rows per head) within `limits` (the H200's when none given); the smallest if none fits. */
export function defaultTiles(D: number, E: number, limits?: TileLimits, rows = 0): FlashTiles {
  void D; // the logit side fits any D (it is staged in chunks); E sizes the output registers and V stage
  const list = E > 256 ? WIDE : rows >= LONG_ROWS ? NARROW_LONG : NARROW;
  const fits = (t: FlashTiles) =>
    !limits || (tileBytes(t, E) <= limits.maxComputeWorkgroupStorageSize && t.threads <= limits.maxComputeInvocationsPerWorkgroup);
  return list.find(fits) ?? list[list.length - 1]!;
}

/** Shader key: everything flashShader bakes in (tfjs keys pipelines by this, not by shapes). */
export function flashShaderKey(t: FlashTiles, D: number, E: number, vFromK: boolean): string {
  return (
    `mlaFlashAttn2_r${t.rows}_k${t.keys}_c${t.chunk}_w${t.threads}_sr${t.scoreRows}_sk${t.scoreKeys}_or${t.outRows}_vk${t.valueKeys}` +
    `_pv${t.prefetchV ? 1 : 0}_u${t.unroll ? 1 : 0}_d${D}_e${E}_${vFromK ? 'vk' : 'v'}`
  );
}

/** Workgroups that keep the GPU busy (the H200 has 132 SMs; two workgroups each). */
const BUSY_WORKGROUPS = 264;

/**
 * Split-KV for few row blocks over many keys (decode: 64 heads of one token are one or two
 * workgroups): the keys are cut into parts of whole key tiles, each part a workgroup of its own,
 * merged by LSE (flash-merge.ts). Parts of at least 4 key tiles; `forced` overrides the choice.
 */
export function splitKv(workgroups: number, S: number, keysPerTile: number, forced?: number): { splits: number; splitKeys: number } {
  const tiles = Math.max(1, Math.ceil(S / keysPerTile));
  const want = forced ?? Math.min(Math.ceil(BUSY_WORKGROUPS / Math.max(1, workgroups)), Math.floor(tiles / 4));
  const per = Math.ceil(tiles / Math.max(1, Math.min(want, tiles))); // key tiles per part
  return { splits: Math.ceil(tiles / per), splitKeys: per * keysPerTile };
}
