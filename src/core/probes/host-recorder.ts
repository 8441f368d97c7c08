import type { CheckName, HostTensor } from './probe';
import type { Captured, PieceTrace, Recording, Scope, StageRecord } from './recorder';
import { BaseRecorder, record, recordKey } from './recorder';
import type { PathName, StageName } from '../../trace/stages';
import { hostStats } from './stats';

/** Records the float64 reference's host tensors; exact stats, values kept for `retain` stages. */
export class HostRecorder extends BaseRecorder<HostTensor> {
  protected hold<X extends HostTensor>(x: X): X {
    return x;
  }

  /** A tapped value before `finish` (the reference derives per-case records from one pass). */
  get(scope: Scope, stage: StageName, chunk?: number): HostTensor | undefined {
    return this.taps.get(recordKey({ ...scope, stage, chunk }))?.x;
  }

  /** Every tap so far, in order, with its checks (numbers on the host). */
  forEachTap(
    fn: (
      t: Scope & { stage: StageName; chunk?: number; x: HostTensor; layout: string; checks: { name: CheckName; violations: number }[] },
    ) => void,
  ): void {
    for (const [, t] of this.ordered()) fn({ ...t, checks: t.checks.map((c) => ({ name: c.name, violations: c.violations as number })) });
  }

  pieceScalars(): PieceTrace[] {
    return this.pieces;
  }

  finish(path: PathName): Recording {
    const stages: StageRecord[] = [];
    const captured = new Map<string, Captured>();
    for (const [key, t] of this.ordered()) {
      const stats = hostStats(t.x.data, t.x.shape, t.x.data instanceof Float32Array ? 'float32' : 'float64', t.layout);
      stages.push(
        record(
          t,
          stats,
          t.checks.map((c) => ({ name: c.name, violations: c.violations as number })),
        ),
      );
      if (this.opts.retain?.has(t.stage)) captured.set(key, { where: 'host', data: t.x.data, shape: t.x.shape, layout: t.layout });
    }
    this.taps.clear();
    return { trace: this.trace(path, 'float64', stages), captured };
  }
}
