import { MlaDiffError } from '../../../errors';
import { compareRuns, DEFAULT_RULE } from '../../../harness/golden/compare-runs';
import { unrelatedRuns } from './compare';
import type { SavedRuns } from '../../../harness/golden/load-report';
import { loadRunReport } from '../../../harness/golden/load-report';
import { ratchetOf, ratchetYaml } from '../../../harness/golden/ratchet';
import { renderComparison } from '../../reports/golden';
import { makeStyle } from '../../reports/style';
import type { RunReport } from '../../../harness/run/trace';
import type { IO } from '../io/process-io';
import { writeOutput } from '../io/process-io';

/** run's golden flags: --golden FILE (compare after the run), --write-tolerances FILE (the ratchet). */
export interface GoldenFlags {
  golden?: string;
  writeTolerances?: string;
  force: boolean;
  scenarios: string[];
  /** Every file the run reads (runInputs): --write-tolerances never names one. */
  inputs?: readonly string[];
}

/** Checks the flags and reads the golden run before any work: bad input fails first. */
export function prepareGolden(args: GoldenFlags): SavedRuns | null {
  if (args.writeTolerances !== undefined && args.scenarios.length !== 1) {
    throw new MlaDiffError('usage', `--write-tolerances writes one scenario's tolerances; ${args.scenarios.length} scenarios given`, {
      field: '--write-tolerances',
    });
  }
  return args.golden ? loadRunReport(args.golden) : null;
}

/** After the run: writes the ratchet, compares with the golden run; returns whether the run changed against it. */
export function finishGolden(
  args: GoldenFlags,
  golden: SavedRuns | null,
  reports: RunReport[],
  io: IO,
  color: boolean,
  quiet: boolean,
  width?: number,
): boolean {
  if (args.writeTolerances !== undefined) {
    writeOutput(args.writeTolerances, ratchetYaml(ratchetOf(reports[0]!), reports[0]!.created), {
      force: args.force,
      inputs: args.inputs ?? args.scenarios,
      field: '--write-tolerances',
    });
    if (!quiet) io.out(`tolerances written: ${args.writeTolerances}`);
  }
  if (!golden) return false;
  const c = compareRuns(golden, { file: '(this run)', runs: reports }, DEFAULT_RULE);
  unrelatedRuns(c, '--golden');
  if (!quiet) io.out(renderComparison(c, makeStyle(color, width)));
  return c.verdict === 'changed';
}
