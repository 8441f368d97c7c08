import type { PieceInput } from '../../paths/backend';
import type { CaseComparison } from '../compare/compare';
import type { Captured, Recording } from '../../core/probes/recorder';
import { recordKey } from '../../core/probes/recorder';
import { NULL_PROBE } from '../../core/probes/probe';
import { TensorRecorder } from '../../core/probes/tensor-recorder';
import type { DevicePath, PathName, StageName } from '../../trace/stages';
import type { Runtime } from '../../devices/runtime';
import { guarded } from '../../devices/device-errors';
import type { Scenario } from '../scenario/scenario';
import { DETAIL_RECORDS } from './detail';
import { RETAINED } from './reference-job';
import type { ReplayJob } from './replay';
import { backend } from './replay';
import type { ReplayPlan } from './replay-plan';
import { isEngine } from './stream';

/** Engine-path records by path: the recordKeys a step reads. */
export type Needed = Map<DevicePath, Set<string>>;

const ENGINES: readonly DevicePath[] = ['mha', 'mqa', 'cold'];

/**
 * The engine-path values the steps after the comparison read: the detail of the first DETAIL_RECORDS
 * divergent records (every engine path there, and their pieces' attn_probs: measureDetail), which
 * covers the layout check of the first divergence (checkExternalLayout), and stage replay's substitutes
 * and sources (the plan's tasks). Only the records the case's traces hold.
 */
export function neededRecords(comparison: CaseComparison, plan: ReplayPlan | null, rec: Partial<Record<PathName, Recording>>): Needed {
  const need: Needed = new Map();
  const add = (p: PathName, key: string) => {
    if (!isEngine(p) || !rec[p]?.trace.stages.some((r) => recordKey(r) === key)) return;
    if (!need.has(p as DevicePath)) need.set(p as DevicePath, new Set());
    need.get(p as DevicePath)!.add(key);
  };
  for (const v of comparison.stages.filter((x) => x.verdict !== 'ok').slice(0, DETAIL_RECORDS)) {
    for (const p of ENGINES) {
      add(p, recordKey(v));
      add(p, recordKey({ step: v.step, request: v.request, stage: 'attn_probs' }));
    }
  }
  for (const g of plan?.groups ?? [])
    for (const t of g.tasks) {
      add(t.source, t.sourceKey);
      for (const s of t.subs.values()) add(s.from, s.key);
    }
  return need;
}

/** What `need` asks for that `have` does not hold, by path (empty: nothing to re-run). */
export function missing(need: Needed, have: ReadonlyMap<PathName, ReadonlyMap<string, Captured>>): Needed {
  const out: Needed = new Map();
  for (const [p, keys] of need) {
    const lack = [...keys].filter((k) => !have.get(p)?.has(k));
    if (lack.length) out.set(p, new Set(lack));
  }
  return out;
}

const pieceOf = (key: string) => key.split('/').slice(0, 2).join('/');

/**
 * The values of `need` again, from a fresh instance of each path run through the schedule up to the
 * last piece they belong to: only those pieces are recorded, and only those records retained (the
 * others run unprobed; cache fills fill). Same weights, faults and kernels as the case's run, so the
 * values are the ones the streaming comparison released. `tick` counts the pieces stepped.
 */
export async function recapture(
  rt: Runtime,
  s: Scenario,
  job: ReplayJob,
  need: Needed,
  filter: ((stage: StageName) => boolean) | undefined,
  tick: (done: number, total: number) => void = () => {},
): Promise<{ values: Map<DevicePath, Map<string, Captured>>; pieces: number }> {
  const values = new Map<DevicePath, Map<string, Captured>>();
  const runs = [...need].map(([p, keys]) => {
    const pieces = new Set([...keys].map(pieceOf));
    const last = job.pieces.reduce((at, x, i) => (pieces.has(`${x.step}/${x.request}`) ? i : at), -1);
    return { p, keys, pieces, upTo: job.pieces.slice(0, last + 1) };
  });
  const total = runs.reduce((n, r) => n + r.upTo.length, 0);
  let done = 0;
  try {
    for (const { p, keys, pieces, upTo } of runs) {
      const path = backend(rt, p, s, job);
      const opts = { retain: RETAINED, retainKey: (k: string) => keys.has(k), stats: rt.stats, offload: rt.retainOnHost };
      const recorder = new TensorRecorder(rt.tf, { ...opts, ...(filter ? { filter } : {}) }, (t) => rt.hostView(t));
      try {
        for (const piece of upTo) {
          tick(done++, total);
          await guarded(rt, () => step(path, recorder, piece, pieces.has(`${piece.step}/${piece.request}`)));
          rt.pool?.trim();
        }
        const r = await guarded(rt, () => recorder.finish(p));
        values.set(p, r.captured);
      } finally {
        recorder.dispose();
        path.dispose();
      }
    }
  } catch (e) {
    for (const m of values.values()) for (const c of m.values()) if (c.where === 'device') c.tensor.dispose();
    throw e;
  }
  tick(total, total);
  return { values, pieces: runs.reduce((n, r) => n + r.pieces.size, 0) };
}

async function step(path: ReturnType<typeof backend>, recorder: TensorRecorder, piece: PieceInput, recorded: boolean): Promise<void> {
  if (piece.kind === 'cached') return path.fill(piece);
  if (!recorded) return void (await path.step(piece, NULL_PROBE));
  recorder.at(piece);
  await path.step(piece, recorder);
  recorder.settle();
}
