import Table from 'cli-table3';
import type { CaseResult, Origin, PairDiff, PieceInfo, StageVerdict } from '../../trace';
import { originOf } from '../../harness/compare/origin';
import { isInvariant } from '../../core/probes/probe';
import { recordKey } from '../../core/probes/recorder';
import type { PathName } from '../../trace/stages';
import { STAGES } from '../../trace/stages';
import type { TensorStats } from '../../core/probes/stats';
import { FLOOR_LEGEND, floorBased, floorText } from './floors';
import { err, num } from './format';
import { DTYPE_LEGEND, dtypeCell, hasDtypes, hasRange, rangeText } from './dtypes';
import { fitTable, fitText } from './fit';
import type { Style } from './style';

const ENGINE_PATHS: PathName[] = ['mha', 'mqa', 'cold', 'reference', 'external'];

export const samePiece = (a: { step: number; request: string }, b: { step: number; request: string }) =>
  a.step === b.step && a.request === b.request;

/** The paths a case recorded, in column order. */
export const pathsOf = (c: CaseResult): PathName[] => ENGINE_PATHS.filter((p) => c.trace.paths[p]);

/** A path as the report names it: the external one with its label, e.g. `external (torch-mha)`. */
export const pathLabel = (c: CaseResult, p: PathName): string =>
  p === 'external' && c.trace.external
    ? c.trace.external.kind === 'engine'
      ? c.trace.external.name
      : `external (${c.trace.external.name})`
    : p;

/** The external path's error against the judge (reference, else mha): `≥` marks a norm-only lower bound. */
function externalCell(diffs: PairDiff[]): string {
  const d = ['reference', 'mha', 'mqa', 'cold'].map((b) => diffs.find((x) => x.a === 'external' && x.b === b)).find(Boolean);
  if (!d) return '—';
  if (!d.shapeMatch) return 'shape';
  if (d.nan[0] || d.nan[1]) return 'NaN';
  return `${d.normOnly ? '≥' : ''}${err(d.relErr)}${d.b === 'reference' ? 'ᴿ' : ` vs ${d.b}`}`;
}

/** The stage replay's mark of a divergent record: where the divergence starts, or that it flows in. */
const ORIGIN_MARK: Record<Origin, string> = {
  introduced: 'introduced',
  inherited: 'inherited',
  undetermined: 'origin ?',
  'not-replayed': 'not replayed',
};

function verdictCell(v: StageVerdict, first: boolean, s: Style, origin: Origin | null = null): string {
  if (v.verdict === 'ok') return s.ok('ok');
  const who = v.culprit && v.culprit !== 'unknown' ? ` (${v.culprit})` : '';
  const broken = v.checks.filter((c) => c.violations > 0 && isInvariant(c.name)).map((c) => `${c.path} ${c.name} ×${c.violations}`);
  const text = `${v.verdict}${who}${broken.length ? `: ${broken.join(', ')}` : ''}`;
  const mark = origin ? ` · ${ORIGIN_MARK[origin]}` : '';
  if (first) return s.mark(`${text}${mark} ◀ first`);
  return origin === 'inherited' ? s.dim(`${text}${mark}`) : s.bad(`${text}${mark}`);
}

/** The pair shown as "rel err": mha↔mqa, else an engine path against cold, else against the reference (ᴿ). */
function mainPair(diffs: PairDiff[]): [PairDiff | undefined, string] {
  const by = (a: PathName, b: PathName) => diffs.find((d) => d.a === a && d.b === b);
  const e = by('mha', 'mqa');
  if (e) return [e, ''];
  const c = by('mha', 'cold') ?? by('mqa', 'cold');
  if (c) return [c, 'ᶜ'];
  return [diffs.find((d) => d.b === 'reference' && d.a !== 'cold'), 'ᴿ'];
}

/**
 * The norm-trace table of one piece: every recorded stage (chunked ones per chunk) in pipeline
 * order, the norm of each path, the main pair's relative error, the worst engine error against
 * the reference (or against cold without one), the noise floor when tolerances are floor-based,
 * max|Δ| and the verdict.
 */
