/** run's outputs: the report in each format, checked and written to --out, --junit, --markdown, --html or stdout. */
import { renderJUnit } from '../../reports/junit';
import { renderMarkdown } from '../../reports/markdown';
import { oneLine, renderRun } from '../../reports/summary';
import { colorWanted, makeStyle, terminalWidth } from '../../reports/style';
import { runsTotal } from '../../reports/outcome-text';
import type { RunReport } from '../../../harness/run/trace';
import { loadHtml } from '../../reports/html-lazy';
import type { IO } from '../io/process-io';
import { checkOutputs as checkOutputFiles, commandSeconds, writeOutput } from '../io/process-io';
import type { RunArgs, RunFormat } from './run-options';

/** run's output files, each with the flag that names it. */
export function runOutputs(args: RunArgs): { path: string; field: string }[] {
  const files = (['out', 'junit', 'markdown', 'html'] as const).flatMap((k) =>
    args[k] === undefined ? [] : [{ path: args[k]!, field: `--${k}` }],
  );
  return args.writeTolerances === undefined ? files : [...files, { path: args.writeTolerances, field: '--write-tolerances' }];
}

/**
 * Before any work: each output a file it may write (not empty, not a directory, device or FIFO), none
 * of them an input of the run (`inputs`: first the files named on the command line, then, once the
 * scenarios are loaded, every file they read), no two of them one file (one would replace another).
 */
export function checkOutputs(args: RunArgs, inputs: readonly string[] = [...args.scenarios, ...(args.golden ? [args.golden] : [])]): void {
  checkOutputFiles(runOutputs(args), { force: args.force, inputs });
}

function render(format: RunFormat, reports: RunReport[], args: RunArgs): string {
  if (format === 'json')
    return JSON.stringify(reports.length === 1 ? reports[0] : { format: 'mla-diff/runs', version: 1, runs: reports }, null, 2);
  if (format === 'junit') return renderJUnit(reports);
  if (format === 'markdown') return renderMarkdown(reports);
  const style = makeStyle(!args.out && colorWanted(), terminalWidth(args.wide ?? false));
  const total = reports.length > 1 ? [runsTotal(reports)] : [];
  const last = reports.length - 1; // its time line: the whole wall time from the command's start
  const runs = reports.map((r, i) => renderRun(r, style, args.verbose, i === last ? commandSeconds() : undefined));
  return ['mla-diff report', ...runs, ...total].join('\n\n');
}

/** Writes the reports where the flags say: the side files, then --out (one line per scenario on stdout) or stdout. */
export async function writeReports(
  args: RunArgs,
  reports: RunReport[],
  io: IO,
  log: (m: string) => void,
  inputs: readonly string[] = args.scenarios,
): Promise<void> {
  const text = render(args.format, reports, args);
  for (const k of ['junit', 'markdown'] as const) {
    if (args[k] === undefined) continue;
    writeOutput(args[k]!, render(k, reports, args), { force: args.force, inputs, field: `--${k}` });
    log(`${k} report: ${args[k]}`);
  }
  if (args.html) {
    const { renderHtml } = loadHtml();
    writeOutput(args.html, await renderHtml(reports), { force: args.force, inputs, field: '--html' });
    log(`html report: ${args.html}`);
  }
  if (args.out) {
    writeOutput(args.out, text, { force: args.force, inputs });
    if (!args.quiet) for (const r of reports) io.out(`${oneLine(r)} (report: ${args.out})`);
  } else if (!args.quiet || args.format !== 'table') {
    io.out(text);
  }
}
