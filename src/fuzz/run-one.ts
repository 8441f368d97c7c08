import type { Outcome } from './classify';
import { classifyCall } from './classify';
import { inputSeed, rng } from './rng';
import type { Target } from './target';

export interface InputResult {
  index: number;
  outcome: Outcome;
  describe: string;
  ms: number;
}

/** Input `index` of `t` under campaign `seed`: made (a pure function of the three), run, classified. */
export async function runOne(t: Target, seed: number, index: number): Promise<InputResult> {
  let made: { path: string; describe: string };
  try {
    made = t.make(rng(inputSeed(seed, t.name, index)));
  } catch (e) {
    // the harness's own failure, not the target's: shown as its own signature so that it is fixed, never hidden
    return { index, outcome: { class: 'crash', signature: `harness: ${(e as Error).message}`.slice(0, 160) }, describe: 'make', ms: 0 };
  }
  const { path, describe } = made;
  const t0 = performance.now();
  const outcome = await classifyCall(() => t.run(path), t.naming);
  return { index, outcome, describe, ms: performance.now() - t0 };
}
