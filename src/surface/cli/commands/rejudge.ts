import type { Argv, CommandModule } from 'yargs';
import type { ToleranceSpec } from '../../../harness/compare/tolerance';
import { loadRunReport } from '../../../harness/golden/load-report';
import { rejudgeRun } from '../../../harness/golden/rejudge';
import { renderRun } from '../../reports/summary';
import { colorWanted, makeStyle, terminalWidth } from '../../reports/style';
import { allPass, judgeOf } from '../../../harness/compare/outcome';
import type { RunReport } from '../../../harness/run/trace';
import { readTolerancesFile } from '../../../harness/scenario/tolerances-file';
import { EXIT, handleErrors } from '../io/handle-errors';
import type { IO } from '../io/process-io';
import { checkOutput, processIO, writeOutput } from '../io/process-io';

export interface RejudgeArgs {
  report: string;
  tolerances?: string;
  rel?: number;
  floor?: number;
  format: 'table' | 'json';
  out?: string;
  force: boolean;
  verbose: boolean;
  /** false (`--no-expect`): judge raw agreement. */
  expect?: boolean;
  wide?: boolean;
}

/** The new tolerances: a file's stages over the saved default, or one rule for every stage. */
function spec(args: RejudgeArgs, saved: RunReport): ToleranceSpec {
  if (args.rel !== undefined) return { default: args.rel };
  if (args.floor !== undefined) return { default: { floor: args.floor } };
  const stages = args.tolerances ? readTolerancesFile(args.tolerances) : (saved.scenario.tolerances.stages ?? {});
  return { ...(saved.scenario.tolerances.default === undefined ? {} : { default: saved.scenario.tolerances.default }), stages };
}

/** `mla-diff rejudge SAVED`: every case judged again with new tolerances, nothing re-run; exit codes as run. */
export async function rejudgeCommand(args: RejudgeArgs, io: IO = processIO): Promise<number> {
  const write = { force: args.force, inputs: [args.report, ...(args.tolerances === undefined ? [] : [args.tolerances])] };
  if (args.out !== undefined) checkOutput(args.out, write); // before reading: a bad --out fails first
  const saved = loadRunReport(args.report);
  const reports = saved.runs.map((r) => rejudgeRun(r, spec(args, r), judgeOf(args)));
  const style = makeStyle(!args.out && colorWanted(), terminalWidth(args.wide ?? false));
  const text =
    args.format === 'json'
      ? JSON.stringify(reports.length === 1 ? reports[0] : { format: 'mla-diff/runs', version: 1, runs: reports }, null, 2)
      : ['mla-diff report (re-judged)', ...reports.map((r) => renderRun(r, style, args.verbose))].join('\n\n');
  if (args.out !== undefined) writeOutput(args.out, text, write);
  else io.out(text);
  return allPass(reports) ? EXIT.agree : EXIT.diverge; // the one rule, as run
}

export const rejudgeModule: CommandModule<object, RejudgeArgs> = {
  command: 'rejudge <report>',
  describe: 're-judge a saved run with new tolerances, without re-running',
  builder: (y: Argv) =>
    y
      .positional('report', { type: 'string', demandOption: true, describe: 'a saved run report (run --format json --out)' })
      .option('tolerances', { type: 'string', describe: 'a tolerances file (mla-diff/tolerances, as --write-tolerances writes)' })
      .option('rel', { type: 'number', describe: 'judge every activation stage with this relative bound' })
      .option('floor', { type: 'number', describe: 'judge every activation stage with k × its noise floor' })
      .conflicts('rel', ['floor', 'tolerances'])
      .conflicts('floor', 'tolerances')
      .option('expect', {
        type: 'boolean',
        default: true,
        describe: "--no-expect: judge raw agreement, ignoring the scenario's expect:",
      })
      .option('format', { choices: ['table', 'json'] as const, default: 'table' as const, describe: 'report format' })
      .option('out', { type: 'string', describe: 'write the report to this file' })
      .option('force', { type: 'boolean', default: false, describe: 'let --out overwrite a file mla-diff did not write' })
      .example('$0 rejudge trace.json --rel 1e-7', 'the same run under a tighter tolerance') as unknown as Argv<RejudgeArgs>,
  handler: async (args) => {
    process.exitCode = await handleErrors(args.verbose, processIO, () => rejudgeCommand(args));
  },
};
