import type { Argv, CommandModule } from 'yargs';
import type { CompareRule, RunsComparison } from '../../../harness/golden/compare-runs';
import { compareRuns, DEFAULT_RULE } from '../../../harness/golden/compare-runs';
import { loadRunReport } from '../../../harness/golden/load-report';
import { renderComparison } from '../../reports/golden';
import { colorWanted, makeStyle } from '../../reports/style';
import { EXIT, handleErrors } from '../io/handle-errors';
import type { IO } from '../io/process-io';
import { processIO, writeOutput } from '../io/process-io';

export interface CompareArgs {
  golden: string;
  new: string;
  rel?: number;
  floor?: number;
  format: 'table' | 'json';
  out?: string;
  force: boolean;
  verbose: boolean;
}

export const ruleOf = (a: { rel?: number; floor?: number }): CompareRule => ({
  ...DEFAULT_RULE,
  ...(a.rel === undefined ? {} : { rel: a.rel }),
  ...(a.floor === undefined ? {} : { k: a.floor }),
});

export const comparisonText = (c: RunsComparison, format: 'table' | 'json', color: boolean): string =>
  format === 'json' ? JSON.stringify(c, null, 2) : renderComparison(c, makeStyle(color));

/** `mla-diff compare GOLDEN NEW`: two saved runs, record by record; exit 0 same, 1 changed, 2 bad input. */
export async function compareCommand(args: CompareArgs, io: IO = processIO): Promise<number> {
  const c = compareRuns(loadRunReport(args.golden), loadRunReport(args.new), ruleOf(args));
  const text = comparisonText(c, args.format, !args.out && colorWanted());
  if (args.out) writeOutput(args.out, text, { force: args.force, inputs: [args.golden, args.new] });
  else io.out(text);
  return c.verdict === 'same' ? EXIT.agree : EXIT.diverge;
}

export const compareModule: CommandModule<object, CompareArgs> = {
  command: 'compare <golden> <new>',
  describe: 'compare two saved runs (golden vs new, CPU vs GPU, two commits) record by record',
  builder: (y: Argv) =>
    y
      .positional('golden', { type: 'string', demandOption: true, describe: 'the golden run report (run --format json --out)' })
      .positional('new', { type: 'string', demandOption: true, describe: 'the run report to check against it' })
      .option('rel', { type: 'number', describe: 'a fixed relative bound for every record (default: k × its noise floor)' })
      .option('floor', { type: 'number', describe: `k: a record may move k × its noise floor (default ${DEFAULT_RULE.k})` })
      .option('format', {
        choices: ['table', 'json'] as const,
        default: 'table' as const,
        describe: 'output format (json: mla-diff/compare version 1)',
      })
      .option('out', { type: 'string', describe: 'write the comparison to this file' })
      .option('force', { type: 'boolean', default: false, describe: 'let --out overwrite a file mla-diff did not write' })
      .example(
        '$0 compare golden.json new.json',
        'exit 0 when no record moved beyond its bound, 1 when one did',
      ) as unknown as Argv<CompareArgs>,
  handler: async (args) => {
    process.exitCode = await handleErrors(args.verbose, processIO, () => compareCommand(args));
  },
};
