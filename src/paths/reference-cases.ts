import { axes } from '../core/probes/layout';
import type { HostTensor } from '../core/probes/probe';
import type { Recording } from '../core/probes/recorder';
import { HostRecorder } from '../core/probes/host-recorder';
import type { StageName } from '../trace/stages';
import type { HeadSlice, WeightSource } from '../core/weights/layer';
import { sliceRanges } from '../core/weights/layer';
import type { KernelOptions, PieceInput } from './backend';
import { ReferenceBackend } from './reference';
import type { Gemm64 } from './reference-gemm';
import { JS_GEMM } from './reference-gemm';
import { linearStream } from './reference-math';

/** Heads [h0, h0 + n) of a host tensor along its head axis ('h', or 'hv' = heads × v_head_dim). */
export function sliceHeadAxis(x: HostTensor, layout: string, h0: number, n: number, vHeadDim: number): HostTensor {
  const names = axes(layout);
  const axis = names.findIndex((a) => a === 'h' || a === 'hv');
  if (axis < 0) return x;
  const unit = names[axis] === 'hv' ? vHeadDim : 1;
  const outer = x.shape.slice(0, axis).reduce((a, b) => a * b, 1);
  const inner = x.shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  const len = x.shape[axis]!;
  const [from, count] = [h0 * unit, n * unit];
  const data = new (x.data.constructor as Float64ArrayConstructor | Float32ArrayConstructor)(outer * count * inner);
  for (let o = 0; o < outer; o++) {
    data.set(x.data.subarray((o * len + from) * inner, (o * len + from + count) * inner), o * count * inner);
  }
  const shape = x.shape.slice();
  shape[axis] = count;
  return { shape, data };
}

/**
 * The float64 reference for several head slices at once: one pass over the schedule for the
 * smallest head range covering them all, each case then a slice of it. Heads are independent up
 * to o_proj, so the slices equal separate passes exactly; o_proj_out, a sum over the case's heads,
 * is recomputed, and head-summed invariant counts are kept only for the whole range. `stages`, where
 * given, are the stages recorded (attn_out always).
 */
export async function referenceCases(
  source: WeightSource,
  cases: HeadSlice[],
  pieces: readonly PieceInput[],
  kernels: KernelOptions,
  retain: ReadonlySet<StageName>,
  gemm: Gemm64 = JS_GEMM,
  stages?: ReadonlySet<StageName>,
): Promise<Recording[]> {
  const start = Math.min(...cases.map((c) => c.start));
  const end = Math.max(...cases.map((c) => c.start + c.count));
  const recorded = (stage: StageName) => !stages || stages.has(stage) || stage === 'attn_out'; // a slice's o_proj reads attn_out
  const union = new HostRecorder({ filter: recorded });
  const ref = new ReferenceBackend(source, { start, count: end - start }, kernels, gemm);
  for (const piece of pieces) {
    if (piece.kind === 'cached') {
      await ref.fill(piece);
      continue;
    }
    union.at(piece);
    await ref.step(piece, union);
  }
  const V = source.config.v_head_dim;
  return cases.map((c) => {
    const rec = new HostRecorder({ retain });
    const whole = c.start === start && c.count === end - start;
    for (const p of union.pieceScalars()) {
      rec.at(p);
      for (const [name, value] of Object.entries(p.scalars)) rec.scalar(name as never, value);
    }
    union.forEachTap((t) => {
      if (!whole && t.stage === 'o_proj_out') return;
      rec.at(t);
      rec.tap(t.stage, whole ? t.x : sliceHeadAxis(t.x, t.layout, c.start - start, c.count, V), t.layout, t.chunk);
      if (whole) for (const k of t.checks) rec.check(t.stage, k.name, k.violations, t.chunk);
    });
    if (!whole) {
      for (const p of union.pieceScalars()) {
        rec.at(p);
        const attn_out = rec.get(p, 'attn_out')!; // [T, count·V]
        const T = attn_out.shape[0]!;
        const { rows, cols } = sliceRanges(source.config, 'o_proj', c);
        rec.tap('o_proj_out', {
          shape: [T, rows[1] - rows[0]],
          data: linearStream(source, 'o_proj', rows, cols, attn_out.data as Float64Array, T, gemm),
        }); // [T,H]
      }
    }
    return rec.finish('reference');
  });
}
