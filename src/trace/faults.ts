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
