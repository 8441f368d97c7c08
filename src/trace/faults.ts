/**
 * The names of the faults mla-diff can plant, each modelled on a real MLA bug: a report names them (a scenario's
 * `faults:`, a diagnosis that matches one). What each fault does lives in the catalogue (core/faults/catalogue.ts),
 * keyed by these names in this order.
 */
export const FAULT_NAMES = [
  'softmax-scale-latent',
  'rope-neox',
  'kv-norm-skipped',
  'lse-base-2',
  'merge-inf-unhandled',
  'lse-layout-transposed',
  'split-merge-base-2',
  'k-scale-bf16-cache',
  'yarn-mscale-missing',
  'yarn-log-mul-misread',
  'rope-mscale-inflated',
  'w-uk-wrong-axis',
  'k-pe-per-head',
  'w-uk-uv-swapped',
  'v-unpadded-before-merge',
  'absorbed-fp16',
  'lse-bf16-merge',
] as const;
export type FaultName = (typeof FAULT_NAMES)[number];

/**
 * Converter bugs planted in the GGUF handed to an engine only (scenario `engines: [{plant: …}]`); our paths keep the true
 * config and weights, so the engine must depart where the bug enters (src/engines/llamacpp/plants.ts does each).
 */
export const GGUF_PLANTS = [
  'rope-freq-base',
  'rope-dimension-count',
  'rope-neox-permuted',
  'yarn-log-multiplier-unscaled',
  'mla-lengths-swapped',
  'k-b-untransposed',
  'v-b-wrong-half',
  'kv-a-norm-ones',
  'q-a-norm-ones',
  'head-count',
] as const;
export type GgufPlant = (typeof GGUF_PLANTS)[number];
