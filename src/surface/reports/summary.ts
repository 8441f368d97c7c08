import { firstIntroduced, originOf } from '../../harness/compare/origin';
import { recordKey } from '../../core/probes/recorder';
import type { PathName, ScalarName } from '../../trace/stages';
import type { CaseResult, PieceInfo, RunReport } from '../../trace';
import { floorBased, floorClause, floorRatio } from './floors';
import { err, num } from './format';
import { divergenceLine } from './sparkline';
import type { Style } from './style';
import { renderWeights } from './weights';
import { normTraceTable, pathLabel, pathsOf, pieceLabel, pieceSummaryTable, samePiece } from './table';

/** Schedules longer than this show a summary line per piece and full tables only where it matters. */
export const FULL_TABLES_UP_TO = 3;

function scalarLines(c: CaseResult, piece: PieceInfo, s: Style): string {
  const paths = pathsOf(c);
  const sc = (p: PathName) => c.trace.paths[p]?.pieces.find((x) => samePiece(x, piece))?.scalars;
  const mismatched = new Set(c.comparison.scalarMismatches.filter((m) => samePiece(m, piece)).map((m) => m.name));
  const show = (name: ScalarName, f: (v: unknown) => string = String) => {
    const have = paths.filter((p) => sc(p)?.[name] !== undefined);
    if (!have.length) return null;
    const text = have.map((p) => `${pathLabel(c, p)} ${f(sc(p)?.[name])}`).join(', ');
    return mismatched.has(name) ? s.bad(`${name}: ${text}  ✗ differ`) : `${name}: ${text}`;
  };
  const line1 = `${show('softmax_scale', (v) => num(v as number))} (config: ${num(c.trace.expectedSoftmaxScale)})`;
  const rest = [show('has_context'), show('lse_base'), show('rope_style'), show('kv_splits'), show('empty_lse')].filter(Boolean);
  return `${line1}\n${rest.join(' · ')}`;
}

/** `context_lse[chunk 1]`: a record's stage, with its chunk when it has one. */
const stageLabel = (f: { stage: string; chunk?: number }) => `${f.stage}${f.chunk === undefined ? '' : `[chunk ${f.chunk}]`}`;

const WHO: Record<string, string> = {
  mha: 'mha is the wrong path',
  mqa: 'mqa is the wrong path',
  cold: 'the cold fp32 path disagrees',
  both: 'mha and mqa are both wrong',
  shared: 'mha and mqa agree with each other but not with the reference: shared code',
  external: 'the external path departs from paths that agree',
  unknown: 'no reference or majority to tell which path',
};

/** Honesty about norm-only records: their agreement bounds the norms, not the values. */
function normOnlyNote(c: CaseResult): string {
  const n = c.trace.external?.statsOnly ?? 0;
  return n
    ? `; ${pathLabel(c, 'external')} known by norms only at ${n} record(s): ` + '‖a‖ and ‖b‖ agree there, the values are unchecked'
    : '';
}