export function normTraceTable(c: CaseResult, piece: PieceInfo, s: Style): string {
  const paths = pathsOf(c);
  const judge: PathName | null = c.trace.paths.reference ? 'reference' : c.trace.paths.cold ? 'cold' : null;
  const ext = c.trace.paths.external !== undefined;
  const floors = floorBased(c.comparison.stages);
  const [dt, range] = [hasDtypes(c), hasRange(c)];
  const head = [
    'stage',
    ...(dt ? ['dtype'] : []),
    ...paths.map((p) => `‖${pathLabel(c, p)}‖`),
    'rel err',
    ...(judge ? [judge === 'reference' ? 'vs ref' : 'vs cold'] : []),
    ...(ext ? ['external err'] : []),
    ...(floors ? ['floor'] : []),
    'max|Δ|',
    ...(range ? ['past range'] : []),
    'verdict',
  ];
  const t = new Table({
    head: head.map((h) => s.bold(h)),
    style: { head: [], border: [], compact: true },
    colAligns: [
      'left',
      ...(dt ? ['left' as const] : []),
      ...paths.map(() => 'right' as const),
      'right',
      ...(judge ? ['right' as const] : []),
      ...(ext ? ['right' as const] : []),
      ...(floors ? ['right' as const] : []),
      'right',
      ...(range ? ['left' as const] : []),
      'left',
    ],
  });
  const first = c.comparison.firstDivergence;
  const norms = new Map<string, TensorStats>();
  for (const p of paths) for (const r of c.trace.paths[p]!.stages) if (samePiece(r, piece)) norms.set(`${p}:${recordKey(r)}`, r.stats);
  let group = '';
  for (const v of c.comparison.stages.filter((x) => samePiece(x, piece))) {
    const def = STAGES[v.stage];
    if (def.group !== group && group !== '') t.push([{ colSpan: head.length, content: s.dim(`── ${def.group}`) }]);
    group = def.group;
    const key = recordKey(v);
    const diffs = c.trace.diffs.filter((d) => recordKey(d) === key);
    const [main, mark] = mainPair(diffs);
    const vsJudge = judge
      ? diffs.filter((d) => d.b === judge && d.a !== 'cold' && d.a !== 'external' && d.relErr != null).map((d) => d.relErr!)
      : [];
    const isFirst = first !== null && recordKey(first) === key;
    const label = `${v.stage}${v.chunk === undefined ? '' : `[${v.chunk}]`}`;
    const relText = main?.relErr == null ? '—' : `${main.nan[0] || main.nan[1] ? 'NaN' : err(main.relErr)}${mark}`;
    t.push([
      (isFirst ? s.mark(label) : label) + (def.compare === 'derived' ? s.dim(' ·derived') : ''),
      ...(dt ? [dtypeCell(c, v)] : []),
      ...paths.map((p) => norm(norms.get(`${p}:${key}`))),
      v.verdict === 'ok' ? relText : s.bad(relText),
      ...(judge ? [vsJudge.length ? err(Math.max(...vsJudge)) : '—'] : []),
      ...(ext ? [externalCell(diffs)] : []),
      ...(floors ? [floorText(v)] : []),
      err(main?.maxAbsErr),
      ...(range ? [s.bad(rangeText(v))] : []),
      verdictCell(v, isFirst, s, originOf(c.replay, v)),
    ]);
  }
  const legends = [...(floors ? [FLOOR_LEGEND] : []), ...(dt ? [DTYPE_LEGEND] : [])];
  // the verdict wraps (its words whole), the numbers keep their columns; where that is not enough the norms go
  // (rel err, vs ref, max|Δ| and the verdict matter first); a terminal narrower still gets the full table
  const normCols = paths.map((_, i) => 1 + (dt ? 1 : 0) + i);
  const table = fitTable(t, s, { wrap: [head.length - 1], minWrap: 16, drop: [normCols], fallback: 'overflow' });
  return [table, ...legends.map((l) => s.dim(fitText(l, s)))].join('\n');
}

/** ‖x‖ of a record; NaN when any value is, ±inf when no value is finite (an empty chunk's LSE). */
function norm(st: TensorStats | undefined): string {
  if (!st) return num(undefined);
  if (st.nanCount) return 'NaN';
  return st.size && st.infCount === st.size ? 'inf' : num(st.l2);
}

/** One line per piece for long schedules: what ran, its verdict, its worst mha↔mqa error. */
export function pieceSummaryTable(c: CaseResult, s: Style): string {
  const t = new Table({
    head: ['step', 'request', 'piece', 'engine path', 'verdict', 'worst mha↔mqa / first divergence'].map((h) => s.bold(h)),
    style: { head: [], border: [], compact: true },
  });
  const first = c.comparison.firstDivergence;
  for (const p of c.trace.pieces) {
    const vs = c.comparison.stages.filter((v) => samePiece(v, p));
    const bad = vs.filter((v) => v.verdict !== 'ok');
    const worst = vs
      .flatMap((v) => v.pairs.filter((x) => x.a === 'mha' && x.b === 'mqa' && x.relErr != null).map((x) => [x.relErr!, v.stage] as const))
      .reduce<readonly [number, string] | null>((w, x) => (!w || x[0] > w[0] ? x : w), null);
    const verdict =
      p.kind === 'cached'
        ? s.dim('cache fill')
        : bad.length
          ? s.bad(`${bad.length} diverge${first && samePiece(first, p) ? ' ◀ first' : ''}`)
          : s.ok('ok');
    const detail = bad.length
      ? s.bad(`${bad[0]!.stage}${bad[0]!.chunk === undefined ? '' : `[${bad[0]!.chunk}]`}: ${bad[0]!.verdict} (${bad[0]!.culprit})`)
      : worst
        ? `${err(worst[0])} ${worst[1]}`
        : '—';
    t.push([String(p.step), p.request, pieceLabel(p), p.kind === 'cached' ? '—' : p.route, verdict, detail]);
  }
  return fitTable(t, s, { wrap: [2, 5], minWrap: 16, fallback: 'list' });
}

export function pieceLabel(p: PieceInfo): string {
  const ctx = p.start ? ` at ${p.start}${p.chunks ? ` (${p.chunks} context chunk${p.chunks > 1 ? 's' : ''})` : ''}` : '';
  return `${p.kind} ${p.count} token${p.count > 1 ? 's' : ''}${ctx}`;
}
