/**
 * One input again, in this process, with its full stack: `node dist/fuzz/repro.js TARGET SEED INDEX [DIR]`. The input
 * is written under DIR (default a fresh temp folder) and kept there; `cli` reruns a CLI case and prints its verdict.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classifyThrown } from './classify';
import { makeCliBase } from './cli-base';
import { runCliCase, tmpfsWorks } from './cli-run';
import { inputSeed, rng } from './rng';
import { TARGET_NAMES, type TargetName } from './target';
import { targetSet } from './targets';

async function main(): Promise<void> {
  const [target, seedText, indexText, dirArg] = process.argv.slice(2);
  const seed = Number(seedText);
  const index = Number(indexText);
  if (!target || !Number.isInteger(seed) || !Number.isInteger(index)) throw new Error('usage: repro.js TARGET SEED INDEX [DIR]');
  const dir = dirArg ?? mkdtempSync(join(tmpdir(), 'mla-diff-repro-'));
  if (target === 'cli') {
    const r = await runCliCase(makeCliBase(join(dir, 'base')), join(dir, 'cli'), seed, index, tmpfsWorks(dir));
    console.log(JSON.stringify(r, null, 2));
    return;
  }
  if (!TARGET_NAMES.includes(target as TargetName)) throw new Error(`target: one of ${TARGET_NAMES.join(', ')}, cli`);
  const t = targetSet(dir)(target as TargetName);
  const { path, describe } = t.make(rng(inputSeed(seed, t.name, index)));
  console.log(`input: ${path} (${describe})`);
  const t0 = performance.now();
  try {
    await t.run(path);
    console.log(`ok in ${(performance.now() - t0).toFixed(0)} ms`);
  } catch (e) {
    console.log(`${JSON.stringify(classifyThrown(e, t.naming))} in ${(performance.now() - t0).toFixed(0)} ms`);
    console.log(e instanceof Error ? (e.stack ?? e.message) : String(e));
    if (e && typeof e === 'object' && 'where' in e) console.log('where:', JSON.stringify((e as { where: unknown }).where));
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 2;
});
