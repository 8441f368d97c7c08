import type * as tfc from '@tensorflow/tfjs-core';
import { isIdentity, permutation, transposeHost, unravel } from '../../core/probes/layout';
import type { Captured, HostView } from '../../core/probes/recorder';
import type { DiffKernel, DiffSums } from '../../core/probes/diff-partials';
import { diffFromPartials, zeroSums } from '../../core/probes/diff-partials';
import type { PairDiff, Where } from '../../trace';
import type { PathName, StageName } from '../../trace/stages';
import { STAGES } from '../../trace/stages';
import { visibleRuns } from '../external/masked-logits';

// Hot loops read Math through module constants: a global lookup per element is ~100× slower
// inside a vm context (jest) and no faster anywhere else.
const { abs } = Math;

/** Where a record sits and the diff of one record between two paths: src/trace/case-trace.ts. */
export type { PairDiff, Where } from '../../trace';

/** LSE stages are logarithms: an error δ there scales the softmax weights by e^δ ≈ 1 + δ, whatever |lse| is. */
const LOG_STAGES: ReadonlySet<StageName> = new Set(['lse', 'suffix_lse', 'chunk_lse', 'context_lse', 'split_lse']);

function finish(w: Where, a: PathName, b: PathName, shape: number[], s: DiffSums): PairDiff {
  const na = Math.sqrt(s.aa);
  const nb = Math.sqrt(s.bb);
  // For an LSE the denominator is at least 1 nat per element, so that relErr bounds the relative error
  // of exp(lse) and an LSE near 0 (one key whose logit is near 0) is not judged by its cancellation.
  const denom = LOG_STAGES.has(w.stage) ? Math.max(na, nb, Math.sqrt(shape.reduce((x, y) => x * y, 1))) : Math.max(na, nb);
  return {
    ...w,
    a,
    b,
    shapeMatch: true,
    relErr: s.inf > 0 ? Infinity : denom > 0 ? Math.sqrt(s.dd) / denom : 0,
    maxAbsErr: s.maxAbs,
    maxAbsErrAt: unravel(s.at, shape),
    cosine: na > 0 && nb > 0 ? s.ab / (na * nb) : na === nb ? 1 : 0,
    normRatio: nb > 0 ? na / nb : na === 0 ? 1 : Infinity,
    nan: [s.nanA, s.nanB],
    infMismatch: s.inf,
  };
}

export function mismatch(w: Where, a: PathName, b: PathName): PairDiff {
  return {
    ...w,
    a,
    b,
    shapeMatch: false,
    relErr: null,
    maxAbsErr: null,
    maxAbsErrAt: null,
    cosine: null,
    normRatio: null,
    nan: [0, 0],
    infMismatch: 0,
  };
}

/**
 * Diff sums on the device, finished in float64: through the device's fused kernel where it has one (one pass, one
 * small read), else from per-row reductions by tfjs ops.
 */
async function deviceDiff(tf: typeof tfc, A: tfc.Tensor, B: tfc.Tensor, kernel?: DiffKernel): Promise<DiffSums> {
  if (!A.size) return zeroSums();
  if (kernel) {
    const partials = kernel.launch(A, B);
    try {
      return diffFromPartials(await partials.data(), kernel.groupSize, A.size);
    } finally {
      partials.dispose();
    }
  }
  const cols = A.shape[A.rank - 1] ?? 1;
  const rows = cols ? A.size / cols : 0;
  const [floats, ints] = tf.tidy(() => {
    const [a2, b2] = [tf.reshape(A, [rows, cols]), tf.reshape(B, [rows, cols])];
    const both = tf.logicalAnd(tf.isFinite(a2), tf.isFinite(b2));
    const [nanA, nanB] = [tf.isNaN(a2), tf.isNaN(b2)];
    const infOnly = tf.logicalAnd(tf.logicalNot(both), tf.logicalNot(tf.logicalOr(nanA, nanB)));
    const a = tf.where(both, a2, tf.zerosLike(a2));
    const b = tf.where(both, b2, tf.zerosLike(b2));
    const d = tf.sub(a, b);
    const absd = tf.abs(d);
    const count = (m: tfc.Tensor) => tf.sum(tf.cast(m, 'int32'), 1);
    return [
      tf.stack([tf.sum(tf.square(d), 1), tf.sum(tf.square(a), 1), tf.sum(tf.square(b), 1), tf.sum(tf.mul(a, b), 1), tf.max(absd, 1)]),
      tf.stack([tf.argMax(absd, 1), count(nanA), count(nanB), count(tf.logicalAnd(infOnly, tf.notEqual(a2, b2)))]),
    ];
  });
  const [f, n] = await Promise.all([floats.data(), ints.data()]);
  tf.dispose([floats, ints]);
  const s = zeroSums();
  for (let r = 0; r < rows; r++) {
    s.dd += f[r] as number;
    s.aa += f[rows + r] as number;
    s.bb += f[2 * rows + r] as number;
    s.ab += f[3 * rows + r] as number;
    if ((f[4 * rows + r] as number) > s.maxAbs) {
      s.maxAbs = f[4 * rows + r] as number;
      s.at = r * cols + (n[r] as number);
    }
    s.nanA += n[rows + r] as number;
    s.nanB += n[2 * rows + r] as number;
    s.inf += n[3 * rows + r] as number;
  }
  return s;
}

