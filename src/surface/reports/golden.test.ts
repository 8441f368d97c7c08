import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareRuns } from '../../harness/golden/compare-runs';
import type { RunReport } from '../../harness/run/trace';
import { renderComparison } from './golden';
import { PLAIN } from './style';

const golden = JSON.parse(readFileSync(join(__dirname, '../../../fixtures/tiny-smoke.report.json'), 'utf8')) as RunReport;
const copy = (): RunReport => JSON.parse(JSON.stringify(golden)) as RunReport;

describe('renderComparison', () => {
  it('same: both runs, the rule and SAME; a device difference is a note', () => {
    const fresh = copy();
    fresh.device = { ...fresh.device, name: 'wasm' };
    const text = renderComparison(compareRuns({ file: 'g.json', runs: [golden] }, { file: 'n.json', runs: [fresh] }), PLAIN);
    expect(text).toMatch(/^mla-diff golden comparison\ngolden: g\.json .*\nnew {3}: n\.json /);
    expect(text).toContain('8 × its noise floor');
    expect(text).toContain('note: the devices differ (cpu vs wasm)');
    expect(text.trimEnd().split('\n').pop()).toBe('SAME: no record moved beyond its bound');
  });

  it('changed: the first change, the outcome and one row per changed record', () => {
    const fresh = copy();
    fresh.cases[0]!.trace.paths.mha!.stages.find((r) => r.stage === 'o_proj_out')!.stats.l2 *= 2;
    fresh.cases[0]!.comparison.verdict = 'diverge';
    const text = renderComparison(compareRuns({ file: 'g.json', runs: [golden] }, { file: 'n.json', runs: [fresh] }), PLAIN);
    expect(text).toContain('case all-heads: CHANGED — first at o_proj_out (step 0, prompt, path mha)');
    expect(text).toContain('outcome: golden agree; new diverge');
    expect(text.split('\n').filter((l) => l.includes('o_proj_out') && l.includes('moved ≥5.0e-1'))).toHaveLength(1);
    expect(text.trimEnd().split('\n').pop()).toBe('CHANGED');
  });
});
