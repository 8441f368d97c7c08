import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunReport } from '../run/trace';
import { RUN_FORMAT, RUN_VERSION } from '../run/trace';
import { compareCase } from './compare';
import { checkExpectation } from './expect';

/**
 * Saved reports (fixtures/, written by `mla-diff run --format json --out`) carry everything compare
 * needs: judging a saved trace again gives the comparison stored beside it, without re-running.
 * Regenerate with:
 *   node dist/surface/cli/main.js run scenarios/tiny-smoke.yaml --device cpu --format json --out fixtures/tiny-smoke.report.json
 *   node dist/surface/cli/main.js run scenarios/fault-mqa-scale-576.yaml --case tp0-of-8 --device wasm --format json --out
 *   fixtures/fault-mqa-scale-576.tp0.report.json
 *   node dist/surface/cli/main.js run fixtures/tiny-schedule-lse-layout.yaml --device wasm --format json --out
 *   fixtures/tiny-schedule-lse-layout.report.json
 */
const load = (name: string) => JSON.parse(readFileSync(join(__dirname, '../../../fixtures', name), 'utf8')) as RunReport;

describe.each(['tiny-smoke.report.json', 'fault-mqa-scale-576.tp0.report.json', 'tiny-schedule-lse-layout.report.json'])(
  'saved report %s',
  (name) => {
    const report = load(name);

    it('is an mla-diff run report of the current version', () => {
      expect(report.format).toBe(RUN_FORMAT);
      expect(report.version).toBe(RUN_VERSION);
      expect(report.device.name).toMatch(/^(cpu|wasm|webgpu|tensorflow)$/);
    });

    it('re-judged from its trace alone, gives the stored comparison and expectation', () => {
      for (const c of report.cases) {
        const again = compareCase(c.trace, { default: report.scenario.tolerances.default, stages: report.scenario.tolerances.stages });
        expect(again).toEqual(c.comparison);
        if (report.scenario.expect) expect(checkExpectation(report.scenario.expect, again)).toEqual(c.expectation);
      }
    });

    it('a looser tolerance on the first divergent stage moves the first divergence later or clears it', () => {
      for (const c of report.cases) {
        const first = c.comparison.firstDivergence;
        if (!first) continue;
        const again = compareCase(c.trace, { stages: { [first.stage]: 10 } });
        expect(again.firstDivergence?.stage).not.toBe(first.stage);
      }
    });
  },
);
