import type { Argv, CommandModule } from 'yargs';
import { MlaDiffError } from '../../../errors';
import { firstError, inspectCheckpoint } from '../../../checkpoints/inspect';
import { renderInspect } from '../../reports/inspect';
import { colorWanted, makeStyle, terminalWidth } from '../../reports/style';
import { EXIT, handleErrors } from '../io/handle-errors';
import type { IO } from '../io/process-io';
import { processIO } from '../io/process-io';

export interface InspectArgs {
  file: string;
  layer?: number;
  format: 'table' | 'json';
  verbose: boolean;
  /** Tables at full width (else they fit the terminal); absent: as --wide. */
  wide?: boolean;
}

/**
 * `mla-diff inspect`: headers only unless --layer. A model that is not MLA is shown with a warning
 * and exits 0 (the facts are what was asked for); an MLA model whose config or shapes cannot be
 * used is shown, then reported as an error (exit 2).
 */
export async function inspectCommand(args: InspectArgs, io: IO = processIO): Promise<number> {
  const { layer } = args;
  if (layer !== undefined && (!Number.isInteger(layer) || layer < 0)) {
    throw new MlaDiffError('invalid-value', `must be a layer index (an integer ≥ 0), got ${layer}`, { field: '--layer' });
  }
  const report = inspectCheckpoint(args.file, layer === undefined ? {} : { layer });
  const table = args.format === 'table';
  io.out(renderInspect(report, args.format, makeStyle(table && colorWanted(), table ? terminalWidth(args.wide ?? true) : undefined)));
  const e = firstError(report.issues);
  if (e) throw e;
  return EXIT.agree;
}

export const inspectModule: CommandModule<object, InspectArgs> = {
  command: 'inspect <file>',
  describe: 'what a GGUF or safetensors checkpoint holds: MLA dims, kv_b layout, attention tensors per layer (headers only)',
  builder: (y: Argv) =>
    y
      .positional('file', {
        type: 'string',
        demandOption: true,
        describe: '.gguf (any shard of a split), .safetensors, model.safetensors.index.json or a checkpoint directory',
      })
      .option('layer', {
        type: 'number',
        describe: "also read this layer's attention weights: norm, max|x|, non-finite count and checksum of each",
      })
      .option('format', { choices: ['table', 'json'] as const, default: 'table' as const, describe: 'report format' })
      .example('$0 inspect GLM-5-Q4_K_M-00001-of-00010.gguf', 'dims, kv_b layout and per-layer quant types of a split GGUF, in a second')
      .example('$0 inspect ./DeepSeek-V3 --layer 3', 'a safetensors checkpoint directory, with layer 3 read and summarized')
      .example(
        '$0 inspect model.gguf --format json | jq .mla',
        'the versioned JSON object (format mla-diff/inspect)',
      ) as unknown as Argv<InspectArgs>,
  handler: async (args) => {
    process.exitCode = await handleErrors(args.verbose, processIO, () => inspectCommand(args));
  },
};
