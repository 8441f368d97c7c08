import type { StageInput } from '../../core/probes/dataflow';
import { DATAFLOW } from '../../core/probes/dataflow';
import { recordKey } from '../../core/probes/recorder';
import type { CaseComparison, CaseReplay, CaseTrace, ReplayInput, ReplayResult, StageVerdict, Where } from '../../trace';
import type { DevicePath, PathName, StageName } from '../../trace/stages';
import { STAGES } from '../../trace/stages';
import { judgedTolerance } from './compare';

/**
 * Origins of the third party's divergent records, read from its own records (mode `records`): it cannot be re-run from our
 * inputs, but where it recorded a stage's inputs their verdicts say the same thing a stage replay would. For each divergent
 * record whose culprit is `external`, the stage's inputs come from the dataflow (src/core/probes/dataflow.ts) of each
 * device path that computes it (mqa first for the absorbed stages, else mha, then the others), each input judged by the
 * third party's pair with the reference (else with an engine path) at that input record:
 * - an input divergent → `inherited` (under any dataflow: the divergence shows upstream in a record it made);
 * - else every input recorded and ok → `introduced` (under one dataflow: its inputs agree, its output does not);
 * - else `undetermined`: an input every formulation has (SHARED), recorded by our paths and not by the third party (`reason`
 *   names it); an input of one formulation only that it did not record is judged through that input's own inputs.
 * Inputs no path recorded in the piece (context merges without context, logits under fused attention) are not part of it;
 * a weight it did not report is the checkpoint we handed it (reading it is part of the stage). Pure.
 */

const ABSORBED_FIRST: readonly DevicePath[] = ['mqa', 'mha', 'cold'];
const EXPANDED_FIRST: readonly DevicePath[] = ['mha', 'mqa', 'cold'];
/**
 * Stages every formulation computes (each device path's dataflow has them): one the third party did not record is a gap
 * (undetermined). The others belong to one formulation (kv_nope, k, split_lse, the context merges, the absorbed query): a
 * third party need not have them, so an unrecorded one is looked through to its own inputs.
 */
const SHARED = new Set((Object.keys(DATAFLOW.mha) as StageName[]).filter((s) => EXPANDED_FIRST.every((p) => DATAFLOW[p][s] !== undefined)));

type Judged = { w: Where; against: PathName; ok: boolean };
type Outcome = { origin: ReplayResult['origin']; inputs: ReplayInput[]; reason: string };

const label = (w: Where, scope: Where) => {
  const elsewhere = w.step !== scope.step || w.request !== scope.request;
  return `${w.stage}${w.chunk === undefined ? '' : `[${w.chunk}]`}${elsewhere ? ` of step ${w.step}` : ''}`;
};

/** The third party's pair at a record: with the reference, else with an engine path. */
export function externalPair(v: StageVerdict): StageVerdict['pairs'][number] | undefined {
  const ext = v.pairs.filter((p) => p.a === 'external' || p.b === 'external');
  return ext.find((p) => p.a === 'reference' || p.b === 'reference') ?? ext[0];
}

