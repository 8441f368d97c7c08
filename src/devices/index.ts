/**
 * `mla-diff/devices`: the kernel-level pieces that the WGSL kernel checks and the kernel benchmarks
 * drive directly, with the host oracles they compare against. Not part of the main API: these
 * signatures follow the kernels and may change with them. A Runtime comes from the main entry
 * (`selectRuntime` of 'mla-diff').
 */

// Device guards: a kernel's device error (out of memory, lost device) as an MlaDiffError.
export { guarded, checkDevice } from './device-errors';
export { SUBMIT_BATCH } from './webgpu';

// Attention: the unfused oracle, the flash kernel and its tile plans, the LSE bound check.
export { attend, lseBoundViolations, LSE_SLACK } from './kernels/attention';
export { flashAttention, planFlash } from './kernels/flash-attention';
export { defaultTiles, tilesProblem, tileBytes, accumulatorFloats } from './kernels/flash-tiles';
export { lseBoundsKernel } from './kernels/lse-bounds';

// GEMM: plans, split-K, per-head products, the tile presets.
export { gemm, planGemm } from './kernels/gemm';
export { chooseSplitK } from './kernels/gemm-split';
export { gemmHeads } from './kernels/gemm-heads';
export { DEFAULT_GEMM_TILES, MID_GEMM_TILES, FALLBACK_GEMM_TILES } from './kernels/gemm-wgsl';

// RMSNorm and RoPE kernels (their host forms are rmsNorm/applyRope of 'mla-diff').
export { rmsNormKernel, ropeKernel } from './kernels/norm-rope';

// Statistics: the fused WGSL kernel and the host and tfjs statistics it must match.
export { webgpuStats, STATS_GROUP } from './kernels/stats-kernel';
export { webgpuDiff, DF_GROUP } from './kernels/diff-kernel';
export { diffFromPartials } from '../core/probes/diff-partials';
export { hostStats, deviceStats } from '../core/probes/stats';
export { launchStats, settleStats } from '../core/probes/stats-batch';

// Host BLAS for the wasm device's matmuls.
export { loadHostBlas } from './kernels/host-blas';
export { installBlasMatMul } from './kernels/wasm-blas';

// Storage rounding (bfloat16, float16, fp8_e4m3): the formats, the exact oracle, edge and random inputs.
export { STORAGE_DTYPES, FORMATS, roundArray, roundInto } from '../core/precision/formats';
export { buildOracle, oracleRoundArray } from '../core/precision/oracle';
export { edgeValues, randomValues, bitMismatches } from '../core/precision/edge-values';
