/**
 * Bounds on single fields of a scenario file (zod .max(); a value past one is limit-exceeded naming the field and the
 * bound). Bounds on products (tokens over requests, cache slots, attention work, weight elements) are in limits.ts and
 * core/model/config-limits.ts.
 */
export const FIELD_MAX = {
  /** Token ids written out (a prompt's or a request's leading ids). */
  ids: 2 ** 17,
  /** Token counts and step indices (SCHEDULE_MAX.tokens). */
  tokens: 2 ** 18,
  /** Absolute positions and context chunks (CONFIG_MAX.max_position_embeddings). */
  position: 2 ** 24,
  /** Slots per cache block (vLLM uses 16 to 256). */
  blockSize: 2 ** 16,
  /** Triton MLA num_kv_splits (vLLM uses 4 to 16). */
  kvSplits: 1024,
  logitsRows: 4096,
  requests: 1024,
  steps: 2 ** 16,
  cases: 256,
  faults: 256,
  /** A checkpoint's layer index. */
  layer: 65_535,
  /** A week: setTimeout holds at most 2^31 ms (24.8 days); past that it fires at once. */
  timeoutS: 7 * 86_400,
  name: 256,
  path: 4096,
  command: 65_536,
  description: 10_000,
  /** Prompt text, in characters (tokenized, then bounded as tokens). */
  text: 2 ** 20,
};
