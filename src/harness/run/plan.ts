import { MlaDiffError } from '../../errors';
import type { MlaConfig } from '../../core/model/config';
import { latentWidth, qkHeadDim } from '../../core/model/config';
import type { Runtime } from '../../devices/runtime';
import type { Scenario } from '../scenario/scenario';
import type { AttentionFn } from '../../devices/kernels/attention-kernel';
import { pathPoints } from '../../core/precision/plan';
import { keyPartFor } from '../../paths/key-parts';
import type { HeadSlice } from '../../core/weights/layer';
import { LINEAR_NAMES, sliceRanges } from '../../core/weights/layer';

// Whether the float64 reference runs (its estimate of time and memory): plan-reference.ts.
export { planReference } from './plan-reference';

const MiB = 2 ** 20;

/**
 * Above this size of one unfused score tensor [N,T,S], `attention: auto` takes the device's fused
 * kernel (webgpu) or host tiling (wasm, cpu: the 4 GiB wasm heap holds a few such tensors at most).
 */
export const AUTO_FUSED_SCORE_BYTES = { gpu: 2 ** 30, host: 2 ** 29 };

/**
 * Which attention the run uses: the device's fused kernel (or host tiling) or the unfused ops.
 * auto: fused where the score tensor of the largest piece would pass AUTO_FUSED_SCORE_BYTES or the
 * device's binding limit and the device has one; fused: required (fp32 P only); unfused: never.
 */
export function planAttention(
  rt: Runtime,
  s: Pick<Scenario, 'schedule' | 'precision'>,
  heads: HeadSlice,
  T: number,
  S: number,
): { attention: AttentionFn | null; note?: string } {
  const mode = s.schedule.attention;
  if (mode === 'unfused') return { attention: null };
  const roundsP = (['mha', 'mqa', 'cold'] as const).some((p) => pathPoints(s.precision, p).has('attn_probs'));
  const fn = rt.attention ?? null;
  if (mode === 'fused') {
    if (!fn) {
      throw new MlaDiffError(
        'invalid-value',
        `${rt.device.description} has no fused attention`,
        { field: 'schedule.attention' },
        'fused WGSL kernels run on --device webgpu, the host tiling on wasm and cpu; use attention: auto or unfused here',
      );
    }
    if (roundsP) {
      throw new MlaDiffError(
        'invalid-value',
        `the fused kernels keep P in fp32; dtype: ${s.precision.dtype} rounds P before P·V`,
        { field: 'schedule.attention' },
        'use attention: auto (unfused in this dtype) or dtype: float32',
      );
    }
    return { attention: fn, note: `attention: fused on ${rt.device.name} ${records(s)}` };
  }
  const bytes = 4 * heads.count * T * S;
  const budget = rt.device.name === 'webgpu' || rt.device.name === 'tensorflow' ? AUTO_FUSED_SCORE_BYTES.gpu : AUTO_FUSED_SCORE_BYTES.host;
  if (!fn || roundsP || bytes <= Math.min(budget, rt.maxTensorBytes)) return { attention: null };
  return {
    attention: fn,
    note: `attention: fused on ${rt.device.name}: the unfused [N,T,S] scores would take ${(bytes / 2 ** 30).toFixed(1)} GiB ${records(s)}`,
  };
}

/** What the engine paths record of the scores under fused attention. */
const records = (s: Pick<Scenario, 'schedule'>): string =>
  s.schedule.logitsRows
    ? `(logits / attn_probs of the sampled rows ${s.schedule.logitsRows.join(', ')} only)`
    : '(no logits / attn_probs records on the engine paths)';

/**
 * Fails early, with the tensor's name, when a tensor would exceed the device's binding limit
 * (T tokens of a piece, S keys; no score tensor when fused).
 */
export function checkDeviceLimits(rt: Runtime, c: MlaConfig, heads: HeadSlice, T: number, S: number, fused = false, cold = false): void {
  const N = heads.count;
  const tensors: [string, number][] = LINEAR_NAMES.map((name) => {
    const { rows, cols } = sliceRanges(c, name, heads);
    return [name, 4 * (rows[1] - rows[0]) * (cols[1] - cols[0])] as [string, number];
  });
  if (!fused) tensors.push(['logits [N,T,S]', 4 * N * T * S]);
  // Unfused, the cold path concatenates its K over every key; fused, key sets past the limit go in parts (keyPartFor).
  if (!fused && cold) tensors.push(["the cold path's K [N,S,D] over every key", 4 * N * S * qkHeadDim(c)]);
  tensors.push(['mqa_q [T,N,L+R]', 4 * T * N * latentWidth(c)]);
  const [name, bytes] = tensors.reduce((a, b) => (b[1] > a[1] ? b : a));
  if (bytes > rt.maxTensorBytes) {
    throw new MlaDiffError(
      'device-limit',
      `${name} needs ${(bytes / MiB).toFixed(0)} MiB, over this device's ${(rt.maxTensorBytes / MiB).toFixed(0)} MiB storage-binding limit`,
      { field: '--device' },
      `${rt.device.description}; use fewer tokens or heads, schedule.attention: fused, or --device wasm`,
    );
  }
}

/**
 * The most keys of an MHA context chunk or of the cold path's history one attention call takes:
 * their widest per-key tensor ([keys, N, P+V] after kv_b_proj, or K/V) within the device's per-tensor
 * limit. Longer key sets go in parts merged by LSE (backends/key-parts.ts).
 */
export function planKeyPart(rt: Pick<Runtime, 'maxTensorBytes'>, c: MlaConfig, heads: HeadSlice): number {
  return keyPartFor(rt.maxTensorBytes, heads.count, Math.max(c.qk_nope_head_dim + c.v_head_dim, qkHeadDim(c), c.v_head_dim));
}
