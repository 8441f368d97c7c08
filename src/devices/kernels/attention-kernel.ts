import type * as tfc from '@tensorflow/tfjs-core';
import type { Attended, EmptyLse } from './attention';

/**
 * One attention computed without materializing the score tensor: a device's fused kernel
 * (webgpu: src/devices/kernels/flash-attention.ts) or a host tiling (wasm, cpu). Same result as the
 * unfused `attend` over masked logits, to fp32 tolerance.
 *
 * q [A,B,D]; k [A|1,S,D]; v [A|1,S,E], or null for V = k[..., :E] (the MLA latent: D = L+R, E = L).
 * mask null: every key visible (a context chunk); else query row b sees keys s ≤ offset +
 * floor(b / rowsPerToken) (MHA: rowsPerToken 1; MQA: the N heads of a token packed as rows).
 * A row with no visible key: out 0, lse −inf, max −inf; S = 0: out 0, lse per `emptyLse`.
 */
/** Causal visibility: query row b sees keys s ≤ offset + floor(b / rowsPerToken). */
export interface AttentionMask {
  offset: number;
  rowsPerToken: number;
}

export interface AttentionRequest {
  q: tfc.Tensor3D;
  k: tfc.Tensor3D;
  v: tfc.Tensor3D | null;
  /** Value width E (V = k[..., :E] when v is null). */
  e: number;
  scale: number;
  mask: AttentionMask | null;
  emptyLse: EmptyLse;
  /** Token-major q [B,A,D], k [S,A|1,D], v [S,A|1,E], out [B,A,E] (lse, max [A,B]); only for a function with tokenMajor. */
  tokens?: boolean;
}

/** An attention; `tokenMajor`: it also takes token-major tensors (AttentionRequest.tokens). */
export type AttentionFn = ((req: AttentionRequest) => Attended) & { readonly tokenMajor?: boolean };

/** How a scenario asks attention to run (schedule.attention). */
export type AttentionMode = 'auto' | 'fused' | 'unfused';
export const ATTENTION_MODES: readonly AttentionMode[] = ['auto', 'fused', 'unfused'];
