import type * as tfc from '@tensorflow/tfjs-core';
import type { EmptyLse } from './attention';
import type { AttentionMask } from './attention-kernel';
import { MlaDiffError } from '../../errors';
import type { FlashTiles } from './flash-tiles';
import { defaultTiles, splitKv, tileBytes, tilesProblem } from './flash-tiles';

/**
 * The request, result and plan of the flash-attention program (flash-attention.ts has the layouts,
 * mask and limits): shapes and device limits checked up front, pure (no GPU), so every error path
 * is testable anywhere.
 */

/** Causal visibility: row b sees keys s ≤ offset + floor(b / rowsPerToken). */
export type FlashMask = AttentionMask;

export interface FlashRequest {
  q: tfc.Tensor3D; // [A,B,D]
  k: tfc.Tensor3D; // [A|1,S,D]
  v: tfc.Tensor3D | null; // [A|1,S,E], or null: V = k[:, :, :E]
  /** Width E of V when v is null (required then); must equal v's last axis otherwise. */
  valueWidth?: number;
  scale: number;
  mask: FlashMask | null;
  emptyLse?: EmptyLse;
  tiles?: FlashTiles;
  /** 'heads' (default): q [A,B,D], k [A|1,S,D], v [A|1,S,E], out [A,B,E]; 'tokens': q [B,A,D], k [S,A|1,D], v [S,A|1,E], out [B,A,E]. */
  layout?: 'heads' | 'tokens';
  /** Split-KV parts (flash-decoding): absent = chosen by splitKv; 1 = none. */
  splits?: number;
}

export interface FlashResult {
  out: tfc.Tensor3D; // [A,B,E] ([B,A,E] for layout 'tokens')
  lse: tfc.Tensor2D; // [A,B]
  max: tfc.Tensor2D; // [A,B]
}

/** The device limits the kernel checks (GPUDevice.limits). */
export interface FlashLimits {
  maxStorageBufferBindingSize: number;
  maxComputeWorkgroupStorageSize: number;
  maxComputeInvocationsPerWorkgroup: number;
  maxComputeWorkgroupsPerDimension: number;
}

export interface FlashPlan {
  A: number;
  B: number;
  S: number;
  D: number;
  E: number;
  vFromK: boolean;
  tokens: boolean;
  /** Heads of k and of v (1: shared). */
  Ak: number;
  Av: number;
  tiles: FlashTiles;
  /** Split-KV parts and the keys of each (a multiple of tiles.keys). */
  splits: number;
  splitKeys: number;
}

const bad = (message: string): MlaDiffError => new MlaDiffError('invalid-value', `flashAttention: ${message}`, { field: 'flashAttention' });
const tooBig = (message: string, hint: string): MlaDiffError =>
  new MlaDiffError('device-limit', `flashAttention: ${message}`, { field: 'flashAttention' }, hint);

/** Shapes and limits checked up front; pure (no GPU), so every error path is testable anywhere. */
export function planFlash(req: FlashRequest, limits: FlashLimits): FlashPlan {
  const tokens = req.layout === 'tokens';
  // [heads, rows, width] of a tensor in the request's layout.
  const hrw = (t: tfc.Tensor3D): [number, number, number] => (tokens ? [t.shape[1], t.shape[0], t.shape[2]] : t.shape);
  const [A, B, D] = hrw(req.q);
  const [Ak, S, Dk] = hrw(req.k);
  if (Dk !== D) throw bad(`k's width ${Dk} differs from q's ${D}`);
  if (Ak !== A && Ak !== 1) throw bad(`k has ${Ak} heads; q has ${A} (k may have 1, shared)`);
  const vFromK = req.v === null;
  const E = req.v ? req.v.shape[2] : (req.valueWidth ?? -1);
  const Av = req.v ? hrw(req.v)[0] : Ak;
  if (req.v) {
    const [, Sv] = hrw(req.v);
    if (Av !== A && Av !== 1) throw bad(`v has ${Av} heads; q has ${A}`);
    if (Sv !== S) throw bad(`v has ${Sv} keys; k has ${S}`);
    if (req.valueWidth !== undefined && req.valueWidth !== E) throw bad(`valueWidth ${req.valueWidth} differs from v's width ${E}`);
  } else if (!Number.isInteger(E) || E < 1 || E > D) {
    throw bad(`with v null, valueWidth must be an integer in 1..${D} (V = the first E columns of k), got ${req.valueWidth}`);
  }
  if (!Number.isFinite(req.scale)) throw bad(`scale must be finite, got ${req.scale}`);
  if (req.mask && (!Number.isInteger(req.mask.offset) || !Number.isInteger(req.mask.rowsPerToken) || req.mask.rowsPerToken < 1)) {
    throw bad(`mask needs an integer offset and an integer rowsPerToken ≥ 1, got ${JSON.stringify(req.mask)}`);
  }
  for (const [name, t] of [
    ['q', req.q],
    ['k', req.k],
    ['v', req.v],
  ] as const) {
    if (t && t.dtype !== 'float32') throw bad(`${name} must be float32, got ${t.dtype}`);
  }
  const tiles = req.tiles ?? defaultTiles(D, E, limits, B);
  const problem = tilesProblem(tiles);
  if (problem) throw bad(problem);
  const hint = 'split the call by heads or query rows (and merge key ranges by LSE)';
  const bytes: [string, number][] = [
    ['q', A * B * D],
    ['k', Ak * S * D],
    ['v', req.v ? req.v.size : 0],
    ['output', A * B * (E + 2)],
  ];
  for (const [name, n] of bytes) {
    if (4 * n > limits.maxStorageBufferBindingSize)
      throw tooBig(`${name} needs ${4 * n} bytes, over the binding limit ${limits.maxStorageBufferBindingSize}`, hint);
  }
  const blocks = Math.ceil(B / tiles.rows);
  if (Math.max(blocks, A) > limits.maxComputeWorkgroupsPerDimension) {
    throw tooBig(`${blocks} row blocks × ${A} heads exceed ${limits.maxComputeWorkgroupsPerDimension} workgroups per dimension`, hint);
  }
  const tileMemory = tileBytes(tiles, E);
  if (tileMemory > limits.maxComputeWorkgroupStorageSize || tiles.threads > limits.maxComputeInvocationsPerWorkgroup) {
    throw tooBig(
      `tiles ${JSON.stringify(tiles)} need ${tileMemory} B of workgroup memory and ${tiles.threads} threads; ` +
        `the device allows ${limits.maxComputeWorkgroupStorageSize} B, ${limits.maxComputeInvocationsPerWorkgroup}`,
      'use smaller tiles',
    );
  }
  if (req.splits !== undefined && (!Number.isInteger(req.splits) || req.splits < 1))
    throw bad(`splits must be an integer ≥ 1, got ${req.splits}`);
  const { splits, splitKeys } = splitKv(blocks * A, S, tiles.keys, req.splits);
  if (splits > 1 && 4 * splits * A * B * (E + 2) > limits.maxStorageBufferBindingSize) {
    throw tooBig(
      `${splits} split-KV partials need ${4 * splits * A * B * (E + 2)} bytes, ` +
        `over the binding limit ${limits.maxStorageBufferBindingSize}`,
      hint,
    );
  }
  return { A, B, S, D, E, vFromK, tokens, Ak, Av, tiles, splits, splitKeys };
}
