import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import execa from 'execa';
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
  const r = await execa(process.execPath, [WORKER, resolve(m.file), String(spec.index), m.hash, spec.device ?? o.device, out], {
    reject: false,
    all: true,
  });
  const seconds = (performance.now() - t) / 1000;
  if (r.exitCode === 0) return pointFromRun(base, JSON.parse(readFileSync(out, 'utf8')) as RunReport, seconds, o.full, o.judge);
  const last = (r.stderr || r.all || '').trim().split('\n').filter(Boolean).pop() ?? `exit ${r.exitCode}`;
  return pointFromError(
    base,
    (spec.scenario.expect as Expectation | undefined) ?? null,
    { exit: r.exitCode === 2 ? 2 : 3, message: last },
    seconds,
  );
}

/** Runs the points in `jobs` worker processes at a time; the rows come back in point order. */
export async function runPoints(m: Matrix, points: readonly PointSpec[], o: PoolOptions): Promise<SweepPoint[]> {
  const dir = mkdtempSync(join(tmpdir(), 'mla-diff-sweep-'));
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
    rmSync(dir, { recursive: true, force: true });
  }
  return rows.sort((a, b) => a.index - b.index);
}
