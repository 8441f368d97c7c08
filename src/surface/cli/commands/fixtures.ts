import { mkdirSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { MlaDiffError } from '../../../errors';
import { checkOutputTarget, writeFailed } from '../io/output-path';
import type { Argv, CommandModule } from 'yargs';
import { ensureFixtures, fixtureCacheDir } from '../../../checkpoints/checkpoint/fixture-cache';
import { writeFixtures } from '../../../checkpoints/checkpoint/fixtures';
import { EXIT, handleErrors } from '../io/handle-errors';
import type { IO } from '../io/process-io';
import { processIO } from '../io/process-io';

interface FixturesArgs {
  dir?: string;
  verbose: boolean;
}

/** DIR must be a directory, or a path one can be made at: not empty, not a file or device, not under a file. */
function checkFixturesDir(dir: string): void {
  if (isDirectory(dir)) return;
  // empty, a device, under a file: output-invalid; an unwritable parent: write-failed
  if (checkOutputTarget(dir, 'dir').exists)
    throw new MlaDiffError('output-invalid', `dir ${JSON.stringify(dir)} is a file, not a directory`, { file: dir, field: 'dir' });
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw writeFailed(dir, 'dir', e);
  }
}

const isDirectory = (p: string): boolean => {
  try {
    return p !== '' && statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/**
 * Writes the checkpoint fixtures (GGUF Q8_0 and Q4_K, safetensors BF16 and FP8, each with its
 * tokenizer) from synthetic weights: into DIR, or into the cache the shipped scenarios read.
 */
export function fixturesCommand(args: FixturesArgs, io: IO = processIO, env: NodeJS.ProcessEnv = process.env): number {
  if (args.dir === undefined) {
    const { dir, written } = ensureFixtures(fixtureCacheDir(env));
    io.out(`${written ? 'wrote' : 'already there:'} the checkpoint fixtures in ${dir}`);
    io.out('scenarios that name ../fixtures/checkpoints/… read them from there when that folder is missing');
    return EXIT.agree;
  }
  checkFixturesDir(args.dir);
  const files = writeFixtures(resolve(args.dir));
  for (const f of files) io.out(`${f.path} (${(f.bytes / 1024).toFixed(1)} KiB)`);
  return EXIT.agree;
}

export const fixturesModule: CommandModule<object, FixturesArgs> = {
  command: 'fixtures [dir]',
  describe: 'write the checkpoint fixtures some scenarios read (GGUF, safetensors, tokenizers) from synthetic weights',
  builder: (y: Argv) =>
    y
      .positional('dir', { type: 'string', describe: 'where to write them (default: the cache the shipped scenarios read)' })
      .example('$0 fixtures', 'into the cache ($XDG_CACHE_HOME/mla-diff, else ~/.cache/mla-diff)')
      .example(
        '$0 fixtures fixtures/checkpoints',
        'beside the scenarios (`npm run fixtures` in the repository)',
      ) as unknown as Argv<FixturesArgs>,
  handler: async (args) => {
    process.exitCode = await handleErrors(args.verbose, processIO, async () => fixturesCommand(args));
  },
};
