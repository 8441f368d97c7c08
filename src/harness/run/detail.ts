import type * as tfc from '@tensorflow/tfjs-core';
import type { PieceInput } from '../../paths/backend';
import type { StageVerdict } from '../compare/compare';
import type { HostView, Recording } from '../../core/probes/recorder';
import { recordKey } from '../../core/probes/recorder';
import type { PathName, StageName } from '../../trace/stages';
import { STAGES } from '../../trace/stages';
import { toHost } from './diff';
import { axisRelErr, meanNormalizedEntropy, rowScaledRelErr, swappedRelErr } from './detail-math';
import type { CaseDetail, RecordDetail } from './trace';

/** How many divergent records, in schedule and pipeline order, get a detailed measurement. */
export const DETAIL_RECORDS = 3;
const ENGINES: PathName[] = ['mha', 'mqa', 'cold'];

/**
 * The pair a record is measured on: the pair that failed there. The culprit (the third party when it is, else the first
 * engine path) against the reference, else another engine path.
 */
function pairFor(v: StageVerdict, has: (p: PathName) => boolean): [PathName, PathName] | null {
  const c = v.culprit;
  const a = c === 'mha' || c === 'mqa' || c === 'cold' || c === 'external' ? c : ENGINES.find(has);
  if (!a || !has(a)) return null;
  const b = has('reference') ? 'reference' : ENGINES.find((p) => p !== a && has(p));
  return b ? [a, b] : null;
}

/** Two-axis stages whose buffer a third party may hand over in the other axis order (the LSEs, [N,T]). */
const SWAPPABLE: readonly StageName[] = ['lse', 'suffix_lse', 'chunk_lse', 'context_lse'];

type Rec = Partial<Record<PathName, Recording>>;

/** Records an RMSNorm makes: each token's row divided by its RMS. */
const NORMALIZED: readonly StageName[] = ['hidden_in', 'q_c', 'kv_c_normed'];
const rowScaledOf = (a: ArrayLike<number>, b: ArrayLike<number>, shape: readonly number[]) => {
  const e = rowScaledRelErr(a, b, shape);
  return e === null ? {} : { rowScaled: e };
};
const swappedOf = (a: ArrayLike<number>, b: ArrayLike<number>, shape: readonly number[]) => {
  const e = swappedRelErr(a, b, shape);
  return e === null ? {} : { swapped: e };
};

/**
 * Where inside a record the divergence lives, measured while the captured values are alive: for the
 * first DETAIL_RECORDS divergent records, the relative error per query token (with its RoPE position)
 * and per head (on the pair that failed: the third party's with the reference where it is the culprit), for an LSE its
 * error with the axes swapped; for their pieces, each path's attention entropy. Read by diagnosis (flat softmax,
 * agreement only at position 0, a subset of heads, an LSE layout).
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
      ...(same && SWAPPABLE.includes(v.stage) ? swappedOf(ha.data, hb.data, ha.shape) : {}),
      ...(same && NORMALIZED.includes(v.stage) ? rowScaledOf(ha.data, hb.data, ha.shape) : {}),
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