/** The sums over [from, to) of both (the whole arrays unless given). */
function hostDiff(a: ArrayLike<number>, b: ArrayLike<number>, s: DiffSums = zeroSums(), from = 0, to = a.length): DiffSums {
  for (let i = from; i < to; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    if (x !== x || y !== y) {
      if (x !== x) s.nanA++;
      if (y !== y) s.nanB++;
      continue;
    }
    if (x - x !== 0 || y - y !== 0) {
      if (x !== y) s.inf++;
      continue;
    } // an infinity: agrees only with itself
    const d = x - y;
    s.dd += d * d;
    s.aa += x * x;
    s.bb += y * y;
    s.ab += x * y;
    const ad = abs(d);
    if (ad > s.maxAbs) {
      s.maxAbs = ad;
      s.at = i;
    }
  }
  return s;
}

/** A captured value on the host, in the stage's canonical layout (zero-copy where possible). */
export async function toHost(
  tf: typeof tfc,
  view: HostView,
  c: Captured,
  canonical: string,
): Promise<{ data: Float32Array | Float64Array; shape: number[] }> {
  const perm = permutation(c.layout, canonical);
  if (c.where === 'host') return transposeHost(c.data, c.shape, perm);
  const v = view(c.tensor);
  if (v) return transposeHost(v, c.tensor.shape, perm);
  const t = isIdentity(perm) ? c.tensor : tf.transpose(c.tensor, perm);
  const data = (await t.data()) as Float32Array;
  const shape = t.shape.slice();
  if (t !== c.tensor) t.dispose();
  return { data, shape };
}

const sameShape = (x: readonly number[], y: readonly number[]) => x.length === y.length && x.every((d, i) => d === y[i]);

/**
 * Diff of one record between two paths. Two device tensors are reduced on the device (by `kernel`, the
 * device's fused pair diff, where given) unless the backend offers host views (cpu, wasm), where the
 * float64 host loop is exact and allocates nothing.
 */
export async function diffCaptured(
  tf: typeof tfc,
  view: HostView,
  w: Where,
  a: [PathName, Captured],
  b: [PathName, Captured],
  kernel?: DiffKernel,
): Promise<PairDiff> {
  const canonical = STAGES[w.stage].layout;
  const [an, av] = a;
  const [bn, bv] = b;
  if (av.where === 'device' && bv.where === 'device' && !view(av.tensor)) {
    const pa = permutation(av.layout, canonical);
    const pb = permutation(bv.layout, canonical);
    const A = isIdentity(pa) ? av.tensor : tf.transpose(av.tensor, pa);
    const B = isIdentity(pb) ? bv.tensor : tf.transpose(bv.tensor, pb);
    try {
      if (!sameShape(A.shape, B.shape)) return mismatch(w, an, bn);
      return finish(w, an, bn, A.shape.slice(), await deviceDiff(tf, A, B, kernel));
    } finally {
      if (A !== av.tensor) A.dispose();
      if (B !== bv.tensor) B.dispose();
    }
  }
  const ha = await toHost(tf, view, av, canonical);
  const hb = await toHost(tf, view, bv, canonical);
  if (!sameShape(ha.shape, hb.shape)) return mismatch(w, an, bn);
  if ((av.where === 'host' && av.masked) || (bv.where === 'host' && bv.masked)) {
    // logits one side wrote after the causal mask: the visible keys of each query row only, on both sides
    const s = zeroSums();
    visibleRuns(ha.shape, (from, to) => hostDiff(ha.data, hb.data, s, from, to));
    return finish(w, an, bn, ha.shape, s);
  }
  return finish(w, an, bn, ha.shape, hostDiff(ha.data, hb.data));
}
