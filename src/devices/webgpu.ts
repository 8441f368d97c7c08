import * as tf from '@tensorflow/tfjs-core';
import { MlaDiffError } from '../errors';
import { webgpuRound } from './kernels/wgsl-round';
import { adapterInfo, describeAdapter, isSoftwareAdapter, requestDawnAdapter, webgpuUnavailable } from './adapter';
import type { Runtime } from './runtime';
import type { AttentionRequest } from './kernels/attention-kernel';
import { flashAttention } from './kernels/flash-attention';
import { webgpuStats } from './kernels/stats-kernel';
import { webgpuDiff } from './kernels/diff-kernel';
import { gemm } from './kernels/gemm';
import { gemmHeads } from './kernels/gemm-heads';
import { rmsNormKernel, ropeKernel } from './kernels/norm-rope';
import { lseBoundsKernel } from './kernels/lse-bounds';
import { webgpuBackend } from './kernels/webgpu-program';
import { hostFilled } from './host-tensors';
import type { UploadingBackend } from './webgpu-upload';
import { pooledUploads } from './webgpu-upload';
import type { PoolingBackend } from './webgpu-pool';
import { MAX_FREE_BYTES, poolTrimmer } from './webgpu-pool';
import type { PipelineDevice } from './pipeline-cache';
import { pipelineCache, pipelineCacheFile } from './pipeline-cache';

/** Dispatches per queue submit (tfjs's WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE). */
export const SUBMIT_BATCH = 4;

/**
 * tfjs-backend-webgpu on Dawn (the `webgpu` npm package, Vulkan underneath). Without a GPU,
 * Mesa's lavapipe serves as a software adapter: slow, but it runs the same WGSL.
 */
