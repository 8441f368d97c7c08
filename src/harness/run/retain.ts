import type { PathName, StageName } from '../../trace/stages';
import { STAGE_NAMES, STAGES } from '../../trace/stages';

/**
 * The stages whose values `path` keeps for the comparison: those some other path of the run records too
 * (an external path may record any stage). The rest are recorded as statistics only: no pair reads their
 * values (a 64-head T = 8192 piece's ql_nope and mqa_q are 2.3 GB, the MHA context's outputs 0.5 GB a chunk),
 * and detail or replay that wants one after all re-runs its piece (recapture.ts). Only in a case of at least
 * STATS_ONLY_FROM token-heads in its largest piece: a smaller one keeps every value, and never re-runs for one.
 */
export function comparedStages(path: PathName, present: readonly PathName[]): ReadonlySet<StageName> {
  return new Set(STAGE_NAMES.filter((s) => records(path, s) && present.some((q) => q !== path && records(q, s))));
}

/** Whether some stage `path` records is left out of comparedStages (its values are then never held). */
export function dropsValues(path: PathName, present: readonly PathName[]): boolean {
  const kept = comparedStages(path, present);
  return STAGE_NAMES.some((s) => records(path, s) && !kept.has(s));
}

/** Whether `p` records stage `s` (an external path may record any). */
const records = (p: PathName, s: StageName): boolean => p === 'external' || (STAGES[s].paths as readonly PathName[]).includes(p);

/** Token-heads of a piece from which values no pair reads are not kept: 2048 tokens of 64 heads (~4 GB of values). */
export const STATS_ONLY_FROM = 2048 * 64;

/** The stages `path` keeps values of: comparedStages in a case whose largest piece has `tokenHeads` token-heads or more, else all. */
export function retainedStages(
  path: PathName,
  present: readonly PathName[],
  tokenHeads: number,
  from = STATS_ONLY_FROM,
): ReadonlySet<StageName> {
  return tokenHeads >= from ? comparedStages(path, present) : new Set(STAGE_NAMES);
}

/** What a case's recorders keep: by path, and whether some recorded value is left out (detail and replay may re-run it). */
export function retention(
  engines: readonly PathName[],
  third: { reference: boolean; external: boolean },
  tokenHeads: number,
  from = STATS_ONLY_FROM,
): { stages(path: PathName): ReadonlySet<StageName>; dropped: boolean } {
  const present: PathName[] = [
    ...engines,
    ...(third.reference ? ['reference' as const] : []),
    ...(third.external ? ['external' as const] : []),
  ];
  return {
    stages: (path) => retainedStages(path, present, tokenHeads, from),
    dropped: tokenHeads >= from && engines.some((p) => dropsValues(p, present)),
  };
}
