import type { CaseComparison, CaseDetail, CaseTrace, Divergence, RecordDetail, StageRecord, StageVerdict, Where } from '../../trace';
import type { PathName, ScalarName, ScalarValue, StageName } from '../../trace/stages';

/** What a signature may look at: the first divergence, the culprit path, and the recorded facts around it. */
export interface Facts {
  first: Divergence;
  /** The wrong engine path, when one is named. */
  culprit: 'mha' | 'mqa' | 'cold' | null;
  /** A path to compare the culprit's statistics with: the reference if recorded, else the other engine path. */
  witness: PathName | null;
  scalar(path: PathName, name: ScalarName): ScalarValue | undefined;
  /** A path's statistics of a record of the first divergent piece. */
  stats(path: PathName, stage: StageName, chunk?: number): StageRecord['stats'] | undefined;
  /** The verdict of a record of the first divergent piece. */
  verdict(stage: StageName, chunk?: number): StageVerdict | undefined;
  /** Whether every record of the pieces before the first divergent one agreed. */
  earlierPiecesAgree: boolean;
  /** Per-token and per-head errors at the first divergence, when the run measured them. */
  detail: RecordDetail | undefined;
  /** A path's mean attention entropy / ln(keys) in the first divergent piece, when measured. */
  entropy(path: PathName): number | undefined;
  /** The piece's cache index of its first token (tokens already cached). */
  start: number;
}

const same = (a: Where, stage: StageName, chunk?: number) => a.stage === stage && a.chunk === chunk;

export function facts(trace: CaseTrace, comparison: CaseComparison, detail?: CaseDetail): Facts | null {
  const first = comparison.firstDivergence;
  if (!first) return null;
  const culprit = first.culprit === 'mha' || first.culprit === 'mqa' || first.culprit === 'cold' ? first.culprit : null;
  const inPiece = (x: { step: number; request: string }) => x.step === first.step && x.request === first.request;
  const other: PathName | undefined = culprit === 'mha' ? 'mqa' : culprit === 'mqa' ? 'mha' : undefined;
  const witness = trace.paths.reference ? 'reference' : other && trace.paths[other] ? other : null;
  const pieceIndex = trace.pieces.findIndex((p) => inPiece(p));
  const earlier = new Set(trace.pieces.slice(0, pieceIndex).map((p) => `${p.step}/${p.request}`));
  return {
    first,
    culprit,
    witness,
    scalar: (path, name) => trace.paths[path]?.pieces.find(inPiece)?.scalars[name],
    stats: (path, stage, chunk) => trace.paths[path]?.stages.find((r) => inPiece(r) && same(r, stage, chunk))?.stats,
    verdict: (stage, chunk) => comparison.stages.find((v) => inPiece(v) && same(v, stage, chunk)),
    earlierPiecesAgree: comparison.stages.filter((v) => earlier.has(`${v.step}/${v.request}`)).every((v) => v.verdict === 'ok'),
    detail: detail?.records.find((r) => inPiece(r) && same(r, first.stage, first.chunk)),
    entropy: (path) => detail?.entropy.find(inPiece)?.paths[path],
    start: trace.pieces[pieceIndex]?.start ?? 0,
  };
}

export const fmt = (x: number): string =>
  Math.abs(x) >= 1e-3 && Math.abs(x) < 1e4 ? String(Number(x.toPrecision(4))) : x.toExponential(3);

/** |x/y − 1| ≤ tol. */
export const near = (x: number, y: number, tol = 1e-4): boolean => Math.abs(x / y - 1) <= tol;
