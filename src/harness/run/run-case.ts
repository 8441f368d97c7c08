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
import { executionOrder, recordKey } from '../../core/probes/recorder';
import { TensorRecorder } from '../../core/probes/tensor-recorder';
import type { DevicePath, PathName, StageName } from '../../trace/stages';
import type { Runtime } from '../../devices/runtime';
import { guarded } from '../../devices/device-errors';
import type { CaseSpec, Scenario } from '../scenario/scenario';
import { measureDetail } from './detail';
import type { PairDiff, Where } from './diff';
import { diffCaptured } from './diff';
import { checkExternalLayout } from './external-layout';
import { normDiff } from './norm-diff';
import type { ExternalRun } from '../external/external';
import type { ReferenceCase } from './reference-job';
import { RETAINED } from './reference-job';
import type { Progress } from './progress';
import { during, NO_PROGRESS } from './progress';
import { replayCase } from './replay';
import { stepPaths } from './step-paths';
import type { CaseResult, CaseTrace, PieceInfo } from './trace';

/** Pairs compared at every record both paths have, engine pair first, the external path last. */
const PAIRS: [PathName, PathName][] = [
  ['mha', 'mqa'],
  ['mha', 'cold'],
  ['mqa', 'cold'],
  ['mha', 'reference'],
  ['mqa', 'reference'],
  ['cold', 'reference'],
  ['external', 'mha'],
  ['external', 'mqa'],
  ['external', 'cold'],
  ['external', 'reference'],
];

/** Every record any path made, in order: piece order of the schedule, then pipeline order. */
function orderedRecords(rec: Partial<Record<PathName, Recording>>, pieces: readonly PieceInput[]): Where[] {
  const seen = new Map<string, Where>();
  for (const r of Object.values(rec))
    for (const s of r!.trace.stages)
      seen.set(recordKey(s), { step: s.step, request: s.request, stage: s.stage, ...(s.chunk === undefined ? {} : { chunk: s.chunk }) });
  return [...seen.values()].sort(executionOrder(pieces));
}

async function diffAll(
  rt: Runtime,
  rec: Partial<Record<PathName, Recording>>,
  pieces: readonly PieceInput[],
  tick: (done: number, total: number) => void = () => {},
): Promise<PairDiff[]> {
  const diffs: PairDiff[] = [];
  const statsOnly = new Map((rec.external?.trace.stages ?? []).filter((r) => r.statsOnly).map((r) => [recordKey(r), r]));
  const records = orderedRecords(rec, pieces);
  for (const [i, w] of records.entries()) {
    tick(i, records.length);
    const key = recordKey(w);
    for (const [a, b] of PAIRS) {
      const ca = rec[a]?.captured.get(key);
      const cb = rec[b]?.captured.get(key);
      if (ca && cb) diffs.push(await diffCaptured(rt.tf, (t) => rt.hostView(t), w, [a, ca], [b, cb]));
      const so = a === 'external' ? statsOnly.get(key) : undefined;
      const rb = so && rec[b]?.trace.stages.find((r) => recordKey(r) === key);
      if (so && rb) diffs.push(normDiff(w, a, so, b, rb));
    }
  }
  return diffs;
}

function release(rec: Partial<Record<PathName, Recording>>): void {
  for (const r of Object.values(rec)) for (const c of r?.captured.values() ?? []) if (c.where === 'device') c.tensor.dispose();
}

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
}

