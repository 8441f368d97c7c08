import type { CaseComparison, StageVerdict } from '../compare/compare';
import type { ReplayInput, ReplayMode, ReplayResult } from '../compare/origin';
import type { ToleranceSpec } from '../compare/tolerance';
import { toleranceFor } from '../compare/tolerance';
import { DATAFLOW } from '../../core/probes/dataflow';
import type { StageInput } from '../../core/probes/dataflow';
import { recordKey } from '../../core/probes/recorder';
import type { DevicePath, PathName, StageName } from '../../trace/stages';
import { STAGES } from '../../trace/stages';
import type { Culprit } from '../scenario/scenario';
import type { Where } from './diff';
import type { CaseTrace } from './trace';

/**
 * Which divergent records a stage replay re-runs, in which path, from whose values. Pure: a
 * recorded case and its comparison in, replay tasks (grouped into runs) and the records settled
 * without running (undetermined, not replayed) out.
 */
export const REPLAY_CAP = 24;

export interface ReplayTask {
  where: Where;
  path: DevicePath;
  /** A at the record: the path and the key of its record (a weight is recorded once per run). */
  source: PathName;
  sourceKey: string;
  /** B's key → A's path and key. */
  subs: Map<string, { from: PathName; key: string }>;
  inputs: ReplayInput[];
  tolerance: number;
}

/** Tasks of one path and piece re-run together: no target is another's substituted input. */
export interface ReplayGroup {
  path: DevicePath;
  piece: { step: number; request: string };
  tasks: ReplayTask[];
}

export interface ReplayPlan {
  groups: ReplayGroup[];
  settled: ReplayResult[];
}

/** The paths replayed for a culprit: the named one; both engine paths when both or neither is named. */
export function replayPaths(c: Culprit | null): DevicePath[] {
  return c === 'mha' || c === 'mqa' || c === 'cold' ? [c] : ['mha', 'mqa'];
}

const FALLBACK: Record<DevicePath, PathName[]> = { mha: ['mqa', 'cold'], mqa: ['mha', 'cold'], cold: ['mha', 'mqa'] };
const samePiece = (a: { step: number; request: string }, b: { step: number; request: string }) =>
  a.step === b.step && a.request === b.request;

/** Divergent records to replay: all of the first divergent piece, the first of each later one (`on`: all). */
function selectRecords(comparison: CaseComparison, mode: ReplayMode): StageVerdict[] {
  // An external backend cannot be re-run from substituted inputs: its records are not replayed.
  const bad = comparison.stages.filter((v) => v.verdict !== 'ok' && v.culprit !== 'external');
  if (mode === 'on') return bad;
  const first = bad[0];
  return bad.filter((v, i) => (first && samePiece(v, first)) || !bad.slice(0, i).some((u) => samePiece(u, v)));
}

export function planReplay(trace: CaseTrace, comparison: CaseComparison, mode: ReplayMode, tolerances: ToleranceSpec): ReplayPlan {
  const keys = new Map<PathName, Set<string>>();
  const weightKey = new Map<string, string>(); // `${path}:${stage}` → the key of its one record
  for (const [p, t] of Object.entries(trace.paths)) {
    keys.set(p as PathName, new Set(t!.stages.map((r) => recordKey(r))));
    for (const r of t!.stages)
      if (STAGES[r.stage].kind === 'weight' && !weightKey.has(`${p}:${r.stage}`)) weightKey.set(`${p}:${r.stage}`, recordKey(r));
  }
  const has = (p: PathName, key: string) => keys.get(p)?.has(key) ?? false;
  /** A's path and key for B's record: the reference first, else the other paths that have it. */
  const sourceOf = (b: DevicePath, w: Where): { from: PathName; key: string } | null => {
    for (const p of ['reference', ...FALLBACK[b]] as PathName[]) {
      const key = STAGES[w.stage].kind === 'weight' ? weightKey.get(`${p}:${w.stage}`) : recordKey(w);
      if (key && has(p, key)) return { from: p, key };
    }
    return null;
  };
  // The tolerance each record was judged with (k × its floor under floor-based tolerances).
  const judged = new Map(comparison.stages.map((v) => [recordKey(v), v.tolerance]));
  const tolerance = (w: Where) => judged.get(recordKey(w)) ?? toleranceFor(w.stage, tolerances);
  const settled: ReplayResult[] = [];
  const tasks: ReplayTask[] = [];
  const settle = (w: Where, path: DevicePath, origin: ReplayResult['origin'], reason: string, source: PathName | null = null) =>
    settled.push({ ...w, path, origin, source, relErrAfter: null, tolerance: tolerance(w), inputs: [], reason });
  const pieceIndex = (w: Where) => trace.pieces.findIndex((p) => samePiece(p, w));
  for (const v of selectRecords(comparison, mode)) {
    const where: Where = { step: v.step, request: v.request, stage: v.stage, ...(v.chunk === undefined ? {} : { chunk: v.chunk }) };
    const paths = replayPaths(v.culprit).filter((p) => has(p, recordKey(where)));
    if (!paths.length)
      settle(where, replayPaths(v.culprit)[0]!, 'undetermined', `no path named by culprit ${v.culprit} recorded ${v.stage} here`);
    for (const b of paths) {
      if (mode === 'auto' && tasks.length >= REPLAY_CAP) {
        settle(where, b, 'not-replayed', `over the cap of ${REPLAY_CAP} replays per case`);
        continue;
      }
      const t = resolve(trace, where, b, pieceIndex(where), has, sourceOf, tolerance(where));
      if (typeof t === 'string') settle(where, b, 'undetermined', t, sourceOf(b, where)?.from ?? null);
      else tasks.push(t);
    }
  }
  return { groups: group(tasks), settled };
}

