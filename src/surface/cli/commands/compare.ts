import type { Argv, CommandModule } from 'yargs';
import type { CompareRule, RunsComparison } from '../../../harness/golden/compare-runs';
import { compareRuns, DEFAULT_RULE } from '../../../harness/golden/compare-runs';
import { loadRunReport } from '../../../harness/golden/load-report';
import { renderComparison } from '../../reports/golden';
import { MlaDiffError } from '../../../errors';
import { colorWanted, makeStyle, terminalWidth } from '../../reports/style';
import { EXIT, handleErrors } from '../io/handle-errors';
import type { IO } from '../io/process-io';
import { checkOutput, processIO, writeOutput } from '../io/process-io';

export interface CompareArgs {
  golden: string;
  new: string;
  rel?: number;
  floor?: number;
  format: 'table' | 'json';
  out?: string;
  force: boolean;
  verbose: boolean;
  wide?: boolean;
}

export const ruleOf = (a: { rel?: number; floor?: number }): CompareRule => ({
  ...DEFAULT_RULE,
  ...(a.rel === undefined ? {} : { rel: a.rel }),
  ...(a.floor === undefined ? {} : { k: a.floor }),
});

export const comparisonText = (c: RunsComparison, format: 'table' | 'json', color: boolean, width?: number): string =>
  format === 'json' ? JSON.stringify(c, null, 2) : renderComparison(c, makeStyle(color, width));

/**
 * Two runs with no record in common (other scenarios, cases or schedules) are not a golden and its re-run: a usage error
 * (exit 2), not CHANGED.
 */
export function unrelatedRuns(c: RunsComparison, field: string): void {
  const compared = c.scenarios.reduce((n, s) => n + s.cases.reduce((m, x) => m + x.compared, 0), 0);
  if (compared > 0) return;
  const names = (side: 'only-golden' | 'only-new' | 'same' | 'changed') => c.scenarios.filter((s) => s.status === side).map((s) => s.name);
  const gold = [...names('only-golden'), ...names('same'), ...names('changed')];
  const fresh = [...names('only-new'), ...names('same'), ...names('changed')];
  throw new MlaDiffError(
    'usage',
    `${c.golden.file} and ${c.new.file} have no record in common (scenarios ${gold.join(', ') || 'none'} vs ${fresh.join(', ') || 'none'})`,
    { field },
    'compare two runs of the same scenario (its cases and schedule), e.g. a golden run and its re-run on another device or commit',
  );
}

/** `mla-diff compare GOLDEN NEW`: two saved runs, record by record; exit 0 same, 1 changed, 2 bad input or unrelated runs. */
export async function compareCommand(args: CompareArgs, io: IO = processIO): Promise<number> {
  const write = { force: args.force, inputs: [args.golden, args.new] };
  if (args.out !== undefined) checkOutput(args.out, write); // before reading: a bad --out fails first
  const c = compareRuns(loadRunReport(args.golden), loadRunReport(args.new), ruleOf(args));
  unrelatedRuns(c, '<new>');
  const text = comparisonText(c, args.format, !args.out && colorWanted(), terminalWidth(args.wide ?? false));
  if (args.out !== undefined) writeOutput(args.out, text, write);
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
        'exit 0 when no record moved beyond its bound, 1 when one did, 2 when the runs have no record in common',
      ) as unknown as Argv<CompareArgs>,
  handler: async (args) => {
    process.exitCode = await handleErrors(args.verbose, processIO, () => compareCommand(args));
  },
};
