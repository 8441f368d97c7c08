import { existsSync, mkdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { MlaDiffError } from '../../../errors';
import { colorWanted, makeStyle, terminalWidth } from '../../reports/style';
import { judgeOf } from '../../../harness/compare/outcome';
import { progressBar } from '../../reports/progress';
import { progressLine, renderSweep } from '../../reports/sweep';
import type { DeviceRequest } from '../../../devices/runtime';
import { DEVICE_REQUESTS } from '../../../devices/runtime';
import type { Matrix } from '../../../harness/sweep/matrix';
import { loadMatrix } from '../../../harness/sweep/matrix';
import { runPoints } from '../../../harness/sweep/pool';
import type { SweepReport } from '../../../harness/sweep/report';
import { summarize, SWEEP_FORMAT, SWEEP_VERSION, sweepExit } from '../../../harness/sweep/report';
import { inShard, parseShard } from '../../../harness/sweep/shard';
import { handleErrors } from '../io/handle-errors';
import type { IO } from '../io/process-io';
import { toolVersion } from '../../../version';
import { checkOutput, processIO, writeOutput } from '../io/process-io';
import { writeFailed } from '../io/output-path';
import { expandInputs } from '../io/run-inputs';
import { rawScenarioInputs } from '../../../harness/scenario/inputs';

export interface SweepArgs {
  matrix: string;
  jobs?: number;
  shard?: string;
  out?: string;
  format: 'table' | 'json';
  device: DeviceRequest;
  full: boolean;
  force: boolean;
  verbose: boolean;
  /** false (`--no-expect`): every point judged by agreement. */
  expect?: boolean;
  wide?: boolean;
}

const DEFAULT_JOBS = Math.max(1, Math.floor(availableParallelism() / 2));

/** --out: a file, or a directory (existing, or written with a trailing /) that gets `<name>[.shard-i-of-n].json`. */
/** Whether --out names a directory the report goes into: written with a trailing /, or an existing one. */
export const isDirOut = (out: string): boolean => /[/\\]$/.test(out) || (existsSync(out) && statSync(out).isDirectory());

export function outPath(out: string, r: Pick<SweepReport, 'shard'> & { matrix: { name: string } }): string {
  if (!isDirOut(out)) return out;
  try {
    mkdirSync(out, { recursive: true });
  } catch (e) {
    throw writeFailed(out, '--out', e);
  }
  return join(out, `${r.matrix.name}${r.shard ? `.shard-${r.shard.index}-of-${r.shard.count}` : ''}.json`);
}

/** Every file a sweep reads: the matrix, its base scenario and what each point names (checkpoints, tolerances, …). */
export function sweepInputs(m: Matrix): string[] {
  const base = m.base.file.startsWith('<') ? process.cwd() : dirname(resolve(m.base.file));
  const named = m.points.flatMap((p) => rawScenarioInputs(p.scenario, base));
  return expandInputs([m.file, m.base.file, ...new Set(named)].filter((f) => !f.startsWith('<')));
}

/** Prints the report (table or JSON) and writes it under --out; the exit code from its points. */
export function emitSweep(
  r: SweepReport,
  a: { out?: string; format: 'table' | 'json'; force: boolean; inputs: readonly string[]; wide?: boolean },
  io: IO,
): number {
  const json = JSON.stringify(r, null, 2);
  if (a.out !== undefined) {
    const path = outPath(a.out, r);
    writeOutput(path, json, { force: a.force, inputs: a.inputs });
    io.err(`mla-diff: sweep report: ${path}`);
  }
  if (a.format === 'table') io.out(renderSweep(r, makeStyle(colorWanted(), terminalWidth(a.wide ?? false))));
  else if (!a.out) io.out(json);
  return sweepExit(r);
}

export async function sweepCommand(a: SweepArgs, io: IO = processIO): Promise<number> {
  const shard = a.shard === undefined ? null : parseShard(a.shard);
  const jobs = a.jobs ?? DEFAULT_JOBS;
  if (!Number.isInteger(jobs) || jobs < 1)
    throw new MlaDiffError('usage', `expected a whole number ≥ 1, got ${a.jobs}`, { field: '--jobs' });
  const m = loadMatrix(a.matrix);
  const mine = m.points.filter((p) => inShard(p.index, shard));
  const inputs = sweepInputs(m);
  // before any point runs: --out a file it may write, not one the sweep reads
  if (a.out !== undefined) checkOutput(outPath(a.out, { matrix: { name: m.name }, shard }), { force: a.force, inputs });
  // --verbose: a line per finished point; else, on a terminal, a bar; in a pipe or CI log, nothing.
  const bar = !a.verbose && io.errStream ? progressBar(io.errStream) : null;
  const t0 = performance.now();
  bar?.progress({ phase: 'points', done: 0, total: mine.length, label: `${a.jobs ?? DEFAULT_JOBS} worker(s)` });
  const onDone = a.verbose
    ? (p: Parameters<typeof progressLine>[0], done: number, total: number) => io.err(`mla-diff: ${progressLine(p, done, total)}`)
    : bar
      ? (p: Parameters<typeof progressLine>[0], done: number, total: number) => bar.progress({ phase: 'points', done, total, label: p.id })
      : undefined;
  let points;
  try {
    points = await runPoints(m, mine, { jobs, device: a.device, full: a.full, judge: judgeOf(a), onDone });
  } finally {
    bar?.stop();
  }
  const report: SweepReport = {
    format: SWEEP_FORMAT,
    version: SWEEP_VERSION,
    tool: { name: 'mla-diff', version: toolVersion() },
    created: new Date().toISOString(),
    matrix: { name: m.name, file: m.file, hash: m.hash, points: m.points.length },
    shard,
    missing: [],
    points,
    summary: summarize(points),
    seconds: (performance.now() - t0) / 1000,
  };
  return emitSweep(report, { ...a, inputs }, io);
}

export const sweepModule: CommandModule<object, SweepArgs> = {
  command: 'sweep <matrix>',
  describe: 'run every point of a sweep matrix (seeds × tokens × heads × chunking × device × faults) in parallel worker processes',
  builder: (y: Argv) =>
    y
      .positional('matrix', { type: 'string', demandOption: true, describe: 'sweep matrix YAML (format: mla-diff/sweep)' })
      .option('jobs', { alias: 'j', type: 'number', describe: `worker processes at a time (default ${DEFAULT_JOBS}: half the CPUs)` })
      .option('shard', { type: 'string', describe: 'run shard i of n (1-based; points dealt round-robin by index): --shard 2/4' })
      .option('out', { type: 'string', describe: 'write the sweep JSON to this file, or into this directory' })
      .option('format', { choices: ['table', 'json'] as const, default: 'table' as const })
      .option('device', { choices: DEVICE_REQUESTS, default: 'auto' as DeviceRequest, describe: 'device of points without a device axis' })
      .option('full', { type: 'boolean', default: false, describe: "embed each point's whole run report" })
      .option('force', { type: 'boolean', default: false, describe: 'let --out overwrite a file mla-diff did not write' })
      .option('expect', {
        type: 'boolean',
        default: true,
        describe: '--no-expect: judge each point by agreement, ignoring its expect: (exit 1 when any diverges)',
      })
      .example('$0 sweep scenarios/sweeps/tiny-faults.yaml --jobs 2', '2 seeds × 3 faults on the tiny layer, two at a time')
      .example(
        '$0 sweep matrix.yaml --shard 2/4 --out results/',
        "this machine's quarter; `mla-diff merge results/*.json` joins them",
      ) as unknown as Argv<SweepArgs>,
  handler: async (args) => {
    process.exitCode = await handleErrors(args.verbose, processIO, () => sweepCommand(args));
  },
};
