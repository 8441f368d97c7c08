import type { KernelOptions, PieceInput } from '../../paths/backend';
import { resolveLogitsRows } from '../../paths/logits-rows';
import { usesFloor } from '../compare/tolerance';
import { BlockTables } from '../../core/schedule/paging';
import type { EngineStep } from '../../core/schedule/schedule';
import { contextChunks, pieceKey, planSchedule } from '../../core/schedule/schedule';
import type { Scenario } from '../scenario/scenario';
import type { WeightSource } from '../../core/weights/layer';

export interface PlannedRun {
  steps: EngineStep[];
  /** Every piece of every step, in execution order, ready for the paths. */
  pieces: PieceInput[];
  tables: BlockTables;
  kernels: KernelOptions;
  /** Whether the fp32 cold path runs (some piece attends to context, a tolerance is floor-based, or the scenario says so). */
  cold: boolean;
}

/** Expands a scenario's requests into engine steps and pieces with slots, chunks and embeddings. */
export function planRun(s: Scenario, source: WeightSource): PlannedRun {
  const steps = planSchedule(s.requests, s.schedule.decodeThreshold);
  const tables = new BlockTables(s.requests, s.schedule.blockSize, s.seed);
  const offset = new Map(s.requests.map((r) => [r.name, r.positionOffset]));
  const pieces: PieceInput[] = [];
  for (const step of steps) {
    const chunks = contextChunks(step, s.schedule.contextChunk);
    for (const p of step.pieces) {
      const ranges = chunks.get(pieceKey(p)) ?? [];
      pieces.push({
        step: p.step,
        request: p.request,
        kind: p.kind,
        route: p.route,
        start: p.start,
        ids: p.ids,
        positions: p.ids.map((_, i) => offset.get(p.request)! + p.start + i),
        embeddings: source.embeddings(p.ids),
        slots: tables.slots(p.request, p.start, p.start + p.count),
        historySlots: tables.slots(p.request, 0, p.start + p.count),
        chunks: ranges,
        chunkSlots: ranges.map(([a, b]) => tables.slots(p.request, a, b)),
        ...(s.schedule.logitsRows && p.kind !== 'cached' ? { logitsRows: resolveLogitsRows(s.schedule.logitsRows, p.count) } : {}),
      });
    }
  }
  const withContext = pieces.some((p) => p.kind !== 'cached' && p.start > 0);
  return {
    steps,
    pieces,
    tables,
    kernels: { kvSplits: s.schedule.kvSplits, emptyLse: s.schedule.prefillKernel === 'fa2' ? '+inf' : '-inf', precision: s.precision },
    // Floor-based tolerances take their floors from the cold path (compare/floors.ts).
    cold: s.schedule.cold === 'on' || (s.schedule.cold === 'auto' && (withContext || usesFloor(s.tolerances))),
  };
}
