import type { Probe } from '../probes/probe';
import type { PathName } from '../probes/stages';

/** One forward step's tokens. Embeddings are generated once and handed to every path. */
export interface LayerInput {
  ids: readonly number[];
  /** Absolute positions of the step's tokens (0-based). */
  positions: readonly number[];
  /** Token embeddings before input_layernorm, [T, hidden_size]. */
  embeddings: Float32Array;
}

/**
 * One way of computing an MLA layer. Weights are bound at construction; `forward` runs one step,
 * taps every stage it computes into `probe`, and returns o_proj_out [T, hidden_size] on the host.
 */
export interface MlaBackend<T> {
  readonly name: PathName;
  forward(input: LayerInput, probe: Probe<T>): Promise<Float32Array | Float64Array>;
  dispose(): void;
}