function verdictLine(c: CaseResult, s: Style): string {
  const cmp = c.comparison;
  const paths = pathsOf(c)
    .map((p) => pathLabel(c, p))
    .join(' ≡ ');
  const compared = cmp.stages.filter((v) => v.pairs.length).length;
  if (cmp.verdict === 'agree') {
    const w = cmp.worstEngine;
    return (
      s.ok(
        `PASS ${c.trace.name}: ${paths} at ${compared} records of ${c.trace.pieces.filter((p) => p.kind !== 'cached').length} piece(s)`,
      ) +
      (w ? `; largest mha↔mqa error ${err(w.relErr)} at ${w.stage} (step ${w.step}, ${w.request})` : '') +
      worstRatio(c) +
      normOnlyNote(c)
    );
  }
  const f = cmp.firstDivergence!;
  const at = `${stageLabel(f)}, step ${f.step}, request ${f.request}`;
  if (f.culprit === 'external') {
    const how = c.trace.diffs.find(
      (d) => d.a === 'external' && d.step === f.step && d.request === f.request && d.stage === f.stage && d.chunk === f.chunk,
    )?.normOnly
      ? ' (norms only: the error is at least this)'
      : '';
    return (
      s.bad(
        `FAIL ${c.trace.name}: first divergence at ${at} (${f.verdict}) — ` + `${pathLabel(c, 'external')} departs from paths that agree`,
      ) + (f.relErr === null ? '' : `; rel err ${err(f.relErr)}${how}, norm ratio ${num(f.normRatio)}`)
    );
  }
  const measure =
    f.verdict === 'nan-introduced'
      ? '; NaN first appears here'
      : f.verdict === 'shape-mismatch'
        ? ''
        : `; rel err ${err(f.relErr)}, norm ratio ${num(f.normRatio)}`;
  const v = cmp.stages.find((x) => recordKey(x) === recordKey(f));
  const floor = v && f.verdict === 'out-of-tolerance' ? `; ${floorClause(v)}` : '';
  const headline = s.bad(`FAIL ${c.trace.name}: first divergence at ${at} (${f.verdict}) — ${WHO[f.culprit]}`);
  return headline + measure + floor + introducedText(c);
}

/** With floor-based tolerances, a passing case's largest error in units of its floor, and the k it had to stay under. */
function worstRatio(c: CaseResult): string {
  if (!floorBased(c.comparison.stages)) return '';
  let worst: { r: number; stage: string; k: number } | null = null;
  for (const v of c.comparison.stages) {
    const r = floorRatio(v);
    if (r !== null && v.floorMultiple !== undefined && (!worst || r > worst.r)) worst = { r, stage: stageLabel(v), k: v.floorMultiple };
  }
  return worst ? `; largest err/floor ${num(worst.r)} at ${worst.stage} (tolerance ${num(worst.k)}×floor)` : '';
}

/** `; first introduced at …` after a stage replay (the place itself, when it is not the first divergence). */
function introducedText(c: CaseResult): string {
  if (!c.replay) return '';
  const v = firstIntroduced(c.comparison, c.replay);
  if (!v) return '; stage replay found no introduced record';
  const f = c.comparison.firstDivergence!;
  const same = v.step === f.step && v.request === f.request;
  return `; first introduced at ${stageLabel(v)}${same ? '' : `, step ${v.step}, request ${v.request}`}`;
}

/** The replay in one line: which divergent records start a divergence, how many flow in, what it cost. */
function replayLine(c: CaseResult, s: Style): string | null {
  const r = c.replay;
  if (!r) return null;
  const marked = c.comparison.stages
    .filter((v) => v.verdict !== 'ok')
    .map((v) => [v, originOf(r, v)] as const)
    .filter(([, o]) => o);
  const count = (o: string) => marked.filter(([, x]) => x === o).length;
  const intro = marked
    .filter(([, o]) => o === 'introduced')
    .map(
      ([v]) =>
        stageLabel(v) +
        (v.step === c.comparison.firstDivergence?.step && v.request === c.comparison.firstDivergence?.request ? '' : ` (step ${v.step})`),
    );
  const rest = [
    `${count('inherited')} inherited`,
    ...(count('undetermined') ? [`${count('undetermined')} undetermined`] : []),
    ...(count('not-replayed') ? [`${count('not-replayed')} not replayed`] : []),
  ];
  return s.dim(
    `stage replay: introduced at ${intro.length ? intro.join(', ') : 'none'}; ${rest.join(', ')} ` +
      `(${r.runs} re-run${r.runs === 1 ? '' : 's'}, ${r.seconds.toFixed(2)} s)`,
  );
}

function pieceBlock(r: RunReport, c: CaseResult, p: PieceInfo, s: Style): string {
  const route = `engine path ${p.route}${p.start && p.route === 'mha' ? ', has_context' : ''}`;
  return [
    s.bold(`step ${p.step} · request ${p.request} · ${pieceLabel(p)} · ${route}`),
    normTraceTable(c, p, s),
    scalarLines(c, p, s),
  ].join('\n');
}

