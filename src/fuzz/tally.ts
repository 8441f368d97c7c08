import type { Outcome, OutcomeClass } from './classify';
import { BAD_CLASSES, OUTCOME_CLASSES } from './classify';
import type { Owner } from './target';

/** One signature of bad outcomes: how many inputs, and the first few (index and what they were) to reproduce. */
export interface SignatureTally {
  class: OutcomeClass;
  count: number;
  examples: { index: number; describe: string }[];
}

export interface TargetTally {
  inputs: number;
  classes: Record<OutcomeClass, number>;
  /** Rejections per error code. */
  rejected: Record<string, number>;
  signatures: Record<string, SignatureTally>;
  seconds: number;
  slowestMs: number;
}

export const emptyTally = (): TargetTally => ({
  inputs: 0,
  classes: Object.fromEntries(OUTCOME_CLASSES.map((c) => [c, 0])) as Record<OutcomeClass, number>,
  rejected: {},
  signatures: {},
  seconds: 0,
  slowestMs: 0,
});

export function record(t: TargetTally, o: Outcome, index: number, describe: string, ms: number): void {
  t.inputs++;
  t.classes[o.class]++;
  t.seconds += ms / 1000;
  t.slowestMs = Math.max(t.slowestMs, ms);
  if (o.class === 'rejected' && o.code) t.rejected[o.code] = (t.rejected[o.code] ?? 0) + 1;
  if (!BAD_CLASSES.includes(o.class)) return;
  const key = `${o.class}: ${o.signature ?? o.code ?? '?'}`;
  const s = (t.signatures[key] ??= { class: o.class, count: 0, examples: [] });
  s.count++;
  if (s.examples.length < 3) s.examples.push({ index, describe });
}

export const badCount = (t: TargetTally): number => BAD_CLASSES.reduce((n, c) => n + t.classes[c], 0);

/** bench/fuzz/summary.json. */
export interface Summary {
  command: string;
  seed: number;
  date: string;
  machine: { cpus: string; cores: number; memGiB: number; node: string; platform: string; tmpfs: boolean };
  seconds: number;
  limits: { hangS: number; cliHangS: number; blowupMiB: number };
  targets: Partial<Record<Owner, TargetTally>>;
  totals: { inputs: number; bad: number };
}
