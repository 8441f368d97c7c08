import type * as tfc from '@tensorflow/tfjs-core';
import type { PathName, StageName } from '../../trace/stages';
import type { Captured, Drained, HostView, Recording, RecorderOptions, StageRecord, Tap } from './recorder';
import { BaseRecorder, record } from './recorder';
import type { LaunchedStats } from './stats-batch';
import { disposeLaunched, launchStats, launchStatsMany, settleStats } from './stats-batch';
import type { TensorStats } from './stats';

/**
 * Records tfjs tensors. Each tap's stats start when it is tapped: from a zero-copy host view where
 * the backend keeps tensors in host memory (exact, no temporaries), else on the device (the fused
 * kernel or reductions), queued behind the step's own programs so the GPU runs them meanwhile;
 * `finish` only reads them back. Values are kept only for `retain` stages (the others are released
 * once their stats are queued).
 */
export class TensorRecorder extends BaseRecorder<tfc.Tensor> {
  /** By recordKey: the started stats of each tap. */
  private readonly jobs = new Map<string, LaunchedStats>();
  /** Taps waiting for a batched launch (the device kernel's launchMany), their values still held. */
  private pending: { key: string; t: Tap<tfc.Tensor> }[] = [];
  /** Read-backs started by `settle`: the stats of these keys, in flight. */
  private settling: { keys: string[]; stats: Promise<TensorStats[]> }[] = [];
  /** Violation counts being read, per check (started by `settle`, else by `finish`). */
  private readonly counting = new Map<object, Promise<number>>();
  /** Retained values copied to the host (opts.offload), by recordKey: their tensors are released at once. */
  private readonly onHost = new Map<string, Float32Array>();
  /** Retained values handed over by `drain`: no longer this recorder's to return or release. */
  private readonly drained = new Set<string>();

  constructor(
    private readonly tf: typeof tfc,
    opts: RecorderOptions = {},
    private readonly view: HostView = () => null,
  ) {
    super(opts);
  }

  private retained(stage: StageName, key: string): boolean {
    return (this.opts.retain?.has(stage) ?? false) && (this.opts.retainKey?.(key) ?? true) && !this.drained.has(key);
  }

  /**
   * Starts t's stats, kept past the step's tf.tidy; an unretained value is released once they are
   * launched. Where the device kernel takes several tensors per launch, float32 taps wait until a
   * batch is full (or `finish`): one dispatch per maxBatch stages rather than one each.
   */
  protected override tapped(key: string, t: Tap<tfc.Tensor>): void {
    const k = this.opts.stats;
    if (k?.launchMany && (k.maxBatch ?? 1) > 1 && t.x.dtype === 'float32' && t.x.size > 0 && this.view(t.x) === null) {
      this.pending.push({ key, t });
      if (this.pending.length >= k.maxBatch!) this.flush();
      return;
    }
    try {
      const job = launchStats(this.tf, t.x, t.layout, this.view, this.opts.stats);
      if ('reads' in job) for (const r of job.reads) this.tf.keep(r);
      this.jobs.set(key, job);
      const host = this.retained(t.stage, key) && this.opts.offload?.() ? this.view(t.x) : null;
      if (host) {
        this.onHost.set(key, host.slice());
        t.x.dispose(); // its shape stays readable for finish
      }
    } finally {
      if (!this.retained(t.stage, key)) t.x.dispose();
    }
  }

  /** Launches the waiting taps' stats together (one dispatch); each job reads its own rows of the shared partials. */
  private flush(): void {
    const batch = this.pending.splice(0);
    if (!batch.length) return;
    try {
      launchStatsMany(
        this.tf,
        this.opts.stats!,
        batch.map((b) => b.t),
      ).forEach((job, i) => this.jobs.set(batch[i]!.key, job));
    } finally {
      for (const { key, t } of batch) if (!this.retained(t.stage, key)) t.x.dispose();
    }
  }

  /**
   * A second handle on x's data, kept past tf.tidy: a same-shape reshape, which every backend
   * answers by sharing the buffer (tf.clone copies it on wasm).
   */
  protected hold<X extends tfc.Tensor>(x: X): X {
    return this.tf.keep(this.tf.reshape(x, x.shape)) as X;
  }

