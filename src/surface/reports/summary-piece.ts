/** One piece of a case in the text summary: its header, norm trace table and the scalars each path recorded. */
import type { PathName, ScalarName } from '../../trace/stages';
import type { CaseResult, PieceInfo, RunReport } from '../../trace';
import { num } from './format';
import type { Style } from './style';
import { normTraceTable, pathLabel, pathsOf, pieceLabel, samePiece } from './table';

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

/** A piece's block: step, request, piece and engine route, then its norm table and scalar lines. */
export function pieceBlock(r: RunReport, c: CaseResult, p: PieceInfo, s: Style): string {
  const route = `engine path ${p.route}${p.start && p.route === 'mha' ? ', has_context' : ''}`;
  return [
    s.bold(`step ${p.step} · request ${p.request} · ${pieceLabel(p)} · ${route}`),
    normTraceTable(c, p, s),
    scalarLines(c, p, s),
  ].join('\n');
}
