import type * as tfc from '@tensorflow/tfjs-core';
import type { CheckName, Probe } from './probe';
import type { PathName, ScalarName, ScalarValue, StageName } from '../../trace/stages';
import { STAGES, stageOrder } from '../../trace/stages';
import type { TensorStats } from './stats';
import type { PathTrace, PieceTrace, Scope, StageRecord } from '../../trace';
import type { StatsKernel } from './stats-partials';

/** Which piece a record belongs to, and one path's trace (the unit of the versioned JSON): src/trace/case-trace.ts. */
export type { PathTrace, PieceTrace, Scope, StageRecord } from '../../trace';

/** Values kept past recording, for elementwise comparison with another path. */
export type Captured =
  | { where: 'device'; tensor: tfc.Tensor; layout: string }
  | {
      where: 'host';
      data: Float64Array | Float32Array;
      shape: number[];
      layout: string;
      /** Logits that hold the causal mask (an external backend's, StageRecord.masked): diffed at the visible keys only. */
      masked?: true;
    };

export interface RecorderOptions {
  /** Record only these stages (default: all). */
  filter?: (stage: StageName) => boolean;
  /** Keep the values of these stages after `finish` for comparison (default: none). */
  retain?: ReadonlySet<StageName>;
  /** Of those, keep only the records whose recordKey passes (default: all): a re-run for a few records' values. */
  retainKey?: (key: string) => boolean;
  /** The device's fused statistics kernel (Runtime.stats), where it has one. */
  stats?: StatsKernel | undefined;
  /**
   * Whether to copy a retained value out of device memory into a host array as it is tapped, where
   * the host view reaches it (Runtime.retainOnHost: wasm, whose heap stops at 4 GiB), asked per tap.
   */
  offload?: (() => boolean) | undefined;
}

/** Zero-copy host view of a device tensor, where the backend has one (Runtime.hostView). */
export type HostView = (t: tfc.Tensor) => Float32Array | null;

/** A retained record's value handed over as its piece ends (TensorRecorder.drain): the taker disposes it. */
export interface Drained {
  key: string;
  where: Scope & { stage: StageName; chunk?: number };
  captured: Captured;
}

export interface Recording {
  trace: PathTrace;
  /** By recordKey. */
  captured: Map<string, Captured>;
}

export const recordKey = (r: Scope & { stage: StageName; chunk?: number }): string => `${r.step}/${r.request}/${r.stage}/${r.chunk ?? ''}`;

/** Comparator of records in execution order: by piece (in `pieces` order), then pipeline order. */
export function executionOrder(
  pieces: readonly Scope[],
): (a: Scope & { stage: StageName; chunk?: number }, b: Scope & { stage: StageName; chunk?: number }) => number {
  const index = new Map(pieces.map((p, i) => [`${p.step}/${p.request}`, i]));
  const rank = (r: Scope) => index.get(`${r.step}/${r.request}`) ?? -1;
  return (a, b) => rank(a) - rank(b) || stageOrder(a.stage, a.chunk) - stageOrder(b.stage, b.chunk);
}

export interface Tap<T> extends Scope {
  stage: StageName;
  chunk?: number;
  x: T;
  layout: string;
  checks: { name: CheckName; violations: T | number }[];
}

/** What every recorder does: taps, checks, scalars per piece, in execution order (TensorRecorder, host-recorder.ts). */
export abstract class BaseRecorder<T> implements Probe<T> {
  readonly enabled = true;
  protected readonly taps = new Map<string, Tap<T>>();
  /** Checks made before their stage's tap (a rounding counts overflow before the value is tapped). */
  protected readonly early = new Map<string, Tap<T>['checks']>();
  protected readonly pieces: PieceTrace[] = [];
  private current: PieceTrace = { step: 0, request: '', scalars: {} };

  constructor(protected readonly opts: RecorderOptions = {}) {}

  /** Records from here on belong to this piece (the runner calls it before each piece). */
  at(scope: Scope): void {
    const found = this.pieces.find((p) => p.step === scope.step && p.request === scope.request);
    this.current = found ?? { step: scope.step, request: scope.request, scalars: {} };
  }

  /** The current piece, listed once it holds anything. */
  private piece(): PieceTrace {
    if (!this.pieces.includes(this.current)) this.pieces.push(this.current);
    return this.current;
  }

  wants(stage: StageName): boolean {
    return this.opts.filter ? this.opts.filter(stage) : true;
  }

  tap<X extends T>(stage: StageName, x: X, layout: string = STAGES[stage].layout, chunk?: number): X {
    if (!this.wants(stage)) return x;
    const { step, request } = this.piece();
    const scope = { step, request };
    const key = recordKey({ ...scope, stage, chunk });
    if (this.taps.has(key)) throw new Error(`stage ${stage}${chunk === undefined ? '' : ` chunk ${chunk}`} tapped twice in piece ${key}`);
    const t: Tap<T> = {
      ...scope,
      stage,
      ...(chunk === undefined ? {} : { chunk }),
      x: this.hold(x),
      layout,
      checks: this.early.get(key) ?? [],
    };
    this.taps.set(key, t);
    this.early.delete(key);
    this.tapped(key, t);
    return x;
  }

  check(stage: StageName, name: CheckName, violations: T | number, chunk?: number): void {
    const key = recordKey({ step: this.current.step, request: this.current.request, stage, chunk });
    const held = { name, violations: typeof violations === 'number' ? violations : this.hold(violations) };
    const tap = this.taps.get(key);
    if (tap) tap.checks.push(held);
    else this.early.set(key, [...(this.early.get(key) ?? []), held]); // attached when the stage is tapped
  }

  scalar(name: ScalarName, value: ScalarValue): void {
    this.piece().scalars[name] = value;
  }

  protected ordered(): [string, Tap<T>][] {
    const order = executionOrder(this.pieces);
    return [...this.taps.entries()].sort(([, a], [, b]) => order(a, b));
  }

  protected trace(path: PathName, precision: PathTrace['precision'], stages: StageRecord[]): PathTrace {
    return { path, precision, stages, pieces: this.pieces.map((p) => ({ ...p, scalars: { ...p.scalars } })) };
  }

  protected abstract hold<X extends T>(x: X): X;

  /** Called once a tap is held (TensorRecorder starts its statistics there). */
  protected tapped(key: string, t: Tap<T>): void {
    void key;
    void t;
  }
}

/** A tap's record, from its stats and its checks' violation counts. */
export const record = (t: Tap<unknown>, stats: TensorStats, checks: { name: CheckName; violations: number }[]): StageRecord => ({
  step: t.step,
  request: t.request,
  stage: t.stage,
  ...(t.chunk === undefined ? {} : { chunk: t.chunk }),
  stats,
  ...(checks.length ? { checks } : {}),
});
