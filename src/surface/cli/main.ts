#!/usr/bin/env node
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { compareModule } from './commands/compare';
import { extractModule } from './commands/extract';
import { faultsModule } from './commands/faults';
import { fixturesModule } from './commands/fixtures';
import { inspectModule } from './commands/inspect';
import { mergeModule } from './commands/merge';
import { reportModule } from './commands/report';
import { runModule } from './commands/run';
import { rejudgeModule } from './commands/rejudge';
import { selftestModule } from './commands/selftest';
import { stagesModule } from './commands/stages';
import { sweepModule } from './commands/sweep';
import { EXIT } from './io/handle-errors';
import { guardProcess, internalErrorText } from './io/process-guard';
import { toolVersion } from '../../version';

/** Entry point: yargs parses, command modules do the work, exit codes say the outcome. */
export async function main(argv: string[]): Promise<void> {
  await yargs(argv)
    .scriptName('mla-diff')
    .usage(
      '$0 <command> [options]\n\nDifferential debugging of Multi-head Latent Attention (GLM-5, DeepSeek-V3):\n' +
        'the reconstructed-head MHA path and the latent-absorbed MQA path side by side.',
    )
    .command(runModule)
    .command(reportModule)
    .command(stagesModule)
    .command(inspectModule)
    .command(extractModule)
    .command(faultsModule)
    .command(selftestModule)
    .command(sweepModule)
    .command(mergeModule)
    .command(compareModule)
    .command(rejudgeModule)
    .command(fixturesModule)
    .option('verbose', { type: 'boolean', default: false, describe: 'progress on stderr; stack traces on errors' })
    .option('wide', { type: 'boolean', default: false, describe: 'tables at full width (default: fit the terminal)' })
    .example('$0 run scenarios/tiny-smoke.yaml --device wasm', 'a tiny MLA layer on the CPU: both paths agree (exit 0)')
    .example('$0 run scenarios/fault-mqa-scale-576.yaml --format json', 'a planted fault: exit 1, first divergence logits, culprit mqa')
    .example('$0 stages', 'every probe stage and plantable fault')
    .example('$0 faults', 'the fault catalogue: where each fault enters and the real bug it models')
    .example('$0 selftest', 'plant every fault; score detection, localization and attribution')
    .demandCommand(1, 'name a command: run, report, compare, rejudge, inspect, extract, stages, faults, selftest, sweep, merge or fixtures')
    .strict()
    .version(toolVersion())
    .help()
    .alias('h', 'help')
    .epilogue(
      'exit codes: 0 every case passes (its expect: met, else its paths agree; --no-expect: agreement), 1 a case fails, ' +
        '2 bad input or usage (incl. no GPU for --device webgpu), 3 runtime or device failure (device-limit, external-failed, ' +
        'external-timeout, write-failed) or internal error, 130 / 143 interrupted (SIGINT / SIGTERM: what it started killed)',
    )
    .fail((msg, err, y) => {
      if (err) throw err;
      process.stderr.write(`mla-diff: error [usage] ${msg}\n  hint: mla-diff --help\n`);
      if (!msg) process.stderr.write(`${y.help()}\n`);
      process.exit(EXIT.badInput);
    })
    .parseAsync();
}

if (require.main === module) {
  const argv = hideBin(process.argv);
  const verbose = argv.includes('--verbose'); // before yargs parses: a crash while parsing also honours it
  guardProcess(process, verbose); // exit codes 0-3 only, one line each: EPIPE → 0, crashes → 3; a signal → 128 + its number
  main(argv).catch((e: unknown) => {
    process.stderr.write(internalErrorText(e, verbose));
    process.exit(EXIT.internal);
  });
}
