import { externalSuite, external, NODE_MLA, runJson } from './external-helpers';

/**
 * External backends (docs/external-backends.md) through the built CLI: the Node example backend agrees,
 * its planted W_UV bug is localized, stats-only stages compare by norm. Failures of a backend:
 * external-failures.test.ts; engine dumps (docs/engine-trace.md): external-trace.test.ts.
 */
jest.setTimeout(120_000);

const { scenario } = externalSuite();

describe('external backend: examples/backends/node-mla.mjs', () => {
  it('agrees with mha, mqa and the float64 reference at every stage it writes', async () => {
    const { code, run } = await runJson([scenario('node-ok', external(`node ${NODE_MLA}`))]);
    expect(code).toBe(0);
    const ext = run.cases[0]!.trace.diffs.filter((d) => d.a === 'external' && d.b === 'reference');
    expect(ext.map((d) => d.stage)).toEqual([
      'q_nope',
      'kv_c_normed',
      'q_pe',
      'k_pe',
      'k_nope',
      'v',
      'lse',
      'attn_out_heads',
      'attn_out',
      'o_proj_out',
    ]);
    for (const d of ext) expect(d.relErr).toBeLessThan(1e-6); // float64 JS against the float64 reference, float32 inputs
    expect(run.cases[0]!.trace.external?.name).toBe('node-mha');
  });

  it('catches W_UV applied along the wrong axis and localizes it at v, culprit external', async () => {
    const { code, run } = await runJson([scenario('node-broken', external(`node ${NODE_MLA} --fault w-uv-wrong-axis`))]);
    expect(code).toBe(1);
    expect(run.cases[0]!.comparison.firstDivergence).toMatchObject({ stage: 'v', culprit: 'external', step: 0, request: 'prompt' });
    // an external backend is not re-run from substituted inputs: its origins come from its own records (mode records)
    const results = (run.cases[0]!.replay as { results: { path: string; mode: string; stage: string; origin: string }[] }).results;
    expect(results[0]).toMatchObject({ path: 'external', mode: 'records', stage: 'v', origin: 'introduced' });
  });

  it('compares stats-only stages by norm, as a lower bound', async () => {
    const { code, run } = await runJson([scenario('node-stats', external(`node ${NODE_MLA} --stats attn_out,o_proj_out`))]);
    expect(code).toBe(0);
    const norm = run.cases[0]!.trace.diffs.filter((d) => d.a === 'external' && d.normOnly);
    expect(new Set(norm.map((d) => d.stage))).toEqual(new Set(['attn_out', 'o_proj_out']));
    expect(run.cases[0]!.trace.external?.statsOnly).toBe(2);
  });
});
