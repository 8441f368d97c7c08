import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './corpus';

export const CLI = join(ROOT, 'dist', 'surface', 'cli', 'main.js');
export const NODE_MLA = join(ROOT, 'examples', 'backends', 'node-mla.mjs');

const TINY =
  'version: 1\nname: fz\nmodel: {preset: tiny}\nweights:\n  synthetic: {seed: 3}\n  tokenizer: tok/tokenizer.json\n' +
  'prompt:\n  text: seven tokens\n';

/**
 * The inputs every CLI case starts from, made once by running the CLI itself: a scenario that reads a tolerances file
 * and a tokenizer, its saved report (a --golden), a GGUF-checkpoint scenario, and an external-backend scenario whose
 * command sleeps first (a window for signals), all in one folder that each case copies.
 */
export function makeCliBase(dir: string): string {
  mkdirSync(join(dir, 'tok'), { recursive: true });
  for (const f of ['tokenizer.json', 'tokenizer_config.json'])
    copyFileSync(join(ROOT, 'scenarios', 'tokenizers', 'tiny-bpe', f), join(dir, 'tok', f));
  copyFileSync(join(ROOT, 'fixtures', 'checkpoints', 'tiny-q8_0.gguf'), join(dir, 'ckpt.gguf'));
  writeFileSync(join(dir, 's0.yaml'), TINY);
  const cli = (...args: string[]) => execFileSync(process.execPath, [CLI, ...args], { cwd: dir, stdio: 'pipe' });
  cli('run', 's0.yaml', '--write-tolerances', 'tol.yaml');
  writeFileSync(join(dir, 's.yaml'), `${TINY}tolerances: {file: tol.yaml}\n`);
  cli('run', 's.yaml', '--format', 'json', '--out', 'golden.json');
  writeFileSync(
    join(dir, 'g.yaml'),
    'version: 1\nname: fzg\nmodel: {}\nweights:\n  gguf: ckpt.gguf\n  layer: 0\nprompt:\n  ids: [1, 2, 3]\n',
  );
  const slow = `sleep 2; node ${NODE_MLA}`;
  writeFileSync(
    join(dir, 'x.yaml'),
    `version: 1\nname: fzx\nmodel: {preset: tiny}\nweights: {synthetic: {seed: 3}}\nprompt:\n  ids: [5, 17, 256]\n` +
      `external:\n  command: ${JSON.stringify(slow)}\n  timeout_s: 60\n`,
  );
  return dir;
}

/** A case's own copy of the base (hard links would share inodes with other cases: a real copy). */
export function copyBase(base: string, to: string): void {
  cpSync(base, to, { recursive: true });
}
