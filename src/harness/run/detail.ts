import type * as tfc from '@tensorflow/tfjs-core';
import type { PieceInput } from '../../paths/backend';
import type { StageVerdict } from '../compare/compare';
import type { HostView, Recording } from '../../core/probes/recorder';
import { recordKey } from '../../core/probes/recorder';
import type { PathName } from '../../trace/stages';
import { STAGES } from '../../trace/stages';
import { toHost } from './diff';
import type { CaseDetail, RecordDetail } from './trace';

// Hot loops read Math through module constants (see diff.ts).
const { sqrt, log, floor } = Math;

/** How many divergent records, in schedule and pipeline order, get a detailed measurement. */
export const DETAIL_RECORDS = 3;
const ENGINES: PathName[] = ['mha', 'mqa', 'cold'];

/**
 * ‖a_i − b_i‖ / max(‖a_i‖, ‖b_i‖) per index i of one axis of two same-shape arrays; Infinity where an
 * infinity or NaN of one side is not matched by the other.
 */
export function axisRelErr(a: ArrayLike<number>, b: ArrayLike<number>, shape: readonly number[], axis: number): number[] {
  const n = shape[axis]!;
  const inner = shape.slice(axis + 1).reduce((x, y) => x * y, 1);
  const [dd, aa, bb] = [new Float64Array(n), new Float64Array(n), new Float64Array(n)];
  const bad = new Uint8Array(n);
  for (let i = 0; i < a.length; i++) {
    const k = floor(i / inner) % n;
    const x = a[i] as number;
    const y = b[i] as number;
    if (x - x !== 0 || y - y !== 0) {
      if (x !== y) bad[k] = 1;
      continue;
    } // NaN or an infinity: agrees only with itself
    const d = x - y;
    dd[k] = dd[k]! + d * d;
    aa[k] = aa[k]! + x * x;
    bb[k] = bb[k]! + y * y;
  }
  return Array.from(dd, (v, k) => (bad[k] ? Infinity : aa[k]! || bb[k]! ? sqrt(v) / sqrt(aa[k]! > bb[k]! ? aa[k]! : bb[k]!) : 0));
}

/**
 * Mean over query rows that see more than one key of H(row) / ln(keys seen), for probabilities
 * [N,T,S] under a bottom-right causal mask (query t sees S − T + t + 1 keys). 1 is a uniform softmax.
 * `sampled`: the T rows are these query tokens of a piece of `tokens` (schedule.logits_rows).
 */
export function meanNormalizedEntropy(
  p: ArrayLike<number>,
  shape: readonly number[],
  sampled?: { rows: readonly number[]; tokens: number },
): number | null {
  const [N, T, S] = shape as [number, number, number];
  let sum = 0;
  let rows = 0;
  for (let h = 0; h < N; h++) {
    for (let t = 0; t < T; t++) {
      const keys = sampled ? S - sampled.tokens + sampled.rows[t]! + 1 : S - T + t + 1;
      if (keys < 2) continue;
      let H = 0;
      for (let s = 0; s < S; s++) {
        const x = p[(h * T + t) * S + s] as number;
        if (x > 0) H -= x * log(x);
      }
      if (H === H) {
        sum += H / log(keys);
        rows++;
      }
    }
  }
  return rows ? sum / rows : null;
}

/** The pair a record is measured on: the culprit (or the first engine path) against the reference, else another engine. */
function pairFor(v: StageVerdict, has: (p: PathName) => boolean): [PathName, PathName] | null {
  const a = v.culprit === 'mha' || v.culprit === 'mqa' || v.culprit === 'cold' ? v.culprit : ENGINES.find(has);
  if (!a || !has(a)) return null;
  const b = has('reference') ? 'reference' : ENGINES.find((p) => p !== a && has(p));
  return b ? [a, b] : null;
}

type Rec = Partial<Record<PathName, Recording>>;

/**
 * Where inside a record the divergence lives, measured while the captured values are alive: for the
 * first DETAIL_RECORDS divergent records, the relative error per query token (with its RoPE position)
 * and per head; for their pieces, each path's attention entropy. Read by diagnosis (flat softmax,
 * agreement only at position 0, a subset of heads).
 */
export async function measureDetail(
  tf: typeof tfc,
  view: HostView,
  rec: Rec,
  pieces: readonly PieceInput[],
  stages: readonly StageVerdict[],
): Promise<CaseDetail> {
  const records: RecordDetail[] = [];
  const entropy: CaseDetail['entropy'] = [];
  for (const v of stages.filter((x) => x.verdict !== 'ok').slice(0, DETAIL_RECORDS)) {
    const key = recordKey(v);
    const pair = pairFor(v, (p) => rec[p]?.captured.has(key) ?? false);
    const piece = pieces.find((p) => p.step === v.step && p.request === v.request);
    if (!pair || !piece) continue;
    const canonical = STAGES[v.stage].layout;
    const [ha, hb] = [
      await toHost(tf, view, rec[pair[0]]!.captured.get(key)!, canonical),
      await toHost(tf, view, rec[pair[1]]!.captured.get(key)!, canonical),
    ];
    const same = ha.shape.length === hb.shape.length && ha.shape.every((d, i) => d === hb.shape[i]);
    const axes = canonical.split(' ');
    const along = (name: string) => (same && axes.includes(name) ? axisRelErr(ha.data, hb.data, ha.shape, axes.indexOf(name)) : null);
    const rows = v.stage === 'logits' || v.stage === 'attn_probs' ? piece.logitsRows : undefined; // sampled rows: their tokens only
    records.push({
      step: v.step,
      request: v.request,
      stage: v.stage,
      ...(v.chunk === undefined ? {} : { chunk: v.chunk }),
      a: pair[0],
      b: pair[1],
      positions: rows ? rows.map((t) => piece.positions[t]!) : [...piece.positions],
      perToken: along('t'),
      perHead: along('h'),
    });
    if (entropy.some((e) => e.step === v.step && e.request === v.request)) continue;
    const probsKey = recordKey({ step: v.step, request: v.request, stage: 'attn_probs' });
    const paths: Partial<Record<PathName, number>> = {};
    for (const [p, r] of Object.entries(rec) as [PathName, Recording][]) {
      const c = r.captured.get(probsKey);
      if (!c) continue;
      const h = await toHost(tf, view, c, STAGES.attn_probs.layout);
      const e = meanNormalizedEntropy(h.data, h.shape, piece.logitsRows && { rows: piece.logitsRows, tokens: piece.positions.length });
      if (e !== null) paths[p] = e;
    }
    if (Object.keys(paths).length) entropy.push({ step: v.step, request: v.request, paths });
  }
  return { records, entropy };
}
