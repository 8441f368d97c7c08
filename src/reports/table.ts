import Table from 'cli-table3';
import type { StageVerdict } from '../compare/compare';
import type { PathName, StageName } from '../probes/stages';
import { STAGES } from '../probes/stages';
import type { CaseResult } from '../run/trace';
import { err, num } from './format';
import type { Style } from './style';

const norm = (c: CaseResult, p: PathName, stage: StageName) =>
  c.trace.paths[p]?.stages.find((r) => r.stage === stage)?.stats.l2;

function pair(c: CaseResult, stage: StageName, a: PathName, b: PathName) {
  return c.trace.diffs.find((d) => d.stage === stage && d.a === a && d.b === b);
}

function verdictCell(v: StageVerdict, first: boolean, s: Style): string {
  if (v.verdict === 'ok') return s.ok('ok');
  const who = v.culprit && v.culprit !== 'unknown' ? ` (${v.culprit})` : '';
  const text = `${v.verdict}${who}`;
  return first ? s.mark(`${text} ◀ first`) : s.bad(text);
}

/**
 * The norm-trace table of one case: every recorded stage in pipeline order with the norm of each
 * path, mha↔mqa relative error (or a one-sided path against the reference, marked ᴿ), the worst
 * error against the float64 reference, max|Δ| and the verdict.
 */
export function normTraceTable(c: CaseResult, s: Style): string {
  const hasRef = Boolean(c.trace.paths.reference);
  const head = ['stage', '‖mha‖', '‖mqa‖', ...(hasRef ? ['‖reference‖'] : []), 'rel err', ...(hasRef ? ['vs ref'] : []), 'max|Δ|', 'verdict'];
  const t = new Table({
    head: head.map((h) => s.bold(h)),
    style: { head: [], border: [], compact: true },
    colAligns: ['left', 'right', 'right', ...(hasRef ? ['right' as const] : []), 'right', ...(hasRef ? ['right' as const] : []), 'right', 'left'],
  });
  const firstStage = c.comparison.firstDivergence?.stage;
  let group = '';
  for (const v of c.comparison.stages) {
    const def = STAGES[v.stage];
    if (def.group !== group && group !== '') t.push([{ colSpan: head.length, content: s.dim(`── ${def.group}`) }]);
    group = def.group;
    const engine = pair(c, v.stage, 'mha', 'mqa');
    const oneSided = engine ? undefined : c.trace.diffs.find((d) => d.stage === v.stage && d.b === 'reference');
    const main = engine ?? oneSided;
    const vsRef = ['mha', 'mqa'].map((p) => pair(c, v.stage, p as PathName, 'reference')?.relErr).filter((x): x is number => x != null);
    const relText = main?.relErr == null ? '—' : `${err(main.relErr)}${oneSided ? 'ᴿ' : ''}`;
    const derived = def.compare === 'derived' ? s.dim(' ·derived') : '';
    t.push([
      (v.stage === firstStage ? s.mark(v.stage) : v.stage) + derived,
      num(norm(c, 'mha', v.stage)),
      num(norm(c, 'mqa', v.stage)),
      ...(hasRef ? [num(norm(c, 'reference', v.stage))] : []),
      v.verdict === 'ok' ? relText : s.bad(relText),
      ...(hasRef ? [vsRef.length ? err(Math.max(...vsRef)) : '—'] : []),
      err(main?.maxAbsErr),
      verdictCell(v, v.stage === firstStage, s),
    ]);
  }
  return t.toString();
}
