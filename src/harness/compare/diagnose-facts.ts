import type { CaseComparison, CaseDetail, CaseTrace, Divergence, RecordDetail, StageRecord, StageVerdict, Where } from '../../trace';
import type { DevicePath, PathName, ScalarName, ScalarValue, StageName } from '../../trace/stages';
import { judgedTolerance } from './compare';

/** What a signature may look at: the first divergence, the culprit path, and the recorded facts around it. */
export interface Facts {
  first: Divergence;
  /** The wrong path, when one is named: an engine path of ours, or `external` (a backend, a trace import, an engine). */
  culprit: DevicePath | 'external' | null;
  /**
   * A path to compare the culprit's statistics with: the reference if recorded, else the other engine path; for the
   * third party the reference where it recorded the stage, else an engine path that has it.
   */
  witness: PathName | null;
  scalar(path: PathName, name: ScalarName): ScalarValue | undefined;
  /** The culprit's scalar, else (a third party that reported none) the value our paths agree on, else undefined. */
  scheduleScalar(name: ScalarName): ScalarValue | undefined;
  /** A path's statistics of a record of the first divergent piece. */
  stats(path: PathName, stage: StageName, chunk?: number): StageRecord['stats'] | undefined;
  /** The verdict of a record of the first divergent piece. */
  verdict(stage: StageName, chunk?: number): StageVerdict | undefined;
  /**
   * Whether a record of the first divergent piece agrees as far as the culprit is concerned: its verdict is ok and, for
   * the third party, it recorded the stage (else the verdict judged only our paths there).
   */
  agrees(stage: StageName, chunk?: number): boolean;
  /** The bound the first divergent record was judged with (the third party's own where it is the culprit). */
  tolerance: number;
  /** Whether every record of the pieces before the first divergent one agreed. */
  earlierPiecesAgree: boolean;
  /** Per-token and per-head errors at the first divergence, when the run measured them (on the pair that failed). */
  detail: RecordDetail | undefined;
  /** A path's mean attention entropy / ln(keys) in the first divergent piece, when measured. */
  entropy(path: PathName): number | undefined;
  /** The piece's cache index of its first token (tokens already cached). */
  start: number;
}

const same = (a: Where, stage: StageName, chunk?: number) => a.stage === stage && a.chunk === chunk;
const OURS: readonly DevicePath[] = ['mha', 'mqa', 'cold'];

export function facts(trace: CaseTrace, comparison: CaseComparison, detail?: CaseDetail): Facts | null {
  const first = comparison.firstDivergence;
  if (!first) return null;
  const c = first.culprit;
  const culprit = c === 'mha' || c === 'mqa' || c === 'cold' || c === 'external' ? c : null;
  const inPiece = (x: { step: number; request: string }) => x.step === first.step && x.request === first.request;
  const stats = (path: PathName, stage: StageName, chunk?: number) =>
    trace.paths[path]?.stages.find((r) => inPiece(r) && same(r, stage, chunk))?.stats;
  const verdict = (stage: StageName, chunk?: number) => comparison.stages.find((v) => inPiece(v) && same(v, stage, chunk));
  const scalar = (path: PathName, name: ScalarName) => trace.paths[path]?.pieces.find(inPiece)?.scalars[name];
  const has = (p: PathName) => stats(p, first.stage, first.chunk) !== undefined;
  const other: PathName | undefined = culprit === 'mha' ? 'mqa' : culprit === 'mqa' ? 'mha' : undefined;
  const witness =
    culprit === 'external'
      ? has('reference')
        ? 'reference'
        : (OURS.find(has) ?? null)
      : trace.paths.reference
        ? 'reference'
        : other && trace.paths[other]
          ? other
          : null;
  const pieceIndex = trace.pieces.findIndex((p) => inPiece(p));
  const earlier = new Set(trace.pieces.slice(0, pieceIndex).map((p) => `${p.step}/${p.request}`));
  const v = verdict(first.stage, first.chunk);
  return {
    first,
    culprit,
    witness,
    scalar,
    scheduleScalar: (name) => {
      const own = culprit ? scalar(culprit, name) : undefined;
      if (own !== undefined || culprit !== 'external') return own;
      const ours = [...OURS, 'reference' as const].map((p) => scalar(p, name)).filter((x) => x !== undefined);
      return ours.length && ours.every((x) => x === ours[0]) ? ours[0] : undefined;
    },
    stats,
    verdict,
    agrees: (stage, chunk) =>
      verdict(stage, chunk)?.verdict === 'ok' && (culprit !== 'external' || stats('external', stage, chunk) !== undefined),
    tolerance: v ? judgedTolerance(v) : 0,
    earlierPiecesAgree: comparison.stages.filter((x) => earlier.has(`${x.step}/${x.request}`)).every((x) => x.verdict === 'ok'),
    detail: detail?.records.find((r) => inPiece(r) && same(r, first.stage, first.chunk)),
    entropy: (path) => detail?.entropy.find(inPiece)?.paths[path],
    start: trace.pieces[pieceIndex]?.start ?? 0,
  };
}

export const fmt = (x: number): string =>
  Math.abs(x) >= 1e-3 && Math.abs(x) < 1e4 ? String(Number(x.toPrecision(4))) : x.toExponential(3);

/** |x/y − 1| ≤ tol. */
export const near = (x: number, y: number, tol = 1e-4): boolean => Math.abs(x / y - 1) <= tol;

/** The culprit as a signature names it: the third party by its name (node-mha, llama.cpp), else the path. */
export const culpritName = (f: Facts, t: CaseTrace): string =>
  f.culprit === 'external' ? (t.external?.name ?? 'external') : (f.culprit ?? 'a path');
