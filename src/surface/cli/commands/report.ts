import type { Argv, CommandModule } from 'yargs';
import { loadRunReport } from '../../../harness/golden/load-report';
import { EXIT, handleErrors } from '../io/handle-errors';
import { loadHtml } from '../../reports/html-lazy';
import type { IO } from '../io/process-io';
import { processIO, writeOutput } from '../io/process-io';

export interface ReportArgs {
  file: string;
  html: string;
  force: boolean;
  verbose: boolean;
}

/** `mla-diff report`: render a saved JSON run (`run --format json`) as the HTML report, without re-running. */
export async function reportCommand(args: ReportArgs, io: IO = processIO): Promise<number> {
  const reports = loadRunReport(args.file).runs;
  const { renderHtml } = loadHtml();
  writeOutput(args.html, await renderHtml(reports), { force: args.force, inputs: [args.file], field: '--html' });
  io.out(`html report: ${args.html} (${reports.reduce((n, r) => n + r.cases.length, 0)} case(s))`);
  return reports.every((r) => r.verdict === 'agree') ? EXIT.agree : EXIT.diverge;
}

export const reportModule: CommandModule<object, ReportArgs> = {
  command: 'report <file>',
  describe: 'render a saved JSON run report (run --format json) as one self-contained HTML page with plots',
  builder: (y: Argv) =>
    y
      .positional('file', { type: 'string', demandOption: true, describe: 'a JSON run report (format mla-diff/run or mla-diff/runs)' })
      .option('html', { type: 'string', demandOption: true, describe: 'write the HTML report to this file' })
      .option('force', { type: 'boolean', default: false, describe: 'let --html overwrite a file mla-diff did not write' })
      .example(
        '$0 report run.json --html run.html',
        'per-stage norms, errors against tolerances and the per-head error map, in one file',
      ) as unknown as Argv<ReportArgs>,
  handler: async (args) => {
    process.exitCode = await handleErrors(args.verbose, processIO, () => reportCommand(args));
  },
};
