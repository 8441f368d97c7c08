import type * as tfc from '@tensorflow/tfjs-core';
import { isIdentity, permutation, transposeHost } from '../../core/probes/layout';
import type { CheckName, TensorProbe } from '../../core/probes/probe';
import type { Captured, HostView, Recording, Scope } from '../../core/probes/recorder';
import { recordKey } from '../../core/probes/recorder';
import { TensorRecorder } from '../../core/probes/tensor-recorder';
import type { StatsKernel } from '../../core/probes/stats-partials';
import type { PathName, ScalarName, ScalarValue, StageName } from '../../trace/stages';
import { STAGES } from '../../trace/stages';

/** Path A's value that replaces a tap of path B, keyed by B's record key. */
export interface Substitute {
  from: PathName;
  value: Captured;
}

/** A substitution that could not be made: the shapes differ once A's value is in B's tap layout. */
export interface SubstituteMismatch {
  key: string;
  have: number[];
  want: number[];
}

/**
 * The probe of a stage replay (teacher forcing): where a record key has a substitute, the tap
 * returns path A's value (converted to the tap's layout, float32, a fresh tensor inside the
 * step's tidy) instead of x; in the target piece it records the target stages like any recorder.
 * In other pieces it records nothing and reports itself disabled, so that once-per-run taps
 * (W_UK_T, W_UV) happen in the target piece.
 */
export class ReplayProbe implements TensorProbe {
  private readonly recorder: TensorRecorder;
  private scope: Scope = { step: -1, request: '' };
  /** Keys whose substitute a tap returned. */
  readonly applied = new Set<string>();
  readonly mismatches: SubstituteMismatch[] = [];
  /** Keys the recorder holds (a record of a target stage may be substituted in another chunk). */
  private readonly recorded = new Set<string>();

  constructor(
    private readonly tf: typeof tfc,
    private readonly target: Scope,
    targets: ReadonlySet<StageName>,
    private readonly subs: ReadonlyMap<string, Substitute>,
    view: HostView,
    stats?: StatsKernel,
  ) {
    this.recorder = new TensorRecorder(tf, { filter: (s) => targets.has(s), retain: targets, stats }, view);
  }

  private get recording(): boolean {
    return this.scope.step === this.target.step && this.scope.request === this.target.request;
  }

  get enabled(): boolean {
    return this.recording;
  }

  at(scope: Scope): void {
    this.scope = { step: scope.step, request: scope.request };
    if (this.recording) this.recorder.at(scope);
  }

  /** Also where a substitute waits: a path computes some stages (the [N,T,S] logits) only when they are wanted. */
  wants(stage: StageName): boolean {
    return (this.recording && this.recorder.wants(stage)) || this.subs.has(recordKey({ ...this.scope, stage }));
  }

  tap<X extends tfc.Tensor>(stage: StageName, x: X, layout: string = STAGES[stage].layout, chunk?: number): X {
    const key = recordKey({ ...this.scope, stage, chunk });
    const sub = this.subs.get(key);
    if (!sub) {
      if (!this.wants(stage)) return x;
      this.recorded.add(key);
      return this.recorder.tap(stage, x, layout, chunk);
    }
    const t = this.convert(sub.value, layout);
    const want = x.shape.slice();
    if (t.shape.length !== want.length || t.shape.some((d, i) => d !== want[i])) {
      this.mismatches.push({ key, have: t.shape.slice(), want });
      t.dispose();
      return x;
    }
    this.applied.add(key);
    return t as X;
  }

  /** A's value in `layout`, float32, as a new tensor (tracked by the step's tidy). */
  private convert(c: Captured, layout: string): tfc.Tensor {
    const perm = permutation(c.layout, layout);
    if (c.where === 'device') return isIdentity(perm) ? this.tf.reshape(c.tensor, c.tensor.shape) : this.tf.transpose(c.tensor, perm);
    const h = transposeHost(c.data, c.shape, perm);
    return this.tf.tensor(h.data instanceof Float32Array ? h.data : Float32Array.from(h.data), h.shape, 'float32');
  }

  check(stage: StageName, name: CheckName, violations: tfc.Tensor | number, chunk?: number): void {
    if (this.recorded.has(recordKey({ ...this.scope, stage, chunk }))) this.recorder.check(stage, name, violations, chunk);
  }

  scalar(name: ScalarName, value: ScalarValue): void {
    if (this.recording) this.recorder.scalar(name, value);
  }

  finish(path: PathName): Promise<Recording> {
    return this.recorder.finish(path);
  }

  dispose(): void {
    this.recorder.dispose();
  }
}