type Has = (p: PathName, key: string) => boolean;
type SourceOf = (b: DevicePath, w: Where) => { from: PathName; key: string } | null;

/** The task of one record in path b, or why it cannot be replayed. */
function resolve(
  trace: CaseTrace,
  where: Where,
  b: DevicePath,
  index: number,
  has: Has,
  sourceOf: SourceOf,
  tolerance: number,
): ReplayTask | string {
  const flow = DATAFLOW[b][where.stage];
  if (!flow) return `${b} has no dataflow for ${where.stage}`;
  const target = sourceOf(b, where);
  if (!target) return `no other path recorded ${where.stage} here`;
  const wanted: Where[] = [];
  const scope = { step: where.step, request: where.request };
  for (const input of flow.inputs) {
    const w = inputRecord(trace, b, where, input, has);
    if (w) wanted.push(w);
  }
  if (flow.history) {
    for (const p of trace.pieces.slice(0, index).filter((x) => x.request === where.request)) {
      if (p.kind === 'cached') return `reads latent rows of the prefix-cache fill at step ${p.step}, which no path records`;
      for (const stage of flow.history) wanted.push({ step: p.step, request: p.request, stage });
    }
  }
  const subs = new Map<string, { from: PathName; key: string }>();
  const inputs: ReplayInput[] = [];
  for (const w of wanted) {
    const src = sourceOf(b, w);
    const label = `${w.stage}${w.chunk === undefined ? '' : `[${w.chunk}]`}${samePiece(w, scope) ? '' : ` of step ${w.step}`}`;
    if (!src) return `input ${label} is recorded by ${b} only`;
    // Weights are tapped in the replayed piece (the earlier ones run unrecorded).
    const key = recordKey(STAGES[w.stage].kind === 'weight' ? { ...scope, stage: w.stage } : w);
    subs.set(key, src);
    inputs.push({ ...w, from: src.from });
  }
  return { where, path: b, source: target.from, sourceKey: target.key, subs, inputs, tolerance };
}

/** The record of an input in b's trace (weights: always, b taps them in the replayed piece), or null when b has none there. */
function inputRecord(trace: CaseTrace, b: DevicePath, where: Where, input: StageInput, has: Has): Where | null {
  const scope = { step: where.step, request: where.request };
  if (STAGES[input.stage].kind === 'weight') return { ...scope, stage: input.stage };
  // Sampled logits rows (schedule.logits_rows) are computed beside the attention: only their probabilities read them.
  if (
    input.stage === 'logits' &&
    where.stage !== 'attn_probs' &&
    trace.paths[b]!.pieces.find((p) => samePiece(p, where))?.scalars.logits_rows !== undefined
  )
    return null;
  let chunk: number | undefined;
  if (input.chunk === 'same') chunk = where.chunk;
  else if (input.chunk === 'prev') chunk = where.chunk === undefined ? -1 : where.chunk - 1;
  else if (input.chunk === 'last') {
    const chunks = trace.paths[b]!.stages.filter((r) => samePiece(r, where) && r.stage === input.stage && r.chunk !== undefined).map(
      (r) => r.chunk!,
    );
    chunk = chunks.length ? Math.max(...chunks) : -1;
  }
  if (chunk !== undefined && chunk < 0) return null;
  const w: Where = { ...scope, stage: input.stage as StageName, ...(chunk === undefined ? {} : { chunk }) };
  return has(b, recordKey(w)) ? w : null;
}

/** Greedy: a task joins the first run of its path and piece where it neither is nor substitutes a target. */
function group(tasks: ReplayTask[]): ReplayGroup[] {
  const groups: ReplayGroup[] = [];
  for (const t of tasks) {
    const key = recordKey(t.where);
    const fits = (g: ReplayGroup) =>
      g.path === t.path &&
      samePiece(g.piece, t.where) &&
      g.tasks.every((u) => !u.subs.has(key) && !t.subs.has(recordKey(u.where)) && u.where.stage !== t.where.stage);
    const g = groups.find(fits);
    if (g) g.tasks.push(t);
    else groups.push({ path: t.path, piece: { step: t.where.step, request: t.where.request }, tasks: [t] });
  }
  return groups;
}
