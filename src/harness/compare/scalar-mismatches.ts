/** The scalars every path records per piece (softmax scale, RoPE style, token counts, …) and where the paths disagree on them. */
import type { PathName, ScalarName, ScalarValue } from '../../trace/stages';
import type { CaseTrace, ScalarMismatch } from '../../trace';

const SCALARS_COMPARED: ScalarName[] = [
  'softmax_scale',
  'lse_base',
  'rope_style',
  'has_context',
  'causal',
  'num_tokens',
  'num_context_tokens',
];
/** Each piece's compared scalars on which the paths that recorded them disagree. */
export function scalarMismatches(trace: CaseTrace): ScalarMismatch[] {
  const out: ScalarMismatch[] = [];
  // Our paths hold scalars in float64; a third party (an engine's op parameter) may hold it in float32: one ulp of it.
  const same = (x: ScalarValue, y: ScalarValue, rel: number) =>
    typeof x === 'number' && typeof y === 'number' ? Math.abs(x - y) <= rel * Math.max(Math.abs(x), Math.abs(y)) : x === y;
  for (const piece of trace.pieces.filter((p) => p.kind !== 'cached')) {
    for (const name of SCALARS_COMPARED) {
      const values: ScalarMismatch['values'] = {};
      for (const [p, t] of Object.entries(trace.paths)) {
        const v = t?.pieces.find((x) => x.step === piece.step && x.request === piece.request)?.scalars[name];
        if (v !== undefined) values[p as PathName] = v;
      }
      const vs = Object.values(values);
      const rel = values.external === undefined ? 1e-12 : 2 ** -23;
      if (vs.some((v) => !same(v, vs[0]!, rel))) out.push({ step: piece.step, request: piece.request, name, values });
    }
  }
  return out;
}
