/** Resolves a scenario file's cases: each a run of heads, given as heads: or as a tensor-parallel rank, checked against the model. */
import type { CaseSpec } from './scenario';
import type { ScenarioFile } from './schema';
import { fail } from './fail';
import type { YamlSource } from './yaml-source';

/** The cases of `f` over a model of N heads; a bad range, a tp split or a duplicate name fails at its line. */
export function resolveCases(f: ScenarioFile, N: number, src: YamlSource): CaseSpec[] {
  const cases: CaseSpec[] = f.cases.map((c, i) => {
    if (c.heads && c.tp) fail(src, 'invalid-value', ['cases', i], 'give either heads: or tp:, not both');
    if (c.tp) {
      const { size, rank } = c.tp;
      if (N % size !== 0) {
        fail(
          src,
          'invalid-value',
          ['cases', i, 'tp', 'size'],
          `tp size ${size} does not divide num_attention_heads ${N}`,
          `divisors of ${N}: ${[...Array(N).keys()]
            .map((k) => k + 1)
            .filter((d) => N % d === 0)
            .join(', ')}`,
        );
      }
      if (rank >= size) fail(src, 'invalid-value', ['cases', i, 'tp', 'rank'], `tp rank ${rank} must be < size ${size}`);
      const count = N / size;
      return {
        name: c.name,
        heads: { start: rank * count, count },
        label: `tp rank ${rank} of ${size}: heads ${rank * count}–${(rank + 1) * count - 1}`,
      };
    }
    const heads = c.heads ?? { start: 0, count: N };
    if (heads.start + heads.count > N) {
      fail(
        src,
        'invalid-value',
        ['cases', i, 'heads'],
        `heads ${heads.start}–${heads.start + heads.count - 1} exceed the model's ${N} heads`,
      );
    }
    return {
      name: c.name,
      heads,
      label: heads.count === N ? `all ${N} heads` : `heads ${heads.start}–${heads.start + heads.count - 1} of ${N}`,
    };
  });
  const seen = new Set<string>();
  cases.forEach((c, i) => {
    if (seen.has(c.name)) fail(src, 'invalid-value', ['cases', i, 'name'], `duplicate case name "${c.name}"`);
    seen.add(c.name);
  });
  return cases;
}
