/** A case's stage replay in the text summary: where divergent records were introduced, how many inherited, what it cost. */
import { originOf } from '../../harness/compare/origin';
import type { CaseResult } from '../../trace';
import type { Style } from './style';
import { stageLabel } from './summary-verdict';

/** The replay in one line: which divergent records start a divergence, how many flow in, what it cost. */
export function replayLine(c: CaseResult, s: Style): string | null {
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
  // Origins read from a third party's own records (mode records) re-ran nothing.
  const recordsOnly = r.runs === 0 && r.results.every((x) => x.mode === 'records');
  return s.dim(
    `${recordsOnly ? "origin from the third party's records" : 'stage replay'}: ` +
      `introduced at ${intro.length ? intro.join(', ') : 'none'}; ${rest.join(', ')}` +
      (recordsOnly ? '' : ` (${r.runs} re-run${r.runs === 1 ? '' : 's'}, ${r.seconds.toFixed(2)} s)`),
  );
}
