import type { Tensor2D } from '@tensorflow/tfjs-core';
import type { Probe } from '../core/probes/probe';
import type { PathName } from '../trace/stages';
import type { Route } from '../core/schedule/schedule';
import type { EmptyLse } from '../devices/kernels/attention';
import type { PrecisionSpec } from '../core/precision/plan';

/**
 * One request's share of one engine step, with everything a path needs to run it: the tokens, where
 * they go in the paged cache, and which context chunks the MHA path gathers.
 */
export interface PieceInput {
  step: number;
  request: string;
  kind: 'prefill' | 'decode' | 'cached';
  /** The path the engine would send this piece through; both run, for the comparison. */
  route: Route;
  /** Tokens of this request already cached before the piece: the cache index of its first token. */
  start: number;
  ids: readonly number[];
  /** RoPE positions of the tokens (cache index + the request's position_offset). */
  positions: readonly number[];
  /** Token embeddings before input_layernorm, [count, hidden_size]. */
  embeddings: Float32Array;
  /**
   * The same embeddings already on the device, uploaded once per piece by the runner and shared by
   * the device paths (201 MB at T = 8192); absent: each path uploads `embeddings` itself.
   */
  deviceEmbeddings?: Tensor2D;
  /** slot_mapping of the piece's tokens. */
  slots: Int32Array;
  /** Slots of cache indices [0, start + count): every key the piece's last token sees. */
  historySlots: Int32Array;
  /**
   * Sampled logits rows (scenario `schedule.logits_rows`, resolved for this piece: indices within
   * it, unique, sorted, maybe none): the paths record `logits` / `attn_probs` of these query tokens
   * only, computed beside the (fused) attention. Absent: every row, unfused.
   */
  logitsRows?: readonly number[];
  /** MHA context chunks over [0, start), shared boundaries within the step (may be empty). */
  chunks: readonly (readonly [number, number])[];
  /** Slots of each chunk. */
  chunkSlots: readonly Int32Array[];
}

/** Kernel behaviour a scenario chooses (schedule:), the same for every piece. */
export interface KernelOptions {
  /** Triton MLA num_kv_splits for the MQA path (1 = no split). */
  kvSplits: number;
  /** LSE the MHA kernels report for an empty context chunk: FA3 −inf, FA2 +inf. */
  emptyLse: EmptyLse;
  /**
   * A device limit, not an engine choice: the most keys one attention call of an MHA context chunk
   * or of the cold path takes (their per-key tensors within the device's binding limit); longer
   * key sets are attended in parts merged by LSE (key-parts.ts). Absent: no limit.
   */
  keyPart?: number;
  /** Storage dtypes and rounding points (scenario `dtype:`, `kv_cache_dtype:`, `rounding:`); absent: float32. */
  precision?: PrecisionSpec;
}

export const DEFAULT_KERNELS: KernelOptions = { kvSplits: 1, emptyLse: '-inf' };

/**
 * One way of computing an MLA layer over a schedule. Weights are bound at construction, caches
 * live inside; `step` runs one piece (writes its latent rows into the cache, attends, taps every
 * stage it computes into `probe`) and, with `readOutput`, returns o_proj_out [count, hidden_size] on
 * the host; without it the step waits for the device to finish and returns null (the comparison
 * reads o_proj_out through its probe, so the runners never pay for the read-back).
 */
export interface MlaBackend<T> {
  readonly name: PathName;
  step(piece: PieceInput, probe: Probe<T>, readOutput?: boolean): Promise<Float32Array | Float64Array | null>;
  /** A prefix-cache hit: the piece's latent rows enter the cache; nothing attends. */
  fill(piece: PieceInput): Promise<void>;
  dispose(): void;
}
