/** `mla-diff run`: load the scenarios, run them on the chosen device, write the reports, compare with a golden run. */
import type { CommandModule } from 'yargs';
import { MlaDiffError } from '../../../errors';
import { progressBar, progressLog } from '../../reports/progress';
import { colorWanted, terminalWidth } from '../../reports/style';
import { allPass, judgeOf, withOutcome } from '../../../harness/compare/outcome';
import { runScenario } from '../../../harness/run/run-scenario';
import type { RunReport } from '../../../harness/run/trace';
import { selectRuntime } from '../../../devices/select';
import { loadScenario } from '../../../harness/scenario/load';
import { withExternalFlags } from '../../../harness/external/join';
import { withEngineFlag } from '../../../harness/scenario/external';
import type { Scenario } from '../../../harness/scenario/scenario';
import { EXIT, handleErrors } from '../io/handle-errors';
import { finishGolden, prepareGolden } from './run-golden';
import type { IO } from '../io/process-io';
import { toolVersion } from '../../../version';
import { processIO } from '../io/process-io';
import type { RunArgs } from './run-options';
import { runOptions } from './run-options';
import { checkOutputs, writeReports } from './run-output';
import { runInputs } from '../io/run-inputs';

function pickCases(s: Scenario, names: string[] | undefined): Scenario {
  if (!names?.length) return s;
  const unknown = names.filter((n) => !s.cases.some((c) => c.name === n));
  if (unknown.length) {
    throw new MlaDiffError(
      'invalid-value',
      `no case named ${unknown.map((n) => `"${n}"`).join(', ')}`,
      { file: s.file ?? undefined, field: '--case' },
      `cases: ${s.cases.map((c) => c.name).join(', ')}`,
    );
  }
  return { ...s, cases: s.cases.filter((c) => names.includes(c.name)) };
}

/** `mla-diff run`: load every scenario first (bad input fails before any work), run, report. */
export async function runCommand(args: RunArgs, io: IO = processIO): Promise<number> {
  checkOutputs(args);
  const flags = { external: args.external, trace: args.trace };
  const scenarios = args.scenarios.map((f) =>
    withEngineFlag(
      withExternalFlags(pickCases(loadScenario(f, { allowLooser: args.allowLooser ?? false }), args.case), flags),
      args.engine,
    ),
  );
  // every file the run reads, now that the scenarios name them all: no output may be one (checked before any work)
  const inputs = runInputs(scenarios, [args.golden]);
  checkOutputs(args, inputs);
  const golden = prepareGolden(args);
  const log = args.verbose ? (m: string) => io.err(`mla-diff: ${m}`) : () => {};
  const runtime = await selectRuntime(args.device, log);
  log(`device: ${runtime.device.description} (${runtime.device.reason})`);
  const reports: RunReport[] = [];
  const judge = judgeOf(args);
  // A bar on stderr only on a terminal, and not under --quiet or beside --verbose's log lines.
  const bar = !args.quiet && !args.verbose && io.errStream ? progressBar(io.errStream) : null;
  const progress = bar?.progress ?? (args.verbose ? progressLog(log) : null);
  try {
    for (const s of scenarios) {
      const judged = await runScenario(s, {
        runtime,
        reference: args.reference,
        replay: args.replay,
        log,
        toolVersion: toolVersion(),
        keepExternal: args.keepExternal ?? false,
        ...(progress ? { progress } : {}),
      });
      reports.push(judge === 'expect' ? judged : withOutcome(judged, judge));
    }
  } finally {
    bar?.stop();
  }
  await writeReports(args, reports, io, log, inputs);
  const changed = finishGolden(
    { ...args, inputs },
    golden,
    reports,
    args.format === 'json' && !args.out ? { out: io.err, err: io.err } : io,
    !args.out && colorWanted(),
    args.quiet,
    terminalWidth(args.wide ?? false),
  );
  // the one rule (src/harness/compare/outcome.ts): every case passes, under expect: or by agreement (--no-expect)
  return allPass(reports) && !changed ? EXIT.agree : EXIT.diverge;
}

export const runModule: CommandModule<object, RunArgs> = {
  command: 'run <scenarios..>',
  describe: 'run both MLA paths of each scenario, trace every stage, report where they part (exit 0 when every case passes)',
  builder: runOptions,
  handler: async (args) => {
    process.exitCode = await handleErrors(args.verbose, processIO, () => runCommand(args));
  },
};
