import type { PathName } from '../probes/stages';
import type { CaseResult, RunReport } from '../run/trace';
import { err, num } from './format';
import type { Style } from './style';
import { normTraceTable } from './table';

const PATHS: PathName[] = ['mha', 'mqa', 'reference'];

function scalarLine(c: CaseResult, s: Style): string {
  const sc = (p: PathName) => c.trace.paths[p]?.scalars;
  const present = PATHS.filter((p) => sc(p));
  const mismatched = new Set(c.comparison.scalarMismatches.map((m) => m.name));
  const show = (name: 'softmax_scale' | 'lse_base' | 'rope_style' | 'has_context', f: (v: unknown) => string = String) => {
    const text = present.map((p) => `${p} ${f(sc(p)?.[name])}`).join(', ');
    return mismatched.has(name) ? s.bad(`${name}: ${text}  ✗ differ`) : `${name}: ${text}`;
  };
  const D = c.trace.expectedSoftmaxScale;
  const tokens = present.filter((p) => p !== 'reference').map((p) => `${p} ${sc(p)?.num_tokens ?? '?'}`).join(', ');
  return [
    `${show('softmax_scale', (v) => num(v as number))} (config: ${num(D)})`,
    `${show('has_context')} · tokens: ${tokens} · ${show('lse_base')} · ${show('rope_style')}`,
  ].join('\n');
}

function verdictLine(c: CaseResult, s: Style): string {
  const cmp = c.comparison;
  const paths = Object.keys(c.trace.paths).join(' ≡ ');
  if (cmp.verdict === 'agree') {
    const w = cmp.worstEngine;
    return s.ok(`PASS ${c.trace.name}: ${paths} at ${cmp.stages.length} stages`) +
      (w ? `; largest mha↔mqa error ${err(w.relErr)} at ${w.stage}` : '');
  }
  const f = cmp.firstDivergence!;
  const who: Record<string, string> = {
    mha: 'mha disagrees with the reference, mqa agrees',
    mqa: 'mqa disagrees with the reference, mha agrees',
    both: 'both paths disagree with the reference',
    shared: 'mha and mqa agree with each other but not with the reference: shared code',
    unknown: c.trace.paths.reference ? 'the reference cannot tell which' : 'no reference to tell which path',
  };
  return s.bad(`FAIL ${c.trace.name}: first divergence at ${f.stage} (${f.verdict}) — ${who[f.culprit]}`) +
    `; rel err ${err(f.relErr)}, norm ratio ${num(f.normRatio)}`;
}

/** One case: header, norm-trace table, scalars, verdict, expectation, notes. */
export function renderCase(r: RunReport, c: CaseResult, s: Style): string {
  const t = c.trace;
  const lines = [
    s.bold(`${r.scenario.name} · case ${t.name} (${t.label}) · ${t.tokens} tokens · ${r.scenario.preset} · ${r.device.description}`),
    normTraceTable(c, s),
    scalarLine(c, s),
  ];
  const faults = [...r.scenario.faults.mha.map((f) => `mha:${f}`), ...r.scenario.faults.mqa.map((f) => `mqa:${f}`)];
  if (faults.length) lines.push(s.warn(`planted faults: ${faults.join(', ')}`));
  for (const n of t.notes) lines.push(s.dim(`note: ${n}`));
  lines.push(verdictLine(c, s));
  if (c.expectation) {
    lines.push(c.expectation.met ? s.ok('expectation met') : s.bad(`expectation NOT met: ${c.expectation.misses.join('; ')}`));
  }
  return lines.join('\n');
}

/** The whole run as text: every case, then timing. */
export function renderRun(r: RunReport, s: Style): string {
  const parts = r.cases.map((c) => renderCase(r, c, s));
  const per = r.cases.map((c) => `${c.trace.name} ${PATHS.filter((p) => c.trace.seconds[p] !== undefined).map((p) => `${p} ${c.trace.seconds[p]!.toFixed(2)}`).join(' ')}`);
  const ref = r.seconds.reference === null ? '' : `; float64 reference ${r.seconds.reference.toFixed(2)} s on a worker thread`;
  parts.push(s.dim(`time: ${r.seconds.total.toFixed(2)} s (weights ${r.seconds.weights.toFixed(2)} s; ${per.join('; ')}${ref})`));
  return parts.join('\n\n');
}

/** One line per scenario, for stdout when the full report goes to a file. */
export function oneLine(r: RunReport): string {
  const bad = r.cases.filter((c) => c.comparison.verdict === 'diverge');
  if (!bad.length) return `PASS ${r.scenario.name}: ${r.cases.length} case(s) agree on ${r.device.name}`;
  const f = bad[0]!.comparison.firstDivergence!;
  return `FAIL ${r.scenario.name}: ${bad[0]!.trace.name} first diverges at ${f.stage} (culprit ${f.culprit}) on ${r.device.name}`;
}
