import type * as tfc from '@tensorflow/tfjs-core';
import type { PieceInput } from '../../paths/backend';
import type { HostView, Recording } from '../../core/probes/recorder';
import { executionOrder, recordKey } from '../../core/probes/recorder';
import type { PathName } from '../../trace/stages';
import type { PairDiff, Where } from './diff';
import { diffCaptured } from './diff';
import { normDiff } from './norm-diff';
import { isEngine, pairKey, PAIRS } from './stream';

type Rec = Partial<Record<PathName, Recording>>;

/** Every record any path made, in order: piece order of the schedule, then pipeline order. */
function orderedRecords(rec: Rec, pieces: readonly PieceInput[]): Where[] {
  const seen = new Map<string, Where>();
  for (const r of Object.values(rec))
    for (const s of r!.trace.stages)
      seen.set(recordKey(s), { step: s.step, request: s.request, stage: s.stage, ...(s.chunk === undefined ? {} : { chunk: s.chunk }) });
  return [...seen.values()].sort(executionOrder(pieces));
}

/**
 * The case's diffs in report order (records in execution order, then PAIRS): those the streaming
 * comparison made (stream.ts, by pairKey), the third parties' own pair (both on the host) diffed here,
 * and the norm-only diffs of an external path's statistics-only records. `tick` counts records.
 */
export async function caseDiffs(
  tf: typeof tfc,
  view: HostView,
  rec: Rec,
  pieces: readonly PieceInput[],
  streamed: ReadonlyMap<string, PairDiff>,
  tick: (done: number, total: number) => void = () => {},
): Promise<PairDiff[]> {
  const diffs: PairDiff[] = [];
  const statsOnly = new Map((rec.external?.trace.stages ?? []).filter((r) => r.statsOnly).map((r) => [recordKey(r), r]));
  const records = orderedRecords(rec, pieces);
  for (const [i, w] of records.entries()) {
    tick(i, records.length);
    const key = recordKey(w);
    for (const [a, b] of PAIRS) {
      const done = streamed.get(pairKey(key, a, b));
      if (done) diffs.push(done);
      else if (!isEngine(a) && !isEngine(b)) {
        const [ca, cb] = [rec[a]?.captured.get(key), rec[b]?.captured.get(key)];
        if (ca && cb) diffs.push(await diffCaptured(tf, view, w, [a, ca], [b, cb]));
      }
      const so = a === 'external' ? statsOnly.get(key) : undefined;
      const rb = so && rec[b]?.trace.stages.find((r) => recordKey(r) === key);
      if (so && rb) diffs.push(normDiff(w, a, so, b, rb));
    }
  }
  return diffs;
}
