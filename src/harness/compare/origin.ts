import { recordKey } from '../../core/probes/recorder';
import type { CaseComparison, CaseReplay, Origin, StageVerdict, Where } from '../../trace';
import { divergenceOf } from './compare';

/**
 * Stage replay results (teacher forcing) and how they join the comparison. Pure: the run layer
 * (src/harness/run/replay.ts) re-runs a path from another path's captured inputs and stores these in the
 * case result; reports and the diagnosis read them through the helpers below.
 *
 * `introduced`: fed path A's inputs, path B still diverges at the record, so the divergence
 * starts there. `inherited`: B agrees with A once its inputs are A's, so it came from upstream.
 * `undetermined`: an input (or A's value) is unavailable or could not be substituted (`reason`).
 * `not-replayed`: over the case's cap of replays.
 */
export type { CaseReplay, Origin, ReplayInput, ReplayMode, ReplayResult } from '../../trace';

/**
 * The origin of a record over the paths replayed there: introduced if any path's replay says so,
 * inherited if every one does, else undetermined (not-replayed when none ran); null: not selected.
 */
export function originOf(replay: CaseReplay | undefined, w: Where): Origin | null {
  if (!replay) return null;
  const key = recordKey(w);
  const rs = replay.results.filter((r) => recordKey(r) === key);
  if (!rs.length) return null;
  if (rs.some((r) => r.origin === 'introduced')) return 'introduced';
  if (rs.every((r) => r.origin === 'inherited')) return 'inherited';
  return rs.every((r) => r.origin === 'not-replayed') ? 'not-replayed' : 'undetermined';
}

/** The first divergent record, in execution order, whose replay says it was introduced there. */
export function firstIntroduced(comparison: CaseComparison, replay: CaseReplay | undefined): StageVerdict | null {
  return comparison.stages.find((v) => v.verdict !== 'ok' && originOf(replay, v) === 'introduced') ?? null;
}

/**
 * The comparison the diagnosis reads: with a replay that found an introduced record, its first
 * divergence is the first introduced one (the signatures look where the bug enters); else as is.
 */
export function diagnosisView(comparison: CaseComparison, replay: CaseReplay | undefined): CaseComparison {
  const v = firstIntroduced(comparison, replay);
  return v ? { ...comparison, firstDivergence: divergenceOf(v) } : comparison;
}

/** What a case's origins came from, for a report's words: a stage replay, the third party's records (mode records), or both. */
export function originSource(replay: CaseReplay): string {
  const records = replay.results.some((r) => r.mode === 'records');
  const replayed = replay.runs > 0 || replay.results.some((r) => r.mode !== 'records');
  return records && !replayed ? "the third party's records" : records ? "stage replay and the third party's records" : 'stage replay';
}
