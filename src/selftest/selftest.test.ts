import { FAULT_NAMES, FAULTS } from '../faults/catalogue';
import type { Runtime } from '../runtime/device';
import { expectNoLeak, testRuntime } from '../test-utils/runtime';
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

  it('quick plan on wasm: 100 % detection, localization and attribution, no false positive', async () => {
    const rt: Runtime = await testRuntime('wasm');
    const r = await expectNoLeak(rt, () => runSelftest(rt, SELFTEST_QUICK));
    const misses = r.rows.filter((x) => (x.fault ? !(x.detected && x.localized && x.attributed) : x.detected));
    expect(misses.map((m) => `${m.name}: ${m.first ? `${m.first.stage}/${m.first.culprit}` : 'agree'}`)).toEqual([]);
    expect(r.goalMet).toBe(true);
    expect(r.total.diagnosed).toBe(r.total.runs); // the first likely cause names the planted fault
    expect(r.rows.filter((x) => x.fault && !x.origin).map((x) => x.name)).toEqual([]); // entry stages introduced, the rest inherited
    expect(r.total.runs).toBeGreaterThan(40);
    expect(r.clean.runs).toBeGreaterThanOrEqual(12);
  });
});
