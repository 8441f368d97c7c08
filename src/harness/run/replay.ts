import type * as tfc from '@tensorflow/tfjs-core';
import type { KernelOptions, MlaBackend, PieceInput } from '../../paths/backend';
import { ColdBackend } from '../../paths/cold';
import type { DeviceLayer } from '../../paths/layer';
import { MhaBackend } from '../../paths/mha';
import { MqaBackend } from '../../paths/mqa';
import type { CaseComparison } from '../compare/compare';
import { pairVerdict } from '../compare/compare';
import type { CaseReplay, ReplayMode, ReplayResult } from '../compare/origin';
import { NULL_PROBE } from '../../core/probes/probe';
import type { Recording } from '../../core/probes/recorder';
import { recordKey } from '../../core/probes/recorder';
import type { DevicePath, PathName } from '../../trace/stages';
import type { Runtime } from '../../devices/runtime';
import { pathRounding } from '../../paths/rounding';
import type { Scenario } from '../scenario/scenario';
import { diffCaptured } from './diff';
import type { ReplayGroup } from './replay-plan';
import { planReplay } from './replay-plan';
import type { Substitute } from './replay-probe';
import { ReplayProbe } from './replay-probe';
import type { CaseTrace } from './trace';

/** What a replay re-runs a path with: the case's layer, schedule and kernels. */
export interface ReplayJob {
  layer: DeviceLayer;
  pieces: readonly PieceInput[];
  kernels: KernelOptions;
  numSlots: number;
}

/** A fresh instance of path B, with the scenario's faults and kernels. */
export function backend(rt: Runtime, path: DevicePath, s: Scenario, job: ReplayJob): MlaBackend<tfc.Tensor> {
  const rd = pathRounding(rt, job.kernels, path);
  if (path === 'mha') return new MhaBackend(job.layer, s.faults.mha, job.numSlots, job.kernels, rd);
  if (path === 'mqa') return new MqaBackend(job.layer, s.faults.mqa, job.numSlots, job.kernels, rd);
  return new ColdBackend(job.layer, rd, job.kernels.keyPart);
}

/**
 * Stage replay (teacher forcing) of a divergent case: each selected record re-run in path B with
 * its direct inputs (and, for cache reads, the latent rows of earlier pieces) replaced by path A's
 * captured values, then B's new value judged against A's with the record's tolerance. `rec` holds
 * every path's captured values (the reference's on the host); nothing here changes them.
 */
export async function replayCase(
  rt: Runtime,
  s: Scenario,
  job: ReplayJob,
  rec: Partial<Record<PathName, Recording>>,
  trace: CaseTrace,
  comparison: CaseComparison,
  mode: ReplayMode,
  /** Groups replayed so far of all (each group: one path re-run up to one piece). */
  tick: (done: number, total: number) => void = () => {},
): Promise<CaseReplay | undefined> {
  if (mode === 'off' || comparison.verdict === 'agree') return undefined;
  const t0 = performance.now();
  const plan = planReplay(trace, comparison, mode, s.tolerances);
  if (!plan.groups.length && !plan.settled.length) return undefined; // nothing replayable (e.g. every divergence is the external path's)
  const results: ReplayResult[] = [...plan.settled];
  for (const [i, g] of plan.groups.entries()) {
    tick(i, plan.groups.length);
    results.push(...(await runGroup(rt, s, job, rec, g)));
  }
  tick(plan.groups.length, plan.groups.length);
  const order = new Map(comparison.stages.map((v, i) => [recordKey(v), i]));
  results.sort((a, b) => (order.get(recordKey(a)) ?? 0) - (order.get(recordKey(b)) ?? 0) || a.path.localeCompare(b.path));
  return { results, runs: plan.groups.length, seconds: (performance.now() - t0) / 1000 };
}

async function runGroup(
  rt: Runtime,
  s: Scenario,
  job: ReplayJob,
  rec: Partial<Record<PathName, Recording>>,
  g: ReplayGroup,
): Promise<ReplayResult[]> {
  const subs = new Map<string, Substitute>();
  for (const t of g.tasks) for (const [key, src] of t.subs) subs.set(key, { from: src.from, value: rec[src.from]!.captured.get(src.key)! });
  const probe = new ReplayProbe(rt.tf, g.piece, new Set(g.tasks.map((t) => t.where.stage)), subs, (t) => rt.hostView(t), rt.stats);
  const path = backend(rt, g.path, s, job);
  let recording: Recording | null = null;
  try {
    const last = job.pieces.findIndex((p) => p.step === g.piece.step && p.request === g.piece.request);
    for (const piece of job.pieces.slice(0, last + 1)) {
      if (piece.kind === 'cached') {
        await path.fill(piece);
        continue;
      }
      probe.at(piece);
      await path.step(piece, piece.request === g.piece.request ? probe : NULL_PROBE);
    }
    recording = await probe.finish(g.path);
    const out: ReplayResult[] = [];
    for (const t of g.tasks) {
      const base = { ...t.where, path: t.path, source: t.source, tolerance: t.tolerance, inputs: t.inputs };
      const missing = [...t.subs.keys()].filter((k) => !probe.applied.has(k));
      const bad = probe.mismatches.find((m) => t.subs.has(m.key));
      const mine = recording.captured.get(recordKey(t.where));
      if (bad || missing.length || !mine) {
        const reason = bad
          ? `${bad.key}: A's value has shape [${bad.have}], ${t.path} taps [${bad.want}]`
          : missing.length
            ? `${missing.join(', ')} not substituted: ${t.path} did not reach the tap`
            : `${t.path} did not record ${t.where.stage} in the replay`;
        out.push({ ...base, origin: 'undetermined', relErrAfter: null, reason });
        continue;
      }
      const d = await diffCaptured(
        rt.tf,
        (x) => rt.hostView(x),
        t.where,
        [t.path, mine],
        [t.source, rec[t.source]!.captured.get(t.sourceKey)!],
        rt.diff,
      );
      const record = recording.trace.stages.find((r) => recordKey(r) === recordKey(t.where));
      const broken = (record?.checks ?? []).some((c) => c.violations > 0);
      const agrees = pairVerdict(d, t.tolerance) === 'ok' && !broken;
      out.push({ ...base, origin: agrees ? 'inherited' : 'introduced', relErrAfter: d.relErr });
    }
    return out;
  } finally {
    probe.dispose();
    path.dispose();
    for (const c of recording?.captured.values() ?? []) if (c.where === 'device') c.tensor.dispose();
  }
}
