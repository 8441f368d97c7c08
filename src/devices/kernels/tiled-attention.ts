import type * as tfc from '@tensorflow/tfjs-core';
import type { Attended, EmptyLse } from './attention';
import type { AttentionMask } from './attention-kernel';
import { attend } from './attention';
import type { Batched } from './matmul';
import { matmul } from './matmul';

/**
 * Causal mask of a flash kernel: query row b belongs to token ⌊b / rowsPerToken⌋ (rowsPerToken = N
 * when the queries of all heads are packed as rows, as forward_mqa does) and sees key s iff
 * s ≤ token + offset (offset = S − T: bottom-right causal).
 */
export type FlashMask = AttentionMask;

/** The arguments of a fused attention kernel (the WebGPU one in src/devices/kernels takes the same). */
export interface FlashArgs {
  q: tfc.Tensor3D; // [A,B,D]
  k: tfc.Tensor3D; // [A|1,S,D]
  /** [A|1,S,E]; null: V = k[..., :vDim] (the latent, forward_mqa). */
  v: tfc.Tensor3D | null;
  vDim?: number;
  scale: number;
  mask: FlashMask | null;
  /** LSE of a row that saw no key at all (S = 0). */
  emptyLse: EmptyLse;
  /** Where the kernel stores P in the input dtype before P·V (see attend). */
  castP?: (p: tfc.Tensor3D) => tfc.Tensor3D;
  /**
   * Token-major q [B,A,D], k [S,A|1,D], v [S,A|1,E] and out [B,A,E] (lse, max [A,B]): blockAttention
   * hands them to a kernel that reads them so (AttentionFn.tokenMajor), else transposes around it.
   */
  tokens?: boolean;
}

export interface TileOptions {
  batched: Batched;
  /** Largest score tile in elements (A · rows · keys); the query block is sized from it. */
  tileElements?: number;
}

const DEFAULT_TILE = 1 << 23; // 32 MiB of fp32 scores per tile

/** Query rows per block: a multiple of rowsPerToken, at least one token, the tile within budget. */
export function queryBlockRows(A: number, B: number, S: number, rowsPerToken: number, tileElements = DEFAULT_TILE): number {
  const tokens = Math.max(1, Math.floor(tileElements / (Math.max(1, A * S) * rowsPerToken)));
  return Math.min(B, tokens * rowsPerToken);
}

/** Additive mask [rows, keys] of query rows [b0, b0+rows) against keys [0, keys): 0 seen, −∞ hidden. */
function blockBias(tf: typeof tfc, b0: number, rows: number, keys: number, m: FlashMask): tfc.Tensor2D {
  const bias = new Float32Array(rows * keys);
  for (let i = 0; i < rows; i++) {
    const last = Math.floor((b0 + i) / m.rowsPerToken) + m.offset; // last key the row sees
    for (let s = last + 1; s < keys; s++) bias[i * keys + s] = -Infinity;
    if (last < 0) bias.fill(-Infinity, i * keys, (i + 1) * keys);
  }
  return tf.tensor2d(bias, [rows, keys]);
}

/**
 * softmax(scale · q·kᵀ + mask)·v, its natural-log LSE and row max, as `attend` on the full [A,B,S]
 * logits gives them, computed a query block at a time so that no score tensor over `tileElements`
 * is alive: memory O(A·rows·S) instead of O(A·B·S). Under a causal mask a block reads only the keys
 * its last row sees (the rest are −∞ for every row of it and add exact zeros). Each block goes
 * through `attend` itself, so a row's arithmetic is the unfused one.
 */
export function tiledAttention(tf: typeof tfc, a: FlashArgs, opts: TileOptions): Attended {
  const [A, B] = a.q.shape;
  const S = a.k.shape[1];
  const E = a.v ? a.v.shape[2] : (a.vDim ?? a.k.shape[2]);
  if (S === 0) {
    // no key at all: what attend gives (out 0, lse per emptyLse)
    const none = [tf.zeros([A, B, 0]) as tfc.Tensor3D, tf.zeros([a.k.shape[0], 0, E]) as tfc.Tensor3D] as const; // [A,B,0], [A|1,0,E]
    const r = attend(none[0], none[1], opts.batched, false, a.emptyLse);
    tf.dispose([...none]);
    return r;
  }
  const rpt = a.mask?.rowsPerToken ?? 1;
  const rows = queryBlockRows(A, B, S, rpt, opts.tileElements);
  const Ak = a.k.shape[0];
  const v = a.v ?? (tf.slice(a.k, [0, 0, 0], [Ak, S, E]) as tfc.Tensor3D); // [A|1,S,E]
  const take = (x: tfc.Tensor3D, b: number, n: number): tfc.Tensor3D =>
    n === x.shape[1] ? x : (tf.slice(x, [0, b, 0], [x.shape[0], n, x.shape[2]]) as tfc.Tensor3D); // rows [b, b+n) of axis 1
  const parts: Attended[] = [];
  for (let b0 = 0; b0 < B; b0 += rows) {
    const n = Math.min(rows, B - b0);
    // Keys the block needs: up to what its last row sees (at least one, so a fully hidden row stays "masked").
    const keys = a.mask ? Math.min(S, Math.max(1, Math.floor((b0 + n - 1) / rpt) + a.mask.offset + 1)) : S;
    parts.push(
      tf.tidy(() => {
        const logits = tf.mul(matmul(take(a.q, b0, n), take(a.k, 0, keys), true, opts.batched), a.scale) as tfc.Tensor3D; // [A,n,keys]
        // [A,n,keys]
        const scores = a.mask ? (tf.add(logits, tf.expandDims(blockBias(tf, b0, n, keys, a.mask), 0)) as tfc.Tensor3D) : logits;
        const r = attend(scores, take(v, 0, keys), opts.batched, a.mask !== null, a.emptyLse, a.castP); // v rows [A|1,keys,E]
        return { out: r.out, lse: r.lse, max: r.max };
      }),
    );
  }
  if (!a.v) tf.dispose(v);
  if (parts.length === 1) return parts[0]!;
  const cat = <X extends tfc.Tensor>(xs: X[]) => {
    const c = tf.concat(xs, 1) as X;
    tf.dispose(xs);
    return c;
  };
  // [A,B,E], [A,B], [A,B]
  return { out: cat(parts.map((p) => p.out)), lse: cat(parts.map((p) => p.lse)), max: cat(parts.map((p) => p.max)) };
}
