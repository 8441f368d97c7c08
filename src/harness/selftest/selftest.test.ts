import { CALIBRATED_K } from '../compare/floors';
import { FAULT_NAMES, FAULTS } from '../../core/faults/catalogue';
import { parseScenario } from '../scenario/load';
import type { Runtime } from '../../devices/runtime';
import type { ProgressEvent } from '../../trace';
import { expectNoLeak, testRuntime } from '../../test-utils/runtime';
import { SELFTEST_FULL, SELFTEST_QUICK, selftestCases } from './cases';
import { runSelftest } from './run';

jest.setTimeout(600_000);

describe('the mutation self-test', () => {
  it('plans every fault in every path it can live in, on schedules where it acts, and at least 20 clean runs in full', () => {
    const full = selftestCases(SELFTEST_FULL);
    for (const f of FAULT_NAMES) {
      for (const p of FAULTS[f].paths) expect(full.some((c) => c.fault?.fault === f && c.fault.path === p)).toBe(true);
    }
    expect(full.filter((c) => !c.fault).length).toBeGreaterThanOrEqual(20);
    expect(new Set(full.map((c) => c.name)).size).toBe(full.length);
  });

  it('floor mode: the same plan, each scenario judged by k × its noise floors', () => {
    const plain = selftestCases(SELFTEST_QUICK);
    const floor = selftestCases({ ...SELFTEST_QUICK, floor: 8 });
    expect(floor.map((c) => c.name)).toEqual(plain.map((c) => c.name));
    for (const c of floor) expect(parseScenario(c.yaml).tolerances.default).toEqual({ floor: 8 });
    expect(parseScenario(plain[0]!.yaml).tolerances.default).toBeUndefined();
  });

  it(
    'quick plan on wasm, default and floor-based tolerances: ' + '100 % detection, localization and attribution, no false positive',
    async () => {
      const rt: Runtime = await testRuntime('wasm');
      const events: ProgressEvent[] = [];
      const r = await expectNoLeak(rt, () =>
        runSelftest(
          rt,
          SELFTEST_QUICK,
          () => {},
          CALIBRATED_K,
          (e) => events.push(e),
        ),
      );
      const runs = selftestCases(SELFTEST_QUICK).length * 2; // both blocks
      expect(events.map((e) => `${e.phase} ${e.done}/${e.total}`)).toEqual(
        Array.from({ length: runs + 1 }, (_, i) => `selftest ${i}/${runs}`), // before each planted run, then once scored
      );
      expect(r.floor?.tolerance).toBe(`floor ${CALIBRATED_K}`);
      for (const score of [r, r.floor!]) {
        const misses = score.rows.filter((x) => (x.fault ? !(x.detected && x.localized && x.attributed) : x.detected));
        expect(misses.map((m) => `${score.tolerance}: ${m.name}: ${m.first ? `${m.first.stage}/${m.first.culprit}` : 'agree'}`)).toEqual(
          [],
        );
        expect(score.goalMet).toBe(true);
        expect(score.total.diagnosed).toBe(score.total.runs); // the first likely cause names the planted fault
        // entry stages introduced, the rest inherited
        expect(score.rows.filter((x) => x.fault && !x.origin).map((x) => `${score.tolerance}: ${x.name}`)).toEqual([]);
        expect(score.total.runs).toBeGreaterThan(40);
        expect(score.clean.runs).toBeGreaterThanOrEqual(12);
      }
    },
  );
});
