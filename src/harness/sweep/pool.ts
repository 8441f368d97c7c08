import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import execa from 'execa';
import { scratchDir } from '../external/scratch-dir';
import { stderrTail } from '../external/stderr-tail';
import { onStop } from '../external/stop';
import type { RunReport } from '../run/trace';
import type { Judge } from '../../trace';
import type { DeviceRequest } from '../../devices/runtime';
import type { Expectation } from '../scenario/scenario';
import type { PointSpec } from './expand';
import type { Matrix } from './matrix';
import type { SweepPoint } from './report';
import { pointFromError, pointFromRun } from './report';

/** The worker entry point, beside this module in dist/. */
const WORKER = join(__dirname, 'worker.js');

export interface PoolOptions {
  jobs: number;
  /** The device of points without a device axis. */
  device: DeviceRequest;
  /** Embed each whole run report. */
  full: boolean;
  /** How each point is judged (`--no-expect`: agreement); default expect. */
  judge?: Judge;
  /** Called as each point finishes, in finishing order. */
  onDone?: (p: SweepPoint, done: number, total: number) => void;
}

async function runOne(m: Matrix, spec: PointSpec, dir: string, o: PoolOptions): Promise<SweepPoint> {
  const out = join(dir, `point-${spec.index}.json`);
  const base = { index: spec.index, id: spec.id, axes: spec.axes };
  const t = performance.now();
  const child = execa(process.execPath, [WORKER, resolve(m.file), String(spec.index), m.hash, spec.device ?? o.device, out], {
    reject: false,
    all: true,
    maxBuffer: 1 << 20,
  });
  // a signal that stops the sweep stops each worker the same way: it kills its own backend and removes its exchange directory
  const unStop = onStop('kill', () => void child.kill('SIGTERM'));
  const r = await child.finally(unStop);
  const seconds = (performance.now() - t) / 1000;
  if (r.exitCode === 0) return pointFromRun(base, JSON.parse(readFileSync(out, 'utf8')) as RunReport, seconds, o.full, o.judge);
  const stopped = r.signal ?? (r.exitCode !== undefined && r.exitCode > 128 ? `exit ${r.exitCode}` : null);
  const last = stopped
    ? `[interrupted] the worker was stopped by a signal (${stopped})`
    : stderrTail(r.stderr || r.all || '', { lines: 1, lineChars: 1000, bytes: 2048 }) || `exit ${r.exitCode}`;
  return pointFromError(
    base,
    (spec.scenario.expect as Expectation | undefined) ?? null,
    { exit: r.exitCode === 2 ? 2 : 3, message: last },
    seconds,
  );
}

/** Runs the points in `jobs` worker processes at a time; the rows come back in point order. */
export async function runPoints(m: Matrix, points: readonly PointSpec[], o: PoolOptions): Promise<SweepPoint[]> {
  const dir = scratchDir('mla-diff-sweep-', "the sweep's point directory");
  const unStop = onStop('remove', () => rmSync(dir, { recursive: true, force: true }));
  const rows: SweepPoint[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < points.length) {
      const spec = points[next++]!;
      const row = await runOne(m, spec, dir, o);
      rows.push(row);
      o.onDone?.(row, rows.length, points.length);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(o.jobs, points.length)) }, lane));
  } finally {
    unStop();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows.sort((a, b) => a.index - b.index);
}
