/**
 * Tile parameters of the register-tiled GEMM (gemm-wgsl.ts has the WGSL, gemm.ts the API): the sets
 * the device ladder chooses from, their thread and memory needs, and the shader key.
 */

/** Tile sizes: compile-time constants, all in the shader key. */
export interface GemmTiles {
  /** Rows of C per workgroup. */
  bm: number;
  /** Columns of C per workgroup. */
  bn: number;
  /** k per step (staged tile depth). */
  bk: number;
  /** Rows per thread (multiple of 4). */
  tm: number;
  /** Columns per thread (multiple of 4). */
  tn: number;
  /** Two k-steps per loop iteration, each with its tile buffers at constant offsets. */
  pairs?: boolean;
}

/**
 * 64×128 tiles, BK 8, 8×8 per thread, 128 threads, 12 KiB: in the H200 sweep over 12 tile sets
 * (the GEMM benchmark's --sweep) the one
 * within a few % of the best on every projection at T = 512…8192 (o_proj at T = 512: 4.3 ms, where
 * 128×128×8 took 14.3 ms). K-steps in pairs (buffers at constant offsets): 3–14 % faster on the
 * projections (gemm-bench --pairs on the H200: o_proj at T = 8192
 * 53.5 against 55.1 ms, at T = 512 4.0 against 4.6).
 */
export const DEFAULT_GEMM_TILES: GemmTiles = { bm: 64, bn: 128, bk: 8, tm: 8, tn: 8, pairs: true };

/**
 * 64×64, BK 16, 4×4 per thread (256 threads, 16 KiB): more workgroups for small products (kv_a_proj's
 * 576 columns, few tokens); k-steps in pairs. Faster than FALLBACK on every product where the
 * default gives too few workgroups (kv_a_proj at T = 512: 0.77 against 1.02 ms; q_a_proj 0.86 against 1.23).
 */
export const MID_GEMM_TILES: GemmTiles = { bm: 64, bn: 64, bk: 16, tm: 4, tn: 4, pairs: true };

/** Where neither fits the device (16 KiB of workgroup memory is WebGPU's default): 64×64, BK 8, 4×8 per thread, 128 threads, 8 KiB. */
export const FALLBACK_GEMM_TILES: GemmTiles = { bm: 64, bn: 64, bk: 8, tm: 4, tn: 8, pairs: true };

/**
 * Workgroups below which a product takes the next smaller tiles: two per SM of the H200 (132 SMs), so
 * that a small product (few tokens, or kv_a_proj's 576 columns) still fills the GPU.
 */
export const MIN_GEMM_WORKGROUPS = 264;

/** Threads per workgroup for `t`. */
export const gemmThreads = (t: GemmTiles): number => (t.bm / t.tm) * (t.bn / t.tn);

/** Bytes of workgroup memory (two buffers of the A and B tiles). */
export const gemmTileBytes = (t: GemmTiles): number => 2 * 4 * t.bk * (t.bm + t.bn);

/** Why `t` cannot be used (the thread mapping needs exact divisions), or null. */
export function gemmTilesProblem(t: GemmTiles): string | null {
  const vals = [t.bm, t.bn, t.bk, t.tm, t.tn];
  if (!vals.every((v) => Number.isInteger(v) && v > 0)) return `tile sizes must be positive integers, got ${JSON.stringify(t)}`;
  if (t.tm % 4 || t.tn % 4 || t.bk % 4) return `tm (${t.tm}), tn (${t.tn}) and bk (${t.bk}) must be multiples of 4`;
  if (t.bm % t.tm || t.bn % t.tn) return `tm (${t.tm}) must divide bm (${t.bm}) and tn (${t.tn}) divide bn (${t.bn})`;
  const threads = gemmThreads(t);
  if (((t.bm * t.bk) / 4) % threads || ((t.bk * t.bn) / 4) % threads) {
    return `threads (${threads}) must divide the vec4 loads of the A tile (${(t.bm * t.bk) / 4}) and of the B tile (${(t.bk * t.bn) / 4})`;
  }
  return null;
}

/** Whether A (K % 4 = 0) and B, C (N % 4 = 0) are read and written as vec4. */
export interface GemmVec {
  a: boolean;
  b: boolean;
}

/** Shader key: everything gemmShader bakes in (tfjs keys pipelines by this, not by shapes). */
export function gemmShaderKey(t: GemmTiles, vec: GemmVec): string {
  return `mlaGemm_m${t.bm}_n${t.bn}_k${t.bk}_tm${t.tm}_tn${t.tn}${t.pairs ? '_p2' : ''}_a${vec.a ? 4 : 1}_b${vec.b ? 4 : 1}`;
}
