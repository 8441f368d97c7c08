import type { Argv, CommandModule } from 'yargs';
import { renderSelftest } from '../../reports/selftest';
import { colorWanted, makeStyle } from '../../reports/style';
import type { DeviceRequest } from '../../runtime/device';
import { DEVICE_REQUESTS } from '../../runtime/device';
import { selectRuntime } from '../../runtime/select';
import { SELFTEST_FULL, SELFTEST_QUICK } from '../../selftest/cases';
import { runSelftest } from '../../selftest/run';
import { EXIT, handleErrors } from '../handle-errors';
import { processIO } from '../io';

interface SelftestArgs { full: boolean; format: 'table' | 'json'; device: DeviceRequest; verbose: boolean }

export const selftestModule: CommandModule<object, SelftestArgs> = {
  command: 'selftest',
  describe: 'plant every fault of the catalogue over seeds, shapes and schedules; score detection, localization, attribution and false positives',
  builder: (y: Argv) =>
    y.option('full', { type: 'boolean', default: false, describe: '3 seeds × 3 shapes (default: the quick plan CI runs, 1 seed × 2 shapes)' })
      .option('format', { choices: ['table', 'json'] as const, default: 'table' as const })
      .option('device', { choices: DEVICE_REQUESTS, default: 'auto' as DeviceRequest })
      .example('$0 selftest', 'the quick plan: exit 0 when every fault is caught where it enters and no clean run diverges')
      .example('$0 selftest --full --format json > selftest.json', 'the full plan, as JSON') as unknown as Argv<SelftestArgs>,
  handler: async (args) => {
    process.exitCode = await handleErrors(args.verbose, processIO, async () => {
      const log = args.verbose ? (m: string) => processIO.err(`mla-diff: ${m}`) : () => {};
      const rt = await selectRuntime(args.device, log);
      const r = await runSelftest(rt, args.full ? SELFTEST_FULL : SELFTEST_QUICK, log);
      processIO.out(args.format === 'json' ? JSON.stringify(r, null, 2) : renderSelftest(r, makeStyle(colorWanted())));
      return r.goalMet ? EXIT.agree : EXIT.diverge;
    });
  },
};
