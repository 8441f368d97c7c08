import type { Naming } from './classify';
import type { Rng } from './rng';

/** The in-process targets; `cli` is spawned (cli-target.ts). */
export type TargetName = 'loader' | 'gguf' | 'safetensors' | 'tokenizer' | 'trace' | 'reports';
export const TARGET_NAMES: readonly TargetName[] = ['loader', 'gguf', 'safetensors', 'tokenizer', 'trace', 'reports'];

/** Where an input's finding goes (/tmp/h23/findings-<owner>.md in issue 23's split of the work). */
export type Owner = TargetName | 'cli';

export interface Target {
  name: TargetName;
  naming: Naming;
  /**
   * Writes the input a fresh seeded PRNG gives into the target's own folder and returns the path `run` takes;
   * `describe` says in a few words which seed file and which mutation kind it came from.
   */
  make(r: Rng): { path: string; describe: string };
  /** Reads the input as the tool would; returns (ok) or throws (classified). */
  run(path: string): unknown;
}