/** Runs the schedule through every device path of one case, joins the reference, measures, judges. */
export async function runCase(rt: Runtime, s: Scenario, run: CaseRun): Promise<CaseResult> {
  const paths: MlaBackend<tfc.Tensor>[] = [
    new MhaBackend(run.layer, s.faults.mha, run.numSlots, run.kernels, pathRounding(rt, run.kernels, 'mha')),
    new MqaBackend(run.layer, s.faults.mqa, run.numSlots, run.kernels, pathRounding(rt, run.kernels, 'mqa')),
    ...(run.cold ? [new ColdBackend(run.layer, pathRounding(rt, run.kernels, 'cold'), run.kernels.keyPart)] : []),
  ];
  // With fused attention the score tensor is never formed: the engine paths record no logits / attn_probs, unless sampled rows of them.
  const filter =
    run.layer.attention && !s.schedule.logitsRows ? (stage: StageName) => stage !== 'logits' && stage !== 'attn_probs' : undefined;
  const recorders = paths.map(
    () =>
      new TensorRecorder(rt.tf, { retain: RETAINED, stats: rt.stats, offload: rt.retainOnHost, ...(filter ? { filter } : {}) }, (t) =>
        rt.hostView(t),
      ),
  );
  const rec: Partial<Record<PathName, Recording>> = {};
  const seconds: CaseTrace['seconds'] = {};
  try {
    let done = 0;
    for (const plain of run.pieces) {
      run.progress?.(done, plain); // the piece about to run
      // The piece's embeddings go to the device once, for every path.
      const piece: PieceInput = {
        ...plain,
        deviceEmbeddings: rt.tf.keep(rt.tf.tensor2d(plain.embeddings, [plain.positions.length, run.layer.model.hidden_size])),
      };
      try {
        // Every path's step enqueued before any is awaited (the GPU runs one while the host encodes the next);
        // after an out-of-memory the device's numbers are garbage: stop, say so.
        const took = await guarded(rt, () => stepPaths(paths, recorders, piece));
        for (const [i, path] of paths.entries()) seconds[path.name] = (seconds[path.name] ?? 0) + took[i]!;
      } finally {
        piece.deviceEmbeddings!.dispose();
      }
      done++;
    }
    if (run.pieces.length) run.progress?.(done, run.pieces[run.pieces.length - 1]!);
    for (const [i, path] of paths.entries()) rec[path.name] = await guarded(rt, () => recorders[i]!.finish(path.name));
    const say = run.report ?? NO_PROGRESS;
    const named = `case ${run.spec.name}`;
    if (run.reference) {
      const r = await during(say, 'reference', `${named} · float64 reference`, () => run.reference!);
      rec.reference = {
        trace: r.trace,
        captured: new Map(r.captured.map((c) => [c.key, { where: 'host', data: c.data, shape: c.shape, layout: c.layout }])),
      };
    }
    // after the device paths: a GPU backend has the device to itself
    const ext = run.external ? await during(say, 'external', `${named} · third-party path`, run.external) : null;
    if (ext) {
      rec.external = ext.recording;
      seconds.external = ext.seconds;
    }
    const trace: CaseTrace = {
      name: run.spec.name,
      label: run.spec.label,
      heads: run.spec.heads,
      totalHeads: s.config.num_attention_heads,
      pieces: run.pieces.map(pieceInfo),
      paths: Object.fromEntries(Object.entries(rec).map(([p, r]) => [p, r!.trace])),
      // elementwise on the device: it allocates too
      diffs: await guarded(rt, () =>
        diffAll(rt, rec, run.pieces, (done, total) => say({ phase: 'compare', done, total, label: `${named} · records compared` })),
      ),
      expectedSoftmaxScale: softmaxScale(s.config),
      seconds,
      notes: run.notes,
      ...(ext ? { external: withRopeTerm(ext.info, s.config, run.pieces) } : {}),
      ...(rounds(s.precision)
        ? { dtypes: Object.fromEntries(paths.map((p) => [p.name, stageDtypes(s.precision, p.name as DevicePath)])) }
        : {}),
    };
    const comparison = compareCase(trace, s.tolerances);
    // a third party's first divergence that is its layout (LSE [T, N] read as [N, T] when T = N): external-layout, exit 2
    const block = ext?.info.kind === 'trace' ? 'trace' : 'external';
    if (ext) await guarded(rt, () => checkExternalLayout(rt.tf, (t) => rt.hostView(t), rec, comparison, ext.layouts, block));
    const mode = run.replay ?? s.replay;
    const replayTick = (done: number, total: number) => say({ phase: 'replay', done, total, label: `${named} · stage replay` });
    const replayed = await guarded(rt, () => replayCase(rt, s, run, rec, trace, comparison, mode, replayTick));
    const replay = mode === 'off' ? replayed : withExternalOrigins(replayed, trace, comparison); // the third party's: from its records
    const view = diagnosisView(comparison, replay);
    const detail = comparison.firstDivergence
      ? await during(say, 'detail', `${named} · detail of the divergent stages`, () =>
          guarded(rt, () => measureDetail(rt.tf, (t) => rt.hostView(t), rec, run.pieces, comparison.stages)),
        )
      : undefined;
    const expectation = s.expect ? checkExpectation(s.expect, comparison) : undefined;
    return {
      trace,
      comparison,
      ...(detail ? { detail } : {}),
      diagnosis: diagnose(trace, view, s.config, detail),
      ...(replay ? { replay } : {}),
      ...(expectation ? { expectation } : {}),
      outcome: judgeCase({ comparison, expectation }, s.expect?.outcome, 'expect').outcome,
    };
  } finally {
    recorders.forEach((r) => r.dispose());
    paths.forEach((p) => p.dispose());
    release(rec);
  }
}
