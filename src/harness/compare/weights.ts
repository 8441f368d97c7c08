import type { AcrossDiff, AcrossVerdict, WeightDiff, WeightName, WeightsComparison, WeightVerdictName } from '../../trace';
import { WEIGHT_NAMES } from '../../trace';
import { allowedAcross } from './weight-deps';

/**
 * The weight stage W across two sources of the same layer (scenario `compare_weights:`), and the
 * activations of each engine path run on both. Pure: measures in, verdicts out.
 */
export type { AcrossDiff, AcrossVerdict, WeightDiff, WeightsComparison, WeightVerdict, WeightVerdictName } from '../../trace';

/** Float slack on the bound: the diff itself is summed in float64 over float32 values. */
const SLACK = 1e-6;

export function judgeWeight(d: WeightDiff): WeightVerdictName {
  if (!d.shapeMatch) return 'shape-mismatch';
  if (d.nonFinite[0] || d.nonFinite[1]) return 'non-finite';
  return d.relErr <= d.allowed * (1 + SLACK) + SLACK ? 'agree' : 'diverge';
}

/**
 * kv_nope is [k_nope | v] per head: when it is the first record to move, name the half that
 * moved (k_nope: the W_UK rows of kv_b_proj; v: the W_UV rows), recorded at the same piece.
 */
function refine(a: AcrossVerdict, all: readonly AcrossVerdict[]): AcrossVerdict {
  if (a.stage !== 'kv_nope') return a;
  const half = all.find(
    (x) =>
      x.path === a.path &&
      x.step === a.step &&
      x.request === a.request &&
      (x.stage === 'k_nope' || x.stage === 'v') &&
      x.verdict === 'diverge',
  );
  return half ?? a;
}

export function compareWeights(diffs: readonly WeightDiff[], across: readonly AcrossDiff[]): WeightsComparison {
  const weights = diffs.map((d) => ({ ...d, verdict: judgeWeight(d) }));
  const order = (n: WeightName) => WEIGHT_NAMES.indexOf(n);
  const bad = weights.filter((w) => w.verdict !== 'agree').sort((a, b) => order(a.name) - order(b.name));
  const eps = new Map(diffs.map((d) => [d.name, d.allowed] as const));
  const activations: AcrossVerdict[] = across.map((a) => {
    const allowed = allowedAcross(a.stage, eps);
    const ok = a.relErr !== null && a.relErr <= allowed;
    return { ...a, allowed, verdict: ok ? 'agree' : 'diverge' };
  });
  const firstActivation: WeightsComparison['firstActivation'] = {};
  for (const a of activations) if (a.verdict === 'diverge' && !firstActivation[a.path]) firstActivation[a.path] = refine(a, activations);
  return {
    verdict: bad.length || Object.keys(firstActivation).length ? 'diverge' : 'agree',
    weights,
    firstWeight: bad[0]?.name ?? null,
    activations,
    firstActivation,
  };
}
