/**
 * safetensors checkpoints: headers by offset (never the whole file), F32/F16/BF16/F8_E4M3 tensors
 * to float32, DeepSeek-V3 FP8 128×128 block scales (multiply by `_scale_inv`), single and sharded
 * writers. The sharded index (model.safetensors.index.json) is read in open.ts, written in write.ts.
 */
export type { SafetensorsDtype } from './dtypes';
export { DTYPE_BITS, isSafetensorsDtype, tensorByteSize } from './dtypes';
export type { SafetensorsModel, SafetensorsTensorInfo, TensorToWrite } from './types';
export { E4M3_HALF_SPACING, E4M3_MAX, E4M3_TABLE, E8M0_TABLE, e4m3ToF32, f32ToE4M3 } from './fp8';
export { INDEX_FILE, openSafetensors } from './open';
export { readTensorF32, readWeightF32 } from './read';
export { weightBoundF32 } from './bound';
export { DEFAULT_BLOCK, scaleInvName } from './scales';
export { shardName, writeSafetensors, writeShardedSafetensors } from './write';
