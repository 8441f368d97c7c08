import type * as tfc from '@tensorflow/tfjs-core';
import type { Captured, Drained, HostView, Recording } from '../../core/probes/recorder';
import type { DiffKernel } from '../../core/probes/diff-partials';
import type { PathName } from '../../trace/stages';
import type { PairDiff } from './diff';
import { diffCaptured } from './diff';

/** Pairs compared at every record both paths have, engine pair first, the external path last. */
export const PAIRS: readonly [PathName, PathName][] = [
  ['mha', 'mqa'],
  ['mha', 'cold'],
  ['mqa', 'cold'],
  ['mha', 'reference'],
  ['mqa', 'reference'],
  ['cold', 'reference'],
  ['external', 'mha'],
  ['external', 'mqa'],
  ['external', 'cold'],
  ['external', 'reference'],
];

export const isEngine = (p: PathName): boolean => p === 'mha' || p === 'mqa' || p === 'cold';
export const pairKey = (key: string, a: PathName, b: PathName): string => `${key}|${a}|${b}`;
export const capturedBytes = (c: Captured): number => (c.where === 'device' ? 4 * c.tensor.size : c.data.byteLength);

type Rec = Partial<Record<PathName, Recording>>;

/** One piece's values on the engine paths, by path and recordKey. */
export type PieceValues = Map<PathName, Map<string, Drained>>;

interface Held {
  values: PieceValues;
  bytes: number;
}

export interface StreamOptions {
  tf: typeof tfc;
  view: HostView;
  /**
   * Bytes of engine-path values kept past their piece's comparison (for detail and replay without a
   * re-run) together with those held while the third parties are awaited. A piece's own values are
   * always held while it is compared, whatever the budget.
   */
  budget: number;
  /** The device's fused pair diff (Runtime.diff), where it has one. */
  diff?: DiffKernel;
  /** Brings the third parties' recordings (the float64 reference, an external path) into `rec`; null: there are none. */
  thirdParties: (() => Promise<void>) | null;
}

/**
 * The comparison, piece by piece: each piece's engine-path values are diffed as soon as the piece has
 * run (on the device where they live), and against the third parties once their recordings are in
 * (held until then; past the budget the third parties are awaited at once). Then each value is kept,
 * earliest first, while the budget lasts, else released: memory stays within a piece and the budget,
 * whatever the schedule's length. Diffs by pairKey; the third parties' own pair is diffed by the caller.
 */
export class StreamCompare {
  readonly diffs = new Map<string, PairDiff>();
  /** Engine-path values kept for detail and replay, by path and recordKey. */
  readonly kept = new Map<PathName, Map<string, Captured>>();
  /** Whether some engine-path value was released (detail and replay may then re-run its piece: recapture.ts). */
  released = false;
  /** The most bytes of engine-path values held at once. */
  peakHeld = 0;
  /** Bytes of every engine-path value compared: what keeping them all would hold. */
  total = 0;
  private held: Held[] = [];
  private heldBytes = 0;
  private keptBytes = 0;
  private resolved: boolean;

  constructor(
    private readonly rec: Rec,
    private readonly opts: StreamOptions,
  ) {
    this.resolved = opts.thirdParties === null;
  }

  /** One piece's values from every engine path (TensorRecorder.drain), handed over: this releases them. */
  async add(values: PieceValues): Promise<void> {
    const h: Held = { values, bytes: 0 };
    for (const m of values.values()) for (const d of m.values()) h.bytes += capturedBytes(d.captured);
    this.held.push(h);
    this.heldBytes += h.bytes;
    this.total += h.bytes;
    this.peakHeld = Math.max(this.peakHeld, this.keptBytes + this.heldBytes);
    await this.diffPiece(h, this.resolved ? 'all' : 'engines');
    if (this.resolved) this.settle(this.held.splice(0));
    else if (this.keptBytes + this.heldBytes > this.opts.budget) await this.resolve();
  }

  /** Awaits the third parties (once) and compares the held pieces with them; `tick` counts those pieces. */
  async resolve(tick: (done: number, total: number) => void = () => {}): Promise<void> {
    if (!this.resolved) {
      await this.opts.thirdParties!();
      this.resolved = true;
    }
    const held = this.held.slice();
    for (const [i, h] of held.entries()) {
      tick(i, held.length);
      await this.diffPiece(h, 'third');
    }
    this.settle(this.held.splice(0));
  }

  /** Hands over the kept values (by path and recordKey): the taker releases them. */
  take(): Map<PathName, Map<string, Captured>> {
    const out = new Map(this.kept);
    this.kept.clear();
    this.keptBytes = 0;
    return out;
  }

  /** Releases everything still held or kept. */
  dispose(): void {
    for (const h of this.held.splice(0)) for (const m of h.values.values()) for (const d of m.values()) release(d.captured);
    for (const m of this.kept.values()) for (const c of m.values()) release(c);
    this.kept.clear();
  }

  private value(h: Held, p: PathName, key: string): Captured | undefined {
    return isEngine(p) ? h.values.get(p)?.get(key)?.captured : this.rec[p]?.captured.get(key);
  }

  /**
   * Diffs a piece's records on the pairs of two engine paths, or those of an engine path with a third party, or both:
   * every diff launched before any is read, so the piece costs the device one round trip, not one a pair.
   */
  private async diffPiece(h: Held, which: 'engines' | 'third' | 'all'): Promise<void> {
    const wheres = new Map<string, Drained['where']>();
    for (const m of h.values.values()) for (const [key, d] of m) wheres.set(key, d.where);
    const pending: [string, Promise<PairDiff>][] = [];
    for (const [key, where] of wheres) {
      for (const [a, b] of PAIRS) {
        const engines = isEngine(a) && isEngine(b);
        if (!isEngine(a) && !isEngine(b)) continue; // the third parties' own pair: over all their records, by the caller
        if ((which === 'engines' && !engines) || (which === 'third' && engines)) continue;
        const [ca, cb] = [this.value(h, a, key), this.value(h, b, key)];
        if (ca && cb)
          pending.push([pairKey(key, a, b), diffCaptured(this.opts.tf, this.opts.view, where, [a, ca], [b, cb], this.opts.diff)]);
      }
    }
    const done = await Promise.all(pending.map(([, p]) => p));
    pending.forEach(([k], i) => this.diffs.set(k, done[i]!));
  }

  /** Compared pieces: each value kept while the budget lasts (earliest first), else released. */
  private settle(done: Held[]): void {
    for (const h of done) {
      this.heldBytes -= h.bytes;
      for (const [p, m] of h.values) {
        for (const [key, d] of m) {
          const bytes = capturedBytes(d.captured);
          if (this.keptBytes + bytes <= this.opts.budget) {
            if (!this.kept.has(p)) this.kept.set(p, new Map());
            this.kept.get(p)!.set(key, d.captured);
            this.keptBytes += bytes;
          } else {
            release(d.captured);
            this.released = true;
          }
        }
      }
    }
  }
}

const release = (c: Captured): void => {
  if (c.where === 'device') c.tensor.dispose();
};
