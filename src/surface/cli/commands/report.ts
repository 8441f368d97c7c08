import type { Argv, CommandModule } from 'yargs';
import { loadRunReport } from '../../../harness/golden/load-report';
import { MlaDiffError } from '../../../errors';
import { allPass, withOutcome } from '../../../harness/compare/outcome';
import { runOutcomeText } from '../../reports/outcome-text';
import { EXIT, handleErrors } from '../io/handle-errors';
import { loadHtml } from '../../reports/html-lazy';
import type { IO } from '../io/process-io';
import { checkOutput, processIO, writeOutput } from '../io/process-io';

export interface ReportArgs {
  file: string;
  html: string;
  force: boolean;
  verbose: boolean;
  /** Exit 1 when the saved run fails under the rule (as run would); default: rendering alone exits 0. */
  judge?: boolean;
  /** false (`--no-expect`, with --judge): by agreement. */
  expect?: boolean;
}

/** `mla-diff report`: render a saved JSON run (`run --format json`) as the HTML report, without re-running. */
export async function reportCommand(args: ReportArgs, io: IO = processIO): Promise<number> {
  if (args.expect === false && !args.judge)
    throw new MlaDiffError('usage', '--no-expect re-judges the saved run: it goes with --judge', { field: '--no-expect' }, 'add --judge');
  const write = { force: args.force, inputs: [args.file], field: '--html' };
  checkOutput(args.html, write); // before reading: a bad --html fails first
  const saved = loadRunReport(args.file).runs;
  // --judge --no-expect: by agreement; else as saved (the HTML says how it was judged)
  const reports = args.judge && args.expect === false ? saved.map((r) => withOutcome(r, 'agreement')) : saved;
  const { renderHtml } = loadHtml();
  writeOutput(args.html, await renderHtml(reports), write);
  io.out(`html report: ${args.html} (${reports.reduce((n, r) => n + r.cases.length, 0)} case(s))`);
  if (!args.judge) return EXIT.agree; // rendering a diverged run is not a failure
  for (const r of reports) io.out(runOutcomeText(r));
  return allPass(reports) ? EXIT.agree : EXIT.diverge;
}

export const reportModule: CommandModule<object, ReportArgs> = {
  command: 'report <file>',
  describe: 'render a saved JSON run report (run --format json) as one self-contained HTML page with plots',
  builder: (y: Argv) =>
    y
      .positional('file', { type: 'string', demandOption: true, describe: 'a JSON run report (format mla-diff/run or mla-diff/runs)' })
      .option('html', { type: 'string', demandOption: true, describe: 'write the HTML report to this file' })
      .option('force', { type: 'boolean', default: false, describe: 'let --html overwrite a file mla-diff did not write' })
      .option('judge', {
        type: 'boolean',
        default: false,
        describe: 'exit as run would: 0 when every case passes (its expect: met, or its paths agree), 1 otherwise; default: exit 0',
      })
      .option('expect', { type: 'boolean', default: true, describe: '--no-expect (with --judge): judge raw agreement' })
      .example('$0 report run.json --html run.html', 'per-stage norms, errors against tolerances and the per-head error map, in one file')
      .example(
        '$0 report run.json --html run.html --judge',
        'also exit 1 when the saved run fails its declared outcomes',
      ) as unknown as Argv<ReportArgs>,
  handler: async (args) => {
    process.exitCode = await handleErrors(args.verbose, processIO, () => reportCommand(args));
  },
};