export async function createWebgpuRuntime(reason: string, env: NodeJS.ProcessEnv = process.env): Promise<Runtime> {
  // Dawn throwing while it looks (a driver that fails to load) is no adapter, as it is to the child probe (select.ts).
  const found = await requestDawnAdapter().catch(() => null);
  if (!found) throw webgpuUnavailable('adapter');
  const adapter = adapterInfo(found.adapter);
  Object.assign(globalThis, found.globals);
  // tfjs-backend-webgpu registers itself at load time only if navigator.gpu exists.
  Object.defineProperty(globalThis, 'navigator', { value: { gpu: found.gpu }, configurable: true, writable: true });
  require('@tensorflow/tfjs-backend-webgpu');
  if (!(await tf.setBackend('webgpu'))) {
    throw new MlaDiffError('device-unavailable', `tfjs-backend-webgpu failed on ${describeAdapter(adapter)}`, { field: '--device' });
  }
  await tf.ready();
  // Submit every 4 dispatches, not tfjs's 15: the GPU starts sooner while the host issues the rest. A
  // 30-program step at T = 512 took 8–15 % less on the H200 in each of 6 leases (timed per phase of the
  // step); 1, 64 and 1000 were slower.
  tf.env().set('WEBGPU_DEFERRED_SUBMIT_BATCH_SIZE', SUBMIT_BATCH);
  // Small host-made tensors (cache slot indices, key counts, scalars) through pooled buffers, not a new buffer each.
  const backend = webgpuBackend<UploadingBackend>(tf);
  pooledUploads(backend);
  const pool = poolTrimmer(webgpuBackend<PoolingBackend>(tf), poolFreeBytes(env));
  const software = isSoftwareAdapter(adapter);
  // Errors Dawn raises on its own (out of memory, validation): the first is kept and checked by the runners.
  let firstError: string | null = null;
  const gpuDevice = backend.device;
  // Compiled pipelines kept across runs (pipeline-cache.ts): a run warms its scenario family's before making its weights.
  const pipelines = pipelineCache(gpuDevice as unknown as PipelineDevice, (signature) =>
    pipelineCacheFile(`webgpu ${describeAdapter(adapter)} ${signature}`, env),
  );
  gpuDevice.addEventListener?.('uncapturederror', (e) => {
    firstError ??= e.error?.message ?? 'uncaptured device error';
  });
  return {
    tf,
    device: {
      name: 'webgpu',
      backend: tf.getBackend(),
      description: `webgpu: ${describeAdapter(adapter)}${software ? ' [software adapter]' : ''}`,
      software,
      reason,
      adapter,
    },
    pool,
    settle: async () => {
      await gpuDevice.queue.onSubmittedWorkDone();
      pool.settle();
      await gpuDevice.queue.onSubmittedWorkDone(); // Dawn frees destroyed buffers as it processes its events
    },
    pipelines,
    maxTensorBytes: Math.min(adapter.maxStorageBufferBindingSize, adapter.maxBufferSize),
    linearPlan: () => ({ layout: 'in_out', product: 'direct', batched: 'native' }),
    makeFilled: (shape, fill) => hostFilled(tf, shape, fill),
    hostView: () => null,
    // Fused causal flash attention (src/devices/kernels/flash-attention.ts): no [N,T,S] score tensor.
    // Token-major too: the MHA path's own [T,N,·] q, k, v and output without transposes around it.
    attention: Object.assign(
      (req: AttentionRequest) =>
        flashAttention(tf, {
          q: req.q,
          k: req.k,
          v: req.v,
          valueWidth: req.e,
          scale: req.scale,
          mask: req.mask,
          emptyLse: req.emptyLse,
          layout: req.tokens ? 'tokens' : 'heads',
        }),
      { tokenMajor: true },
    ),
    // The projections through the register-tiled GEMM (src/devices/kernels/gemm.ts) rather than tf.matMul's 32×32-tile packed kernel.
    gemm: (x, w) => gemm(tf, x, w),
    // The absorbed MQA products per head, token-major (src/devices/kernels/gemm-heads.ts): no transposes around them.
    gemmHeads: (x, w) => gemmHeads(tf, x, w),
    // RMSNorm and RoPE in one program each (src/devices/kernels/norm-rope.ts).
    normRope: { rmsNorm: (x, w, eps) => rmsNormKernel(tf, x, w, eps), rope: (x, cos, sin, style) => ropeKernel(tf, x, cos, sin, style) },
    // The probes' LSE bounds check in one program (src/devices/kernels/lse-bounds.ts).
    lseBounds: (lse, max, keys, relSlack, slack) => lseBoundsKernel(tf, lse, max, keys, relSlack, slack),
    // On the GPU, in u32 arithmetic on the float32 bits (precision/wgsl-round.ts): no host round trip.
    round: (x, dtype) => webgpuRound(tf, x, dtype),
    // The probes' stats in one pass per tensor (kernels/stats-kernel.ts), read back together.
    stats: webgpuStats(tf),
    // The comparison's pair diffs in one pass each (kernels/diff-kernel.ts): no temporaries the size of the values.
    diff: webgpuDiff(tf),
    deviceError: () => firstError,
    async scoped(f) {
      gpuDevice.pushErrorScope('out-of-memory');
      gpuDevice.pushErrorScope('validation');
      let value;
      try {
        value = await f();
      } finally {
        const validation = await gpuDevice.popErrorScope();
        const memory = await gpuDevice.popErrorScope();
        firstError ??= memory?.message ?? validation?.message ?? null;
      }
      return { value, error: firstError };
    },
  };
}

/** MLA_DIFF_POOL_FREE_GIB: the free bytes tfjs's buffer pool may hold before it destroys the least recently asked for (webgpu-pool.ts). */
export function poolFreeBytes(env: NodeJS.ProcessEnv): number {
  const gib = Number(env['MLA_DIFF_POOL_FREE_GIB']);
  return env['MLA_DIFF_POOL_FREE_GIB'] && Number.isFinite(gib) && gib >= 0 ? gib * 2 ** 30 : MAX_FREE_BYTES;
}
