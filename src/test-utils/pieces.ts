import type * as tfc from '@tensorflow/tfjs-core';
import type { MlaBackend, PieceInput } from '../paths/backend';
import { NULL_PROBE } from '../core/probes/probe';
import { TensorRecorder } from '../core/probes/tensor-recorder';

/** Slots [a, b) of a contiguous cache. */
export const slots = (a: number, b: number): Int32Array => Int32Array.from({ length: b - a }, (_, i) => a + i);

/**
 * A prefill piece of request 'r': tokens [start, start + count) with ids id(i) of each cache index, contiguous slots, MHA context chunks.
 */
export function prefillPiece(
  source: { embeddings(ids: number[]): Float32Array },
  start: number,
  count: number,
  chunks: [number, number][],
  id: (i: number) => number,
): PieceInput {
  const ids = Array.from({ length: count }, (_, i) => id(start + i));
  return {
    step: start ? 1 : 0,
    request: 'r',
    kind: 'prefill',
    route: 'mha',
    start,
    ids,
    positions: ids.map((_, i) => start + i),
    embeddings: source.embeddings(ids),
    slots: slots(start, start + count),
    historySlots: slots(0, start + count),
    chunks,
    chunkSlots: chunks.map(([a, b]) => slots(a, b)),
  };
}

/** o_proj_out of each piece through `path` (then disposed), with nothing or every stage recorded. */
export async function pathOutputs(
  tf: typeof tfc,
  path: MlaBackend<tfc.Tensor>,
  pieces: readonly PieceInput[],
  recorded: boolean,
): Promise<Float32Array[]> {
  const outs: Float32Array[] = [];
  for (const p of pieces) {
    const rec = recorded ? new TensorRecorder(tf, {}, () => null) : null;
    rec?.at(p);
    outs.push(Float32Array.from((await path.step(p, rec ?? NULL_PROBE, true))!));
    if (rec) for (const c of (await rec.finish(path.name)).captured.values()) if (c.where === 'device') c.tensor.dispose();
  }
  path.dispose();
  return outs;
}

/** ‖a − b‖ / ‖b‖. */
export function relL2(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let [d, n] = [0, 0];
  for (let i = 0; i < a.length; i++) {
    d += (a[i]! - b[i]!) ** 2;
    n += b[i]! ** 2;
  }
  return Math.sqrt(d / n);
}
