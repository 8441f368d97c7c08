import { basename, resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { MlaDiffError } from '../../../errors';
import type { ExtractResult } from '../../../engines/llamacpp/extract';
import { extractLayer } from '../../../engines/llamacpp/extract';
import { formatBytes } from '../../reports/inspect';
import { EXIT, handleErrors } from '../io/handle-errors';
import type { IO } from '../io/process-io';
import { processIO } from '../io/process-io';
import { checkOutputTarget, refuseInput } from '../io/output-path';
import { expandInputs } from '../io/run-inputs';
import { checkpointInputs } from '../../../harness/scenario/inputs';

export interface ExtractArgs {
  file: string;
  layer: number;
  output: string;
  force: boolean;
  format: 'table' | 'json';
  verbose: boolean;
}

/** The terminal account of an extraction: what was kept (the source's bytes), what was filled in, what was left out. */
export function renderExtract(r: ExtractResult): string {
  const src = `${basename(r.input[0]!)}${r.input.length > 1 ? ` (${r.input.length} shards)` : ''}`;
  const width = Math.max(...r.kept.map((k) => k.name.length));
  const lines = [
    `layer ${r.layer} of ${src}, ${r.arch} → ${r.output} (${formatBytes(r.bytesWritten)}) in ${r.seconds.toFixed(2)} s`,
    `read ${formatBytes(r.bytesRead.tensors)} of tensor data and ${formatBytes(r.bytesRead.headers)} of headers`,
    `kept, the source's bytes in the source's types (blk.${r.layer} → blk.0):`,
    ...r.kept.map((k) => `  ${k.name.padEnd(width)}  ${k.type.padEnd(6)} ${formatBytes(k.bytes).padStart(10)}`),
    'filled in (llama.cpp needs them; mla-diff feeds it embeddings and compares the attention only):',
    ...r.filled.map((f) => `  ${f}`),
  ];
  if (r.notCopied.length > 0) lines.push(`not copied (a dense FFN stands in): ${r.notCopied.join(', ')}`);
  const meta = [`block_count 1`];
  if (r.metadata.cut.length > 0) meta.push(`per-layer arrays cut to layer ${r.layer}: ${r.metadata.cut.join(', ')}`);
  const dropped = (p: string) => r.metadata.dropped.filter((k) => k.startsWith(p)).length;
  if (dropped('tokenizer.') > 0) meta.push(`${dropped('tokenizer.')} tokenizer.* keys left out (tokenizer.ggml.model = none)`);
  if (dropped('split.') > 0) meta.push(`${dropped('split.')} split.* keys left out (one file)`);
  lines.push(`metadata: the source's, with ${meta.join('; ')}`);
  return lines.join('\n');
}

/**
 * Before reading the checkpoint: --output a file it may write, and none of the input's shards (by
 * real path or inode: a link to the input is the input). /dev/null is refused: the model is written
 * to a temp file and renamed, which cannot go to a device.
 */
function checkExtractOutput(file: string, output: string): void {
  const t = checkOutputTarget(output, '--output');
  if (t.discard)
    throw new MlaDiffError('output-invalid', `--output ${output} is a device; extract writes a .gguf file`, {
      file: output,
      field: '--output',
    });
  refuseInput(t, expandInputs(checkpointInputs('gguf', resolve(file))));
}

/** `mla-diff extract`: one layer of a GGUF checkpoint as a runnable one-layer model (engines/llamacpp/extract.ts). */
export async function extractCommand(args: ExtractArgs, io: IO = processIO): Promise<number> {
  if (!Number.isInteger(args.layer) || args.layer < 0) {
    throw new MlaDiffError('invalid-value', `must be a layer index (an integer ≥ 0), got ${args.layer}`, { field: '--layer' });
  }
  checkExtractOutput(args.file, args.output);
  const r = extractLayer(args.file, { layer: args.layer, output: args.output, force: args.force });
  io.out(args.format === 'json' ? JSON.stringify(r, null, 2) : renderExtract(r));
  return EXIT.agree;
}

export const extractModule: CommandModule<object, ExtractArgs> = {
  command: 'extract <file>',
  describe: "one layer of a GGUF checkpoint as a runnable one-layer model: the attention's own bytes and quant types, for llama.cpp",
  builder: (y: Argv) =>
    y
      .positional('file', { type: 'string', demandOption: true, describe: '.gguf (any shard of a split)' })
      .option('layer', { type: 'number', demandOption: true, describe: 'the layer to extract (blk.N)' })
      .option('output', { alias: 'o', type: 'string', demandOption: true, describe: 'the one-layer .gguf to write' })
      .option('force', { type: 'boolean', default: false, describe: 'replace an existing output file (never the input)' })
      .option('format', { choices: ['table', 'json'] as const, default: 'table' as const, describe: 'report format' })
      .example('$0 extract GLM-5-Q4_K_M-00001-of-00010.gguf --layer 3 -o layer3.gguf', "layer 3's attention, reading only its bytes")
      .example(
        '$0 extract model.gguf --layer 0 -o l0.gguf --format json',
        'the versioned JSON account (format mla-diff/extract)',
      ) as unknown as Argv<ExtractArgs>,
  handler: async (args) => {
    process.exitCode = await handleErrors(args.verbose, processIO, () => extractCommand(args));
  },
};
