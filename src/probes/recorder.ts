import type * as tfc from '@tensorflow/tfjs-core';
import type { HostTensor, Probe } from './probe';
import type { PathName, ScalarName, ScalarValue, StageName } from './stages';
import { STAGE_NAMES, STAGES } from './stages';
import type { TensorStats } from './stats';
import { deviceStats, hostStats } from './stats';

export interface StageRecord {
  stage: StageName;
  stats: TensorStats;
}

/** One path's trace: plain data, the unit of the versioned JSON. */
export interface PathTrace {
  path: PathName;
  precision: 'float32' | 'float64';
  stages: StageRecord[];
  scalars: Partial<Record<ScalarName, ScalarValue>>;
}

/** Values kept past recording, for elementwise comparison with another path. */
export type Captured =
  | { where: 'device'; tensor: tfc.Tensor; layout: string }
  | { where: 'host'; data: Float64Array | Float32Array; shape: number[]; layout: string };

export interface RecorderOptions {
  /** Record only these stages (default: all). */
  filter?: (stage: StageName) => boolean;
  /** Keep the values of these stages after `finish` for comparison (default: none). */
  retain?: ReadonlySet<StageName>;
}

/** Zero-copy host view of a device tensor, where the backend has one (Runtime.hostView). */
export type HostView = (t: tfc.Tensor) => Float32Array | null;

export interface Recording {
  trace: PathTrace;
  captured: Map<StageName, Captured>;
}

abstract class BaseRecorder<T> implements Probe<T> {
  readonly enabled = true;
  protected readonly taps = new Map<StageName, { x: T; layout: string }>();
  protected readonly scalars: PathTrace['scalars'] = {};

  constructor(protected readonly opts: RecorderOptions = {}) {}

  wants(stage: StageName): boolean {
    return this.opts.filter ? this.opts.filter(stage) : true;
  }

  tap<X extends T>(stage: StageName, x: X, layout: string = STAGES[stage].layout): X {
    if (!this.wants(stage)) return x;
    if (this.taps.has(stage)) throw new Error(`stage ${stage} tapped twice in one path`);
    this.taps.set(stage, { x: this.hold(x), layout });
    return x;
  }

  scalar(name: ScalarName, value: ScalarValue): void {
    this.scalars[name] = value;
  }

  protected ordered(): [StageName, { x: T; layout: string }][] {
    return STAGE_NAMES.filter((s) => this.taps.has(s)).map((s) => [s, this.taps.get(s)!]);
  }

  protected abstract hold(x: T): T;
}

/**
 * Records tfjs tensors. Stats come from a zero-copy host view where the backend keeps tensors in
 * host memory (exact, no temporaries), else from reductions on the device. Values are kept only
 * for `retain` stages.
 */
export class TensorRecorder extends BaseRecorder<tfc.Tensor> {
  constructor(private readonly tf: typeof tfc, opts: RecorderOptions = {}, private readonly view: HostView = () => null) {
    super(opts);
  }

  protected hold(x: tfc.Tensor): tfc.Tensor {
    return this.tf.keep(x.clone()); // shares the data buffer: no copy
  }

  async finish(path: PathName): Promise<Recording> {
    const { tf } = this;
    const stages: StageRecord[] = [];
    const captured = new Map<StageName, Captured>();
    for (const [stage, { x, layout }] of this.ordered()) {
      const v = this.view(x);
      const stats = v ? hostStats(v, x.shape.slice(), 'float32', layout) : await deviceStats(tf, x, layout);
      stages.push({ stage, stats });
      if (this.opts.retain?.has(stage)) captured.set(stage, { where: 'device', tensor: x, layout });
      else x.dispose();
    }
    this.taps.clear();
    return { trace: { path, precision: 'float32', stages, scalars: { ...this.scalars } }, captured };
  }

  /** Releases everything still held (after an error, say). */
  dispose(): void {
    for (const { x } of this.taps.values()) x.dispose();
    this.taps.clear();
  }
}

/** Records the float64 reference's host tensors; exact stats, values kept for `retain` stages. */
export class HostRecorder extends BaseRecorder<HostTensor> {
  protected hold(x: HostTensor): HostTensor {
    return x;
  }

  /** A tapped value before `finish` (the reference derives per-case records from one pass). */
  get(stage: StageName): HostTensor | undefined {
    return this.taps.get(stage)?.x;
  }

  forEachTap(fn: (stage: StageName, x: HostTensor, layout: string) => void): void {
    for (const [stage, { x, layout }] of this.ordered()) fn(stage, x, layout);
  }

  scalarEntries(): [ScalarName, ScalarValue][] {
    return Object.entries(this.scalars) as [ScalarName, ScalarValue][];
  }

  finish(path: PathName): Recording {
    const stages: StageRecord[] = [];
    const captured = new Map<StageName, Captured>();
    for (const [stage, { x, layout }] of this.ordered()) {
      const stats = hostStats(x.data, x.shape, x.data instanceof Float32Array ? 'float32' : 'float64', layout);
      stages.push({ stage, stats });
      if (this.opts.retain?.has(stage)) captured.set(stage, { where: 'host', data: x.data, shape: x.shape, layout });
    }
    this.taps.clear();
    return { trace: { path, precision: 'float64', stages, scalars: { ...this.scalars } }, captured };
  }
}
