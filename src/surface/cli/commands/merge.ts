import type { Argv, CommandModule } from 'yargs';
import { readTextFile } from '../../../formats/text-file';
import { mergeReports } from '../../../harness/sweep/merge';
import { handleErrors } from '../io/handle-errors';
import type { IO } from '../io/process-io';
import { toolVersion } from '../../../version';
import { checkOutput, processIO } from '../io/process-io';
import { emitSweep, isDirOut } from './sweep';

export interface MergeArgs {
  reports: string[];
  out?: string;
  format: 'table' | 'json';
  allowMissing: boolean;
  force: boolean;
  verbose: boolean;
}

/** A shard report as JSON (null when it is not JSON: mergeReports names it); a special or huge file is refused first. */
function readJson(file: string): unknown {
  const text = readTextFile(file, 'a sweep report');
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export async function mergeCommand(a: MergeArgs, io: IO = processIO): Promise<number> {
  // before reading: --out a file it may write (a directory gets the merged name, checked when written)
  if (a.out !== undefined && !isDirOut(a.out)) checkOutput(a.out, { force: a.force, inputs: a.reports });
  const r = mergeReports(
    a.reports.map((file) => ({ file, report: readJson(file) })),
    { allowMissing: a.allowMissing, toolVersion: toolVersion() },
  );
  return emitSweep(r, { ...a, inputs: a.reports }, io);
}

export const mergeModule: CommandModule<object, MergeArgs> = {
  command: 'merge <reports..>',
  describe: 'join the shard reports of one sweep into one report (as if run unsharded)',
  builder: (y: Argv) =>
    y
      .positional('reports', {
        type: 'string',
        array: true,
        demandOption: true,
        describe: 'sweep JSON files (mla-diff sweep --shard i/n --out FILE)',
      })
      .option('out', { type: 'string', describe: 'write the merged sweep JSON to this file (or directory)' })
      .option('format', { choices: ['table', 'json'] as const, default: 'table' as const })
      .option('allow-missing', {
        type: 'boolean',
        default: false,
        describe: 'accept shards that leave points out (listed as missing; exit 1)',
      })
      .option('force', { type: 'boolean', default: false, describe: 'let --out overwrite a file mla-diff did not write' })
      .example('$0 merge shard-*.json --out sweep.json', 'every shard of a CI matrix joined') as unknown as Argv<MergeArgs>,
  handler: async (args) => {
    process.exitCode = await handleErrors(args.verbose, processIO, () => mergeCommand(args));
  },
};
