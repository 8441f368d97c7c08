import Table from 'cli-table3';
import type { AcrossVerdict, WeightsReport, WeightVerdict } from '../../trace';
import type { WeightRecord } from '../../core/weights/records';
import { err, num } from './format';
import { fitTable } from './fit';
import type { Style } from './style';

const HEAD = { head: [] as string[], style: { head: [], border: [] } };
const dims = (r: WeightRecord) => `[${r.shape.join(',')}]`;

function verdictCell(v: WeightVerdict | undefined, first: boolean, s: Style): string {
  if (!v) return '';
  if (v.verdict === 'agree') return s.ok(v.beyond ? `ok (${v.beyond} past bound)` : 'ok');
  const text = `${v.verdict}${v.beyond ? `: ${v.beyond} elements past bound` : ''}`;
  return first ? s.mark(`${text} ◀ first`) : s.bad(text);
}

/** The W stage: one row per weight; with a second source, its norm and the diff against it. */
export function weightsTable(w: WeightsReport, s: Style): string {
  const two = Boolean(w.compare);
  const head = two
    ? ['W', 'tensors (a)', 'dtype a', 'dtype b', 'shape', 'norm a', 'norm b', 'rel err', 'bound', 'max|Δ| at', 'checksum a', 'verdict']
    : ['W', 'tensors', 'dtype', 'shape', 'norm', 'max|x|', 'checksum'];
  const t = new Table({ ...HEAD, head: head.map((h) => s.bold(h)) });
  const other = new Map(w.compare?.records.map((r) => [r.name, r]));
  const verdicts = new Map(w.comparison?.weights.map((v) => [v.name, v]));
  for (const r of w.primary.records) {
    if (!two) {
      t.push([r.name, r.tensors.join(' + '), r.dtype, dims(r), num(r.norm), num(r.maxAbs), r.checksum]);
      continue;
    }
    const b = other.get(r.name);
    const v = verdicts.get(r.name);
    t.push([
      r.name,
      r.tensors.join(' + '),
      r.dtype,
      b?.dtype ?? '—',
      dims(r),
      num(r.norm),
      num(b?.norm),
      err(v?.relErr),
      err(v?.allowed),
      v && v.maxAbsErr > 0 ? `${num(v.maxAbsErr)} [${v.maxAbsErrAt.join(',')}]` : '0',
      r.checksum,
      verdictCell(v, w.comparison?.firstWeight === r.name, s),
    ]);
  }
  // the tensors behind a weight and its verdict wrap; names, numbers and checksums keep their columns
  return fitTable(t, s, { wrap: two ? [1, head.length - 1] : [1], minWrap: 16, fallback: 'overflow' });
}

const at = (a: AcrossVerdict) =>
  `${a.stage}${a.chunk === undefined ? '' : `[chunk ${a.chunk}]`} ` +
  `(step ${a.step}, ${a.request}; rel err ${err(a.relErr)} > ${err(a.allowed)})`;

/** Headline, W table and the verdict across sources. */
export function renderWeights(w: WeightsReport, s: Style): string {
  const lines = [
    s.bold(w.compare ? `weights: a = ${w.primary.label} · b = ${w.compare.label}` : `weights: ${w.primary.label}`),
    weightsTable(w, s),
  ];
  const c = w.comparison;
  if (c) {
    const moved = c.activations.length;
    if (c.verdict === 'agree') {
      lines.push(
        s.ok(
          `PASS weights: every weight within its quantization bound; ` +
            `${moved} activation records of mha and mqa move no more than the bounds allow`,
        ),
      );
    } else {
      const parts = [];
      if (c.firstWeight) {
        const uk = c.weights.find((x) => x.name === 'W_UK')?.verdict;
        const uv = c.weights.find((x) => x.name === 'W_UV')?.verdict;
        const half =
          c.firstWeight === 'kv_b_proj' && uk && uv && uk !== uv
            ? ` (its ${uk === 'agree' ? 'W_UV' : 'W_UK'} rows; ${uk === 'agree' ? 'W_UK' : 'W_UV'} agrees)`
            : '';
        parts.push(`first differing weight ${c.firstWeight}${half}`);
      }
      for (const p of ['mha', 'mqa'] as const) if (c.firstActivation[p]) parts.push(`${p} first moves at ${at(c.firstActivation[p]!)}`);
      lines.push(s.bad(`FAIL weights: ${parts.join('; ')}`));
    }
  }
  if (w.expectation)
    lines.push(
      w.expectation.met ? s.ok('weights expectation met') : s.bad(`weights expectation NOT met: ${w.expectation.misses.join('; ')}`),
    );
  return lines.join('\n');
}
