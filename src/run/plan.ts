import { MlaDiffError } from '../errors';
import type { MlaConfig } from '../model/config';
import { latentWidth, qkHeadDim } from '../model/config';
import type { Runtime } from '../runtime/device';
import type { ReferenceMode } from '../scenario/scenario';
import type { HeadSlice } from '../weights/layer';
import { LINEAR_NAMES, sliceRanges } from '../weights/layer';

/** Above this many multiply-adds `reference: auto` skips the float64 reference (~20 s of one core). */
export const REFERENCE_AUTO_MAX_MACS = 1.2e10;

/** Multiply-adds of one float64 reference step over T tokens for a head slice. */
export function referenceMacs(c: MlaConfig, heads: HeadSlice, T: number): number {
  let weights = 0;
  for (const name of LINEAR_NAMES) {
    const { rows, cols } = sliceRanges(c, name, heads);
    weights += (rows[1] - rows[0]) * (cols[1] - cols[0]);
  }
  const N = heads.count;
  const attention = N * T * T * (qkHeadDim(c) + c.v_head_dim + c.kv_lora_rank);
  return T * weights + attention + T * N * c.qk_nope_head_dim * c.kv_lora_rank;
}

export function planReference(mode: ReferenceMode, c: MlaConfig, heads: HeadSlice, T: number): { run: boolean; note?: string } {
  if (mode === 'off') return { run: false, note: 'reference off: culprits cannot be named' };
  const macs = referenceMacs(c, heads, T);
  if (mode === 'auto' && macs > REFERENCE_AUTO_MAX_MACS) {
    return { run: false, note: `reference skipped: ${(macs / 1e9).toFixed(1)} GMAC in float64 is over the auto limit; set reference: on to force it` };
  }
  return { run: true };
}

const MiB = 2 ** 20;

/** Fails early, with the tensor's name, when a tensor would exceed the device's binding limit. */
export function checkDeviceLimits(rt: Runtime, c: MlaConfig, heads: HeadSlice, T: number): void {
  const N = heads.count;
  const tensors: [string, number][] = LINEAR_NAMES.map((name) => {
    const { rows, cols } = sliceRanges(c, name, heads);
    return [name, 4 * (rows[1] - rows[0]) * (cols[1] - cols[0])] as [string, number];
  });
  tensors.push(['logits [N,T,S]', 4 * N * T * T], ['mqa_q [T,N,L+R]', 4 * T * N * latentWidth(c)]);
  const [name, bytes] = tensors.reduce((a, b) => (b[1] > a[1] ? b : a));
  if (bytes > rt.maxTensorBytes) {
    throw new MlaDiffError('device-limit',
      `${name} needs ${(bytes / MiB).toFixed(0)} MiB, over this device's ${(rt.maxTensorBytes / MiB).toFixed(0)} MiB storage-binding limit`,
      { field: '--device' }, `${rt.device.description}; use fewer tokens or heads, or --device wasm`);
  }
}