  /**
   * Launches the stats of every tap so far and starts reading them back (one joined read-back) with
   * the violation counts of their checks, without waiting: called once a step is enqueued, so the
   * read travels with the step's own (a read-back through Dawn in Node is a ~2 ms round trip) rather
   * than after it. `finish` awaits it.
   */
  settle(): void {
    this.flush();
    const keys = [...this.jobs.keys()];
    if (keys.length) {
      const stats = settleStats(
        this.tf,
        keys.map((k) => this.jobs.get(k)!),
      );
      stats.catch(() => undefined); // awaited (and thrown) by finish
      this.settling.push({ keys, stats });
      this.jobs.clear();
    }
    // Only starts the counts' reads: count caches each promise in `counting`, with a no-op catch so a failed read is not an
    // unhandled rejection meanwhile; finish awaits the same cached promises and so throws the failure (dispose drops them).
    for (const [, t] of this.ordered()) for (const c of t.checks) void this.count(c);
  }

  private count(c: Tap<tfc.Tensor>['checks'][number]): Promise<number> {
    if (typeof c.violations === 'number') return Promise.resolve(c.violations);
    let n = this.counting.get(c);
    if (!n) {
      n = c.violations.data().then((d) => d[0] as number);
      n.catch(() => undefined);
      this.counting.set(c, n);
    }
    return n;
  }

  /**
   * Reads the stats of every tap and the violation counts of every check (those `settle` has not
   * started, all at once: one device round trip, not one per record), then assembles the records in
   * execution order. On failure everything stays held for `dispose`.
   */
  async finish(path: PathName): Promise<Recording> {
    this.settle();
    const taps = this.ordered();
    const byKey = new Map<string, TensorStats>();
    const [settled, violations] = await Promise.all([
      Promise.all(this.settling.splice(0).map(async ({ keys, stats }) => ({ keys, stats: await stats }))),
      Promise.all(taps.map(([, t]) => Promise.all(t.checks.map((c) => this.count(c))))),
    ]);
    for (const { keys, stats } of settled) keys.forEach((k, i) => byKey.set(k, stats[i]!));
    const stages: StageRecord[] = [];
    const captured = new Map<string, Captured>();
    for (const [i, [key, t]] of taps.entries()) {
      const checks = t.checks.map((c, j) => ({ name: c.name, violations: violations[i]![j]! }));
      for (const c of t.checks) if (typeof c.violations !== 'number') c.violations.dispose();
      stages.push(record(t, byKey.get(key)!, checks));
      const host = this.onHost.get(key);
      if (host) captured.set(key, { where: 'host', data: host, shape: t.x.shape.slice(), layout: t.layout });
      else if (this.retained(t.stage, key)) captured.set(key, { where: 'device', tensor: t.x, layout: t.layout });
    }
    this.onHost.clear();
    this.drained.clear();
    this.counting.clear();
    this.taps.clear();
    this.dropEarly();
    return { trace: this.trace(path, 'float32', stages), captured };
  }

  /**
   * Hands over the values of the retained records tapped since the last drain (the piece just stepped;
   * call after `settle`), for a comparison that runs piece by piece: the taker releases them, `finish`
   * returns the records' statistics without them.
   */
  drain(): Drained[] {
    this.flush();
    const out: Drained[] = [];
    for (const [key, t] of this.taps) {
      if (!this.retained(t.stage, key)) continue;
      const host = this.onHost.get(key);
      const where = { step: t.step, request: t.request, stage: t.stage, ...(t.chunk === undefined ? {} : { chunk: t.chunk }) };
      const captured: Captured = host
        ? { where: 'host', data: host, shape: t.x.shape.slice(), layout: t.layout }
        : { where: 'device', tensor: t.x, layout: t.layout };
      out.push({ key, where, captured });
      this.onHost.delete(key);
      this.drained.add(key);
    }
    return out;
  }

  /** Checks whose stage was never tapped: released. */
  protected dropEarly(): void {
    for (const list of this.early.values())
      for (const c of list) if (typeof c.violations !== 'number') (c.violations as { dispose(): void }).dispose();
    this.early.clear();
  }

  /** Releases everything still held (after an error, say). */
  dispose(): void {
    for (const { key, t } of this.pending.splice(0)) if (!this.retained(t.stage, key)) t.x.dispose();
    disposeLaunched(this.tf, [...this.jobs.values()]);
    this.jobs.clear();
    this.settling = []; // each frees what it read when it settles
    this.counting.clear();
    this.onHost.clear();
    for (const [key, t] of this.taps) {
      if (this.retained(t.stage, key)) t.x.dispose(); // a no-op where offloaded
      for (const c of t.checks) if (typeof c.violations !== 'number') c.violations.dispose();
    }
    this.taps.clear();
    this.drained.clear();
    this.dropEarly();
  }
}
