/** The device limits the flash-attention kernel's tests plan against: WebGPU's defaults, an H200's, and the H200's MHA tiles. */
import type { FlashLimits } from '../flash-attention';
import type { FlashTiles } from '../flash-tiles';
import { defaultTiles } from '../flash-wgsl';

// WebGPU's default limits, with the lavapipe binding size (128 MiB).
export const LIMITS: FlashLimits = {
  maxStorageBufferBindingSize: 2 ** 27,
  maxComputeWorkgroupStorageSize: 16384,
  maxComputeInvocationsPerWorkgroup: 256,
  maxComputeWorkgroupsPerDimension: 65535,
};
export const H200 = { maxComputeWorkgroupStorageSize: 49152, maxComputeInvocationsPerWorkgroup: 1024 };
export const H200_MHA: FlashTiles = defaultTiles(256, 256, H200);