export function externalOrigins(trace: CaseTrace, comparison: CaseComparison): ReplayResult[] {
  const ext = trace.paths.external;
  if (!ext) return [];
  const mine = new Set(ext.stages.map((r) => recordKey(r)));
  const anyone = new Set(Object.values(trace.paths).flatMap((t) => t!.stages.map((r) => recordKey(r))));
  const weightKey = new Map(ext.stages.filter((r) => STAGES[r.stage].kind === 'weight').map((r) => [r.stage, recordKey(r)]));
  const verdicts = new Map(comparison.stages.map((v) => [recordKey(v), v]));
  const chunksOf = (w: Where, stage: StageName) =>
    Object.values(trace.paths).flatMap((t) =>
      t!.stages
        .filter((r) => r.step === w.step && r.request === w.request && r.stage === stage && r.chunk !== undefined)
        .map((r) => r.chunk!),
    );

  /** The input record of `input` for the record at w, or null when it has no such record in this piece. */
  const inputRecord = (w: Where, input: StageInput): Where | null => {
    let chunk: number | undefined;
    if (input.chunk === 'same') chunk = w.chunk;
    else if (input.chunk === 'prev') chunk = w.chunk === undefined ? -1 : w.chunk - 1;
    else if (input.chunk === 'last') chunk = Math.max(-1, ...chunksOf(w, input.stage));
    if (chunk !== undefined && chunk < 0) return null;
    return { step: w.step, request: w.request, stage: input.stage, ...(chunk === undefined ? {} : { chunk }) };
  };

  const outcome = (v: StageVerdict, path: DevicePath): Outcome => {
    const flow = DATAFLOW[path][v.stage]!;
    const judged: Judged[] = [];
    const missing: string[] = [];
    const judge = (w: Where, key: string) => {
      const pair = verdicts.get(key) && externalPair(verdicts.get(key)!);
      if (!pair) missing.push(`${label(w, v)} has no pair with the third party`);
      else judged.push({ w, against: pair.a === 'external' ? pair.b : pair.a, ok: pair.verdict === 'ok' });
    };
    const bridged: string[] = [];
    const visit = (w: Where, seen: Set<string>) => {
      if (STAGES[w.stage].kind === 'weight') {
        const key = weightKey.get(w.stage);
        if (key) judge(w, key); // else the checkpoint's weight, as handed over: reading it is part of the stage
        return;
      }
      const key = recordKey(w);
      if (mine.has(key)) return judge(w, key);
      if (!anyone.has(key)) return;
      const up = DATAFLOW[path][w.stage];
      if (!SHARED.has(w.stage) && up && !seen.has(key)) {
        // a stage of this formulation only (kv_nope, split_lse, …): the third party need not have it; judged through its inputs
        seen.add(key);
        bridged.push(label(w, v));
        for (const i of up.inputs) {
          const u = inputRecord(w, i);
          if (u) visit(u, seen);
        }
        return;
      }
      missing.push(`${label(w, v)} not recorded by the third party`);
    };
    for (const input of flow.inputs) {
      const w = inputRecord(v, input);
      if (w) visit(w, new Set());
    }
    const index = trace.pieces.findIndex((p) => p.step === v.step && p.request === v.request);
    for (const p of trace.pieces.slice(0, index).filter((x) => x.request === v.request && flow.history)) {
      if (p.kind === 'cached') {
        missing.push(`the latent rows of the prefix-cache fill at step ${p.step}, which no path records`);
        continue;
      }
      for (const stage of flow.history!) {
        const w: Where = { step: p.step, request: p.request, stage };
        if (mine.has(recordKey(w))) judge(w, recordKey(w));
        else if (anyone.has(recordKey(w))) missing.push(`${label(w, v)} not recorded by the third party`);
      }
    }
    const inputs = judged.map((j) => ({ ...j.w, from: j.against }));
    const bad = judged.filter((j) => !j.ok);
    const names = (js: Judged[]) => [...new Set(js.map((j) => label(j.w, v)))].join(', ');
    const how = `${path}'s dataflow${bridged.length ? `, through ${bridged.join(', ')}, which it did not record` : ''}`;
    if (bad.length) return { origin: 'inherited', inputs, reason: `input ${names(bad)} diverges (${how})` };
    if (missing.length) return { origin: 'undetermined', inputs, reason: `${missing.join('; ')} (${how})` };
    const agree = judged.length ? `inputs ${names(judged)} agree` : 'no recorded input: it computes from what we hand it';
    return { origin: 'introduced', inputs, reason: `${agree} (${how})` };
  };

  return comparison.stages
    .filter((v) => v.verdict !== 'ok' && v.culprit === 'external' && mine.has(recordKey(v)))
    .map((v): ReplayResult => {
      const where: Where = { step: v.step, request: v.request, stage: v.stage, ...(v.chunk === undefined ? {} : { chunk: v.chunk }) };
      const pair = externalPair(v);
      const base = {
        ...where,
        path: 'external' as const,
        mode: 'records' as const,
        source: pair ? (pair.a === 'external' ? pair.b : pair.a) : null,
        relErrAfter: null,
        tolerance: judgedTolerance(v),
      };
      const order = STAGES[v.stage].group === 'mqa' || STAGES[v.stage].kind === 'weight' ? ABSORBED_FIRST : EXPANDED_FIRST;
      const outcomes = order.filter((p) => DATAFLOW[p][v.stage]).map((p) => outcome(v, p));
      const o = outcomes.find((x) => x.origin === 'inherited') ??
        outcomes.find((x) => x.origin === 'introduced') ??
        outcomes[0] ?? { origin: 'undetermined' as const, inputs: [], reason: `no device path's dataflow has ${v.stage}` };
      return { ...base, origin: o.origin, inputs: o.inputs, reason: o.reason };
    });
}

/**
 * The case's origin data with the third party's record origins joined: a stage replay's results (if it ran) and these, in
 * execution order (records from an earlier join replaced). Reports, the JSON and diagnosisView read them as they read a
 * replay's (origin.ts originOf); `runs` and `seconds` stay the replay's (0 without one: nothing was re-run).
 */
export function withExternalOrigins(replay: CaseReplay | undefined, trace: CaseTrace, comparison: CaseComparison): CaseReplay | undefined {
  const base = replay?.results.filter((r) => r.mode !== 'records') ?? [];
  const own = externalOrigins(trace, comparison);
  if (!own.length && base.length === (replay?.results.length ?? 0)) return replay;
  if (!own.length && !base.length && !replay?.runs) return undefined;
  const order = new Map(comparison.stages.map((v, i) => [recordKey(v), i]));
  const results = [...base, ...own].sort(
    (a, b) => (order.get(recordKey(a)) ?? 0) - (order.get(recordKey(b)) ?? 0) || a.path.localeCompare(b.path),
  );
  return { results, runs: replay?.runs ?? 0, seconds: replay?.seconds ?? 0 };
}
