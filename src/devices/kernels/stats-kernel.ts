import type * as tfc from '@tensorflow/tfjs-core';
import { MlaDiffError } from '../../errors';
import type { StatsKernel } from '../../core/probes/stats-partials';
import { PARTIAL_WIDTH, partialRows } from '../../core/probes/stats-partials';
import type { WebgpuProgram, WebgpuUniform } from './webgpu-program';
import { webgpuBackend } from './webgpu-program';
import { STATS_GROUP, ST_PER, ST_WG, statsShader, statsUniforms } from './stats-wgsl';

export { STATS_GROUP } from './stats-wgsl';

/**
 * The probes' tensor statistics in one pass on tfjs-backend-webgpu (src/core/probes/stats-partials.ts
 * has the partials' layout). One workgroup of ST_WG threads reduces ST_GROUP consecutive elements:
 * thread t reads elements t + j·ST_WG (coalesced) and classifies them on their bits (NaN, ±Inf,
 * |x| as u32: no float compare a compiler may fold, no denormal flush); a pairwise tree in
 * workgroup memory finds the largest |x| (ties: lowest offset) and the counts; the finite values,
 * scaled by an exact power of two that brings the group's largest |x| into [1, 2), are squared and
 * summed, per thread then pairwise, so a group's float32 sums neither overflow nor drift.
 * Workgroups past 65535 spill into dispatch y.
 */

/**
 * The fused statistics kernel of a webgpu backend (Runtime.stats): one tensor per launch, or up to
 * `maxBatch` (the device's storage buffers per stage, less the output; at most 7) in one, which
 * saves the host a dispatch per tapped stage. `maxGroupsX` lowers the device's
 * workgroups-per-dimension cap (a check can then exercise the dispatch-y spill).
 */
export function webgpuStats(tf: typeof tfc, maxGroupsX?: number): StatsKernel {
  const backend = () => webgpuBackend(tf);
  const maxBatch = Math.max(1, Math.min(7, (backend().device.limits['maxStorageBuffersPerShaderStage'] ?? 8) - 1));
  const launchMany = (xs: readonly tfc.Tensor[]): tfc.Tensor => {
    if (xs.length < 1 || xs.length > maxBatch)
      throw new MlaDiffError('invalid-value', `stats kernel: 1 to ${maxBatch} tensors per launch, got ${xs.length}`, { field: 'stats' });
    for (const x of xs) {
      if (x.dtype !== 'float32' || x.size === 0) {
        throw new MlaDiffError('invalid-value', `stats kernel: needs non-empty float32 tensors, got ${x.dtype} [${x.shape.join(', ')}]`, {
          field: 'stats',
        });
      }
    }
    const k = xs.length;
    const starts: number[] = [];
    let groups = 0;
    for (const x of xs) {
      starts.push(groups);
      groups += partialRows(x.size, STATS_GROUP);
    }
    const cap = maxGroupsX ?? backend().device.limits['maxComputeWorkgroupsPerDimension'] ?? 65535;
    const dx = Math.min(groups, cap);
    const program: WebgpuProgram = {
      outputShape: [groups * PARTIAL_WIDTH],
      shaderKey: `mlaStats2_w${ST_WG}_p${ST_PER}_x${k}`,
      dispatchLayout: { x: [0] },
      dispatch: [dx, Math.ceil(groups / dx), 1],
      workgroupSize: [ST_WG, 1, 1],
      variableNames: xs.map((_, i) => `X${i}`),
      uniforms: statsUniforms(k),
      getUserCode: () => statsShader(k),
    };
    const int = (v: number): WebgpuUniform => ({ type: 'int32', data: [v] });
    const inputs = xs.map((x): tfc.TensorInfo => ({ dataId: x.dataId, shape: [x.size], dtype: 'float32' })); // flat: any rank
    const uniforms = [...xs.flatMap((x, i) => [int(x.size), int(starts[i]!)]), int(groups)];
    return tf.engine().makeTensorFromTensorInfo(backend().runWebGPUProgram(program, inputs, 'float32', uniforms));
  };
  return { groupSize: STATS_GROUP, maxBatch, launch: (x) => launchMany([x]), launchMany };
}
