import { MIN_FLOOR } from '../compare/floors';
import { MlaDiffError } from '../../errors';
import type { StageName } from '../../trace/stages';
import { STAGE_NAMES, STAGES } from '../../trace/stages';
import type { RunReport } from '../../trace';

/**
 * The tolerance ratchet: per stage the smallest relative-L2 tolerance that passes every record of
 * that stage in a run, times a margin, rounded up to 2 significant digits. Scenarios reference the
 * file (`tolerances: {file: …}`); CI tightens it by writing it again (docs/golden.md).
 */
export const TOLERANCES_FORMAT = 'mla-diff/tolerances';
export const TOLERANCES_VERSION = 1;
/** A run's worst error × 2: room for another seed of rounding, not for a bug (faults sit ≥ 5.9e5 floors out). */
export const RATCHET_MARGIN = 2;
/** First line of every tolerances file mla-diff writes (io.ts lets it overwrite such a file). */
export const TOLERANCES_MARKER = '# mla-diff tolerances';

export interface Ratchet {
  format: typeof TOLERANCES_FORMAT;
  version: typeof TOLERANCES_VERSION;
  scenario: string;
  device: string;
  margin: number;
  stages: Partial<Record<StageName, { rel: number }>>;
}

/** x rounded up to 2 significant digits (never below x). */
export function roundUp2(x: number): number {
  if (x <= 0 || !Number.isFinite(x)) return x;
  const near = Number(x.toPrecision(2));
  if (near >= x) return near;
  const unit = 10 ** (Math.floor(Math.log10(near)) - 1);
  return Number((near + unit).toPrecision(2));
}

/** The ratchet of one run that agrees under its own tolerances; a divergent run is refused (it would bake the bug in). */
export function ratchetOf(r: RunReport, margin = RATCHET_MARGIN): Ratchet {
  const worst = new Map<StageName, number>();
  for (const c of r.cases) {
    for (const v of c.comparison.stages) {
      if (v.verdict !== 'ok') {
        throw new MlaDiffError(
          'ratchet-impossible',
          `${c.trace.name} diverges at ${v.stage} (step ${v.step}, ${v.request}): ${v.verdict}`,
          { field: '--write-tolerances' },
          'a ratchet bounds rounding, not a bug: write it from a run that agrees',
        );
      }
      const e = Math.max(0, ...v.pairs.map((p) => p.relErr ?? 0));
      worst.set(v.stage, Math.max(worst.get(v.stage) ?? 0, e));
    }
  }
  const stages: Ratchet['stages'] = {};
  for (const name of STAGE_NAMES.filter((n) => worst.has(n))) {
    const e = worst.get(name)!;
    // Weight stages are exact rearrangements: 0 stays 0. Elsewhere no bound below fp32 roundoff.
    stages[name] = { rel: STAGES[name].kind === 'weight' && e === 0 ? 0 : roundUp2(Math.max(e, MIN_FLOOR) * margin) };
  }
  return { format: TOLERANCES_FORMAT, version: TOLERANCES_VERSION, scenario: r.scenario.name, device: r.device.name, margin, stages };
}

/** The ratchet as YAML (a header comment, then one flow mapping per stage). */
export function ratchetYaml(t: Ratchet, created: string): string {
  return [
    `${TOLERANCES_MARKER} (ratchet): per stage the smallest tolerance passing every record × ${t.margin}, rounded up to 2 digits.`,
    `# Written ${created}. Tighten by writing it again (mla-diff run … --write-tolerances); loosen only with --allow-looser.`,
    `format: ${t.format}`,
    `version: ${t.version}`,
    `scenario: ${JSON.stringify(t.scenario)}`,
    `device: ${t.device}`,
    `margin: ${t.margin}`,
    'stages:',
    ...Object.entries(t.stages).map(([k, v]) => `  ${k}: { rel: ${v!.rel === 0 ? 0 : v!.rel.toExponential()} }`),
    '',
  ].join('\n');
}
