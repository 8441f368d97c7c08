import type { Argv, CommandModule } from 'yargs';
import { CALIBRATED_K } from '../../../harness/compare/floors';
import { MlaDiffError } from '../../../errors';
import { progressBar } from '../../reports/progress';
import { renderSelftest } from '../../reports/selftest';
import { colorWanted, makeStyle, terminalWidth } from '../../reports/style';
import type { DeviceRequest } from '../../../devices/runtime';
import { DEVICE_REQUESTS } from '../../../devices/runtime';
import { selectRuntime } from '../../../devices/select';
import { SELFTEST_FULL, SELFTEST_QUICK } from '../../../harness/selftest/cases';
import { runSelftest } from '../../../harness/selftest/run';
import { EXIT, handleErrors } from '../io/handle-errors';
import { processIO } from '../io/process-io';

interface SelftestArgs {
  full: boolean;
  floor: number;
  format: 'table' | 'json';
  device: DeviceRequest;
  verbose: boolean;
  wide?: boolean;
}

export const selftestModule: CommandModule<object, SelftestArgs> = {
  command: 'selftest',
  describe:
    'plant every fault of the catalogue over seeds, shapes and schedules; score detection, localization, attribution and false positives',
  builder: (y: Argv) =>
    y
      .option('full', {
        type: 'boolean',
        default: false,
        describe: '3 seeds × 3 shapes (default: the quick plan CI runs, 1 seed × 2 shapes)',
      })
      .option('floor', {
        type: 'number',
        default: CALIBRATED_K,
        describe: "also run the plan under tolerances {default: {floor: K}} (K × each record's noise floor); 0 skips it",
      })
      .option('format', { choices: ['table', 'json'] as const, default: 'table' as const })
      .option('device', { choices: DEVICE_REQUESTS, default: 'auto' as DeviceRequest })
      .example('$0 selftest', 'the quick plan: exit 0 when every fault is caught where it enters and no clean run diverges')
      .example('$0 selftest --full --format json > selftest.json', 'the full plan, as JSON')
      .example('$0 selftest --floor 4', 'the floor-based block at k = 4') as unknown as Argv<SelftestArgs>,
  handler: async (args) => {
    process.exitCode = await handleErrors(args.verbose, processIO, async () => {
      const log = args.verbose ? (m: string) => processIO.err(`mla-diff: ${m}`) : () => {};
      if (!(args.floor >= 0))
        throw new MlaDiffError('usage', `expected k > 0 (or 0 to skip the floor-based block), got ${args.floor}`, { field: '--floor' });
      const rt = await selectRuntime(args.device, log);
      // one line on stderr while the planted runs go (a terminal only; --verbose prints a line per run instead)
      const bar = !args.verbose && processIO.errStream ? progressBar(processIO.errStream) : null;
      const plan = args.full ? SELFTEST_FULL : SELFTEST_QUICK;
      const r = await runSelftest(rt, plan, log, args.floor > 0 ? args.floor : undefined, bar?.progress).finally(() => bar?.stop());
      processIO.out(
        args.format === 'json'
          ? JSON.stringify(r, null, 2)
          : renderSelftest(r, makeStyle(colorWanted(), terminalWidth(args.wide ?? false))),
      );
      return r.goalMet && (r.floor?.goalMet ?? true) ? EXIT.agree : EXIT.diverge;
    });
  },
};
