import type { Argv, CommandModule } from 'yargs';
import { renderFaults } from '../../reports/faults';
import { colorWanted, makeStyle, terminalWidth } from '../../reports/style';
import { EXIT } from '../io/handle-errors';
import { processIO } from '../io/process-io';

export const faultsModule: CommandModule<object, { format: 'table' | 'json'; wide: boolean }> = {
  command: 'faults',
  describe: 'list the plantable faults: where each enters, what it needs, the real bug it models',
  builder: (y: Argv) =>
    y
      .option('format', { choices: ['table', 'json'] as const, default: 'table' as const })
      .example('$0 faults', 'the fault catalogue with bug references')
      .example('$0 faults --format json', 'the same as JSON') as unknown as Argv<{ format: 'table' | 'json'; wide: boolean }>,
  handler: (args) => {
    processIO.out(renderFaults(args.format, makeStyle(colorWanted(), terminalWidth(args.wide))));
    process.exitCode = EXIT.agree;
  },
};
