/** toleranceFor: the relative-L2 bound a stage gets from the default, a per-stage entry, or the exact bound of weights. */
import type { StageName } from '../../trace/stages';
import type { ToleranceSpec } from './tolerance';
import { DEFAULT_REL, toleranceFor, WEIGHT_REL } from './tolerance';

describe('toleranceFor', () => {
  it.each<[StageName, ToleranceSpec, number]>([
    ['logits', {}, DEFAULT_REL.float32],
    ['logits', { default: 1e-3 }, 1e-3],
    ['logits', { default: 1e-3, stages: { logits: 0.5 } }, 0.5],
    ['logits', { stages: { logits: 0 } }, 0],
    ['lse', { stages: { logits: 0.5 } }, DEFAULT_REL.float32],
    ['context_lse', { default: 1e-4 }, 1e-4],
    ['W_UK_T', {}, WEIGHT_REL],
    ['W_UV', { default: 1 }, WEIGHT_REL],
    ['W_UV', { stages: { W_UV: 1e-4 } }, 1e-4],
  ])('%s with %p → %p', (stage, spec, want) => {
    expect(toleranceFor(stage, spec)).toBe(want);
  });
});
