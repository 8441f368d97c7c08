import type * as tfc from '@tensorflow/tfjs-core';
import type { KernelOptions, MlaBackend, PieceInput } from '../../paths/backend';
import { ColdBackend } from '../../paths/cold';
import type { DeviceLayer } from '../../paths/layer';
import { MhaBackend } from '../../paths/mha';
import { MqaBackend } from '../../paths/mqa';
import { compareCase } from '../compare/compare';
import { pathRounding } from '../../paths/rounding';
import { rounds, stageDtypes } from '../../core/precision/plan';
import { diagnose } from '../compare/diagnose';
import type { ReplayMode } from '../compare/origin';
import { diagnosisView } from '../compare/origin';
import { withExternalOrigins } from '../compare/origin-external';
import { checkExpectation } from '../compare/expect';
import { judgeCase } from '../compare/outcome';
import { softmaxScale } from '../../core/model/config';
import { withRopeTerm } from './third-party';
import type { Recording } from '../../core/probes/recorder';
import { TensorRecorder } from '../../core/probes/tensor-recorder';
import type { DevicePath, PathName, StageName } from '../../trace/stages';
import { PATH_NAMES } from '../../trace/stages';
import type { Runtime } from '../../devices/runtime';
import { guarded } from '../../devices/device-errors';
import type { CaseSpec, Scenario } from '../scenario/scenario';
import { measureDetail } from './detail';
import { caseDiffs } from './case-diffs';
import { checkExternalLayout } from './external-layout';
import type { ExternalRun } from '../external/external';
import type { ReferenceCase } from './reference-job';
import type { Progress } from './progress';
import { during, NO_PROGRESS } from './progress';
import { replayCase } from './replay';
import { stepPaths } from './step-paths';
import { planReplay } from './replay-plan';
import { missing, neededRecords, recapture } from './recapture';
import type { PieceValues } from './stream';
import { StreamCompare } from './stream';
import { retention, STATS_ONLY_FROM } from './retain';
import type { CaseResult, CaseTrace, PieceInfo } from './trace';

export const pieceInfo = (p: PieceInput): PieceInfo => ({
  step: p.step,
  request: p.request,
  kind: p.kind,
  route: p.route,
  start: p.start,
  count: p.ids.length,
  chunks: p.chunks.length,
});

export interface CaseRun {
  spec: CaseSpec;
  layer: DeviceLayer;
  pieces: readonly PieceInput[];
  kernels: KernelOptions;
  numSlots: number;
  cold: boolean;
  reference: Promise<ReferenceCase> | null;
  /** An external backend or an engine dump, run after the device paths (path `external`). */
  external?: (() => Promise<ExternalRun>) | null;
  notes: string[];
  /** Stage replay of divergent records (default: the scenario's `replay:`). */
  replay?: ReplayMode;
  /** Called before each piece runs through every device path (pieces done so far, that piece), and once all are done. */
  progress?: (done: number, piece: PieceInput) => void;
  /** The waits after the pieces: the reference, an external backend, the comparison, replay, detail. */
  report?: Progress;
  /** Bytes of engine-path values kept for detail and replay past their piece's comparison (default KEEP_BYTES; StreamCompare). */
  keepBytes?: number;
  /** Token-heads of a piece from which values no pair reads are not kept (default STATS_ONLY_FROM; retain.ts). */
  statsOnlyFrom?: number;
}

/**
 * Engine-path values kept past their piece's comparison, so that detail and replay of a divergent case
 * need no re-run: every value of a small run, the first pieces of a long one (its later values released
 * as they are compared, and re-run on demand: recapture.ts).
 */
export const KEEP_BYTES = 2 * 2 ** 30;

