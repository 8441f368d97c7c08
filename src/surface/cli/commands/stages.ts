import type { Argv, CommandModule } from 'yargs';
import { renderStages } from '../../reports/stages';
import { colorWanted, makeStyle, terminalWidth } from '../../reports/style';
import { EXIT } from '../io/handle-errors';
import { processIO } from '../io/process-io';

export const stagesModule: CommandModule<object, { format: 'table' | 'json'; wide: boolean }> = {
  command: 'stages',
  describe: 'list the probe stages: layout, which paths record them and how they are compared',
  builder: (y: Argv) =>
    y
      .option('format', { choices: ['table', 'json'] as const, default: 'table' as const })
      .example('$0 stages', 'the stage ontology as a table') as unknown as Argv<{ format: 'table' | 'json'; wide: boolean }>,
  handler: (args) => {
    processIO.out(renderStages(args.format, makeStyle(colorWanted(), terminalWidth(args.wide))));
    process.exitCode = EXIT.agree;
  },
};