/** One case: header, per-piece tables (all, or a summary and the piece that matters), verdict. */
export function renderCase(r: RunReport, c: CaseResult, s: Style, all = false): string {
  const t = c.trace;
  const run = t.pieces.filter((p) => p.kind !== 'cached');
  const lines = [
    s.bold(
      `${r.scenario.name} · case ${t.name} (${t.label}) · ${run.length} piece(s) · ` + `${r.scenario.preset} · ${r.device.description}`,
    ),
  ];
  if (all || run.length <= FULL_TABLES_UP_TO) {
    for (const p of run) lines.push(pieceBlock(r, c, p, s));
  } else {
    lines.push(pieceSummaryTable(c, s));
    const f = c.comparison.firstDivergence;
    const focus = (f && run.find((p) => samePiece(p, f))) ?? run[run.length - 1]!;
    lines.push(s.dim(f ? 'the first divergent piece:' : 'the last piece (--verbose shows every piece):'), pieceBlock(r, c, focus, s));
  }
  const faults = [...r.scenario.faults.mha.map((x) => `mha:${x}`), ...r.scenario.faults.mqa.map((x) => `mqa:${x}`)];
  if (faults.length) lines.push(s.warn(`planted faults: ${faults.join(', ')}`));
  for (const n of t.notes) lines.push(s.dim(`note: ${n}`));
  lines.push(verdictLine(c, s));
  const spark = divergenceLine(c, s);
  if (spark) lines.push(spark);
  const replay = replayLine(c, s);
  if (replay) lines.push(replay);
  const [top, ...rest] = c.diagnosis ?? [];
  if (top) lines.push(s.warn(`likely cause: ${top.summary} (${top.evidence})`));
  for (const d of rest) lines.push(s.dim(`also consistent with: ${d.summary} (${d.evidence})`));
  if (c.expectation)
    lines.push(c.expectation.met ? s.ok('expectation met') : s.bad(`expectation NOT met: ${c.expectation.misses.join('; ')}`));
  return lines.join('\n');
}

/** The whole run as text: every case, then timing. */
export function renderRun(r: RunReport, s: Style, all = false): string {
  const parts = [...(r.weights ? [renderWeights(r.weights, s)] : []), ...r.cases.map((c) => renderCase(r, c, s, all))];
  const per = r.cases.map(
    (c) =>
      `${c.trace.name} ${Object.entries(c.trace.seconds)
        .map(([p, x]) => `${p} ${x!.toFixed(2)}`)
        .join(' ')}`,
  );
  const ref = r.seconds.reference === null ? '' : `; float64 reference ${r.seconds.reference.toFixed(2)} s on a worker thread`;
  parts.push(s.dim(`time: ${r.seconds.total.toFixed(2)} s (weights ${r.seconds.weights.toFixed(2)} s; ${per.join('; ')}${ref})`));
  return parts.join('\n\n');
}

/** One line per scenario, for stdout when the full report goes to a file. */
export function oneLine(r: RunReport): string {
  const bad = r.cases.filter((c) => c.comparison.verdict === 'diverge');
  const wc = r.weights?.comparison;
  if (!bad.length && wc?.verdict === 'diverge') {
    const moved = (['mha', 'mqa'] as const).filter((p) => wc.firstActivation[p]).map((p) => `${p} ${wc.firstActivation[p]!.stage}`);
    return (
      `FAIL ${r.scenario.name}: weights differ from ${r.weights!.compare!.label} at ${wc.firstWeight ?? 'no single weight'}` +
      `${moved.length ? `, then ${moved.join(', ')}` : ''} on ${r.device.name}`
    );
  }
  if (!bad.length) return `PASS ${r.scenario.name}: ${r.cases.length} case(s) agree on ${r.device.name}`;
  const f = bad[0]!.comparison.firstDivergence!;
  return (
    `FAIL ${r.scenario.name}: ${bad[0]!.trace.name} first diverges at ${stageLabel(f)} ` +
    `(step ${f.step}, ${f.request}; culprit ${f.culprit}) on ${r.device.name}`
  );
}