/** Runs the schedule through every device path of one case, compares piece by piece, joins the third parties, judges. */
export async function runCase(rt: Runtime, s: Scenario, run: CaseRun): Promise<CaseResult> {
  const paths: MlaBackend<tfc.Tensor>[] = [
    new MhaBackend(run.layer, s.faults.mha, run.numSlots, run.kernels, pathRounding(rt, run.kernels, 'mha')),
    new MqaBackend(run.layer, s.faults.mqa, run.numSlots, run.kernels, pathRounding(rt, run.kernels, 'mqa')),
    ...(run.cold ? [new ColdBackend(run.layer, pathRounding(rt, run.kernels, 'cold'), run.kernels.keyPart)] : []),
  ];
  // With fused attention the score tensor is never formed: the engine paths record no logits / attn_probs, unless sampled rows of them.
  const filter =
    run.layer.attention && !s.schedule.logitsRows ? (stage: StageName) => stage !== 'logits' && stage !== 'attn_probs' : undefined;
  const view = (t: tfc.Tensor) => rt.hostView(t);
  // In a large case, values kept only of the stages a pair will diff: the rest are statistics only (retain.ts).
  const tokenHeads = Math.max(0, ...run.pieces.map((p) => p.ids.length)) * run.spec.heads.count;
  const keep = retention(
    paths.map((p) => p.name),
    { reference: !!run.reference, external: !!run.external },
    tokenHeads,
    run.statsOnlyFrom,
  );
  const recorders = paths.map(
    (p) =>
      new TensorRecorder(
        rt.tf,
        { retain: keep.stages(p.name), stats: rt.stats, offload: rt.retainOnHost, ...(filter ? { filter } : {}) },
        view,
      ),
  );
  const rec: Partial<Record<PathName, Recording>> = {};
  const seconds: CaseTrace['seconds'] = {};
  const say = run.report ?? NO_PROGRESS;
  const named = `case ${run.spec.name}`;
  const third: { ext: ExternalRun | null } = { ext: null };
  // The reference's worker and an external backend are awaited when the comparison needs them: after the device paths,
  // or as soon as the engine-path values held for them pass the budget.
  const thirdParties = async () => {
    if (run.reference) {
      const r = await during(say, 'reference', `${named} · float64 reference`, () => run.reference!);
      rec.reference = {
        trace: r.trace,
        captured: new Map(r.captured.map((c) => [c.key, { where: 'host', data: c.data, shape: c.shape, layout: c.layout }])),
      };
    }
    // the engine paths hold only their caches and the values within the budget: a GPU backend has the device nearly to itself
    third.ext = run.external ? await during(say, 'external', `${named} · third-party path`, run.external) : null;
    if (third.ext) {
      rec.external = third.ext.recording;
      seconds.external = third.ext.seconds;
    }
  };
  const stream = new StreamCompare(rec, {
    tf: rt.tf,
    view,
    budget: run.keepBytes ?? KEEP_BYTES,
    diff: rt.diff,
    thirdParties: run.reference || run.external ? thirdParties : null,
  });
  const memory = { peakBytes: 0, heldBytes: 0, valueBytes: 0, rerunPieces: 0 };
  try {
    await rt.pipelines?.ready(); // the shaders earlier runs compiled, compiled again meanwhile in parallel
    let done = 0;
    for (const plain of run.pieces) {
      run.progress?.(done, plain); // the piece about to run
      // The piece's embeddings go to the device once, for every path.
      const piece: PieceInput = {
        ...plain,
        deviceEmbeddings: rt.tf.keep(rt.tf.tensor2d(plain.embeddings, [plain.positions.length, run.layer.model.hidden_size])),
      };
      try {
        // Every path's step enqueued before any is awaited (the GPU runs one while the host encodes the next), but
        // one path at a time in a large case's pieces that attend a context (step-paths.ts: memory); after an
        // out-of-memory the device's numbers are garbage: stop, say so.
        const serial = plain.start > 0 && plain.ids.length * run.spec.heads.count >= (run.statsOnlyFrom ?? STATS_ONLY_FROM);
        const took = await guarded(rt, () => stepPaths(paths, recorders, piece, serial, rt.settle));
        for (const [i, path] of paths.entries()) seconds[path.name] = (seconds[path.name] ?? 0) + took[i]!;
      } finally {
        piece.deviceEmbeddings!.dispose();
      }
      memory.peakBytes = Math.max(memory.peakBytes, deviceBytes(rt)); // the piece's values all held
      const values: PieceValues = new Map(paths.map((p, i) => [p.name, new Map(recorders[i]!.drain().map((d) => [d.key, d]))]));
      await guarded(rt, () => stream.add(values)); // elementwise on the device: it allocates too
      rt.pool?.trim(); // the sizes this piece made and the next will not ask for
      done++;
    }
    if (run.pieces.length) run.progress?.(done, run.pieces[run.pieces.length - 1]!);
    rt.pipelines?.save(); // for the next run's start
    for (const [i, path] of paths.entries()) rec[path.name] = await guarded(rt, () => recorders[i]!.finish(path.name));
    const tick = (label: string) => (done: number, total: number) => say({ phase: 'compare', done, total, label: `${named} · ${label}` });
    await guarded(rt, () => stream.resolve(tick('pieces compared with the third parties')));
    inPathOrder(rec); // the third parties may have come in before the engine paths' recordings
    for (const [p, kept] of stream.take()) for (const [key, c] of kept) rec[p]!.captured.set(key, c);
    memory.heldBytes = stream.peakHeld;
    memory.valueBytes = stream.total;
    const ext = third.ext;
    const trace: CaseTrace = {
      name: run.spec.name,
      label: run.spec.label,
      heads: run.spec.heads,
      totalHeads: s.config.num_attention_heads,
      pieces: run.pieces.map(pieceInfo),
      paths: Object.fromEntries(Object.entries(rec).map(([p, r]) => [p, r!.trace])),
      diffs: await guarded(rt, () => caseDiffs(rt.tf, view, rec, run.pieces, stream.diffs, tick('records compared'))),
      expectedSoftmaxScale: softmaxScale(s.config),
      seconds,
      notes: run.notes,
      ...(ext ? { external: withRopeTerm(ext.info, s.config, run.pieces) } : {}),
      ...(rounds(s.precision)
        ? { dtypes: Object.fromEntries(paths.map((p) => [p.name, stageDtypes(s.precision, p.name as DevicePath)])) }
        : {}),
      memory,
    };
    const comparison = compareCase(trace, s.tolerances);
    const mode = run.replay ?? s.replay;
    if (stream.released || keep.dropped) {
      // the values detail and replay read that the stream released, or that were never kept: their pieces re-run
      const plan = mode !== 'off' && comparison.verdict !== 'agree' ? planReplay(trace, comparison, mode, s.tolerances) : null;
      const have = new Map(Object.entries(rec).map(([p, r]) => [p as PathName, r!.captured]));
      const need = missing(neededRecords(comparison, plan, rec), have);
      if (need.size) {
        const again = await recapture(rt, s, run, need, filter, tick('pieces re-run for the divergent records'));
        for (const [p, m] of again.values) for (const [key, c] of m) rec[p]!.captured.set(key, c);
        memory.rerunPieces = again.pieces;
      }
    }
    // a third party's first divergence that is its layout (LSE [T, N] read as [N, T] when T = N): external-layout, exit 2
    const block = ext?.info.kind === 'trace' ? 'trace' : 'external';
    if (ext) await guarded(rt, () => checkExternalLayout(rt.tf, view, rec, comparison, ext.layouts, block));
    const replayTick = (done: number, total: number) => say({ phase: 'replay', done, total, label: `${named} · stage replay` });
    const replayed = await guarded(rt, () => replayCase(rt, s, run, rec, trace, comparison, mode, replayTick));
    const replay = mode === 'off' ? replayed : withExternalOrigins(replayed, trace, comparison); // the third party's: from its records
    const view2 = diagnosisView(comparison, replay);
    const detail = comparison.firstDivergence
      ? await during(say, 'detail', `${named} · detail of the divergent stages`, () =>
          guarded(rt, () => measureDetail(rt.tf, view, rec, run.pieces, comparison.stages)),
        )
      : undefined;
    const expectation = s.expect ? checkExpectation(s.expect, comparison) : undefined;
    return {
      trace,
      comparison,
      ...(detail ? { detail } : {}),
      diagnosis: diagnose(trace, view2, s.config, detail),
      ...(replay ? { replay } : {}),
      ...(expectation ? { expectation } : {}),
      outcome: judgeCase({ comparison, expectation }, s.expect?.outcome, 'expect').outcome,
    };
  } finally {
    stream.dispose();
    recorders.forEach((r) => r.dispose());
    paths.forEach((p) => p.dispose());
    release(rec);
  }
}

/** Reorders rec's keys as PATH_NAMES (the order of trace.paths and of everything read from rec). */
function inPathOrder(rec: Partial<Record<PathName, Recording>>): void {
  for (const p of PATH_NAMES) {
    const r = rec[p];
    if (!r) continue;
    delete rec[p];
    rec[p] = r;
  }
}

function release(rec: Partial<Record<PathName, Recording>>): void {
  for (const r of Object.values(rec)) for (const c of r?.captured.values() ?? []) if (c.where === 'device') c.tensor.dispose();
}

/** The device's buffers, in use and pooled (webgpu), else tfjs's live tensor bytes. */
function deviceBytes(rt: Runtime): number {
  const b = rt.pool?.bytes();
  return b ? b.used + b.free : rt.tf.memory().numBytes;
}
