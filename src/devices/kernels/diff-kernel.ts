import type * as tfc from '@tensorflow/tfjs-core';
import { MlaDiffError } from '../../errors';
import type { DiffKernel } from '../../core/probes/diff-partials';
import { DIFF_WIDTH } from '../../core/probes/diff-partials';
import type { WebgpuProgram, WebgpuUniform } from './webgpu-program';
import { webgpuBackend } from './webgpu-program';
import { DF_GROUP, DF_PER, DF_WG, diffShader } from './diff-wgsl';

export { DF_GROUP } from './diff-wgsl';

/**
 * The comparison's pair diff in one pass on tfjs-backend-webgpu (Runtime.diff): a and b read once, one
 * small partials tensor out, where tfjs ops took some twenty programs and as many tensors of a and b's
 * size (a 537 MB stage value of a T = 8192 piece made gigabytes of temporaries per pair).
 * `maxGroupsX` lowers the device's workgroups-per-dimension cap (a check can then exercise the dispatch-y spill).
 */
export function webgpuDiff(tf: typeof tfc, maxGroupsX?: number): DiffKernel {
  const backend = () => webgpuBackend(tf);
  return {
    groupSize: DF_GROUP,
    launch(a, b) {
      if (a.dtype !== 'float32' || b.dtype !== 'float32' || a.size !== b.size || a.size === 0) {
        throw new MlaDiffError(
          'invalid-value',
          `diff kernel: needs two non-empty float32 tensors of one size, got ${a.dtype} [${a.shape.join(', ')}] and ` +
            `${b.dtype} [${b.shape.join(', ')}]`,
          { field: 'diff' },
        );
      }
      const groups = Math.ceil(a.size / DF_GROUP);
      const cap = maxGroupsX ?? backend().device.limits['maxComputeWorkgroupsPerDimension'] ?? 65535;
      const dx = Math.min(groups, cap);
      const program: WebgpuProgram = {
        outputShape: [groups * DIFF_WIDTH],
        shaderKey: `mlaDiff1_w${DF_WG}_p${DF_PER}`,
        dispatchLayout: { x: [0] },
        dispatch: [dx, Math.ceil(groups / dx), 1],
        workgroupSize: [DF_WG, 1, 1],
        variableNames: ['A', 'B'],
        uniforms: 'n : i32, groups : i32,',
        getUserCode: diffShader,
      };
      const flat = (x: tfc.Tensor): tfc.TensorInfo => ({ dataId: x.dataId, shape: [x.size], dtype: 'float32' });
      const int = (v: number): WebgpuUniform => ({ type: 'int32', data: [v] });
      const out = backend().runWebGPUProgram(program, [flat(a), flat(b)], 'float32', [int(a.size), int(groups)]);
      return tf.engine().makeTensorFromTensorInfo(out);
    },
  };
}
