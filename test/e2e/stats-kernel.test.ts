import { checkDir, itWebgpu, runCheck, skipReason } from './webgpu-checks';

/**
 * The fused stats kernel (src/devices/kernels/stats-kernel.ts) against hostStats on the same values,
 * through checks/stats-check.mjs on the built package (Dawn cannot load under jest): where
 * an adapter exists (CI: lavapipe, MLA_DIFF_REQUIRE_WEBGPU=1).
 */
jest.setTimeout(600_000);

interface Check {
  name: string;
  via: string;
  bad: string[];
  leakedTensors: number;
  ok: boolean;
  informational?: true;
}
interface StatsJson {
  passed: boolean;
  tolerance: number;
  device: { name: string };
  checks: Check[];
}

const outDir = checkDir('mla-stats-', 'devices/kernels/stats-kernel.js');

itWebgpu(
  'webgpu: the stats kernel equals hostStats on 17 edge cases and in the recorder ' +
    `(also with taps batched per launch), no leak${skipReason}`,
  async () => {
    const j = await runCheck<StatsJson>('stats-check.mjs', outDir(), 'stats-check.json', ['--time', '0']);
    expect(j.tolerance).toBeLessThanOrEqual(1e-6);
    const judged = j.checks.filter((c) => !c.informational);
    expect(judged.filter((c) => c.via === 'kernel').length).toBe(17);
    expect(judged.some((c) => c.via === 'kernel, dispatch y') && judged.some((c) => c.via === 'recorder')).toBe(true);
    expect(judged.filter((c) => c.via === 'recorder, batched').length).toBe(1); // 16 taps, several per launch
    for (const c of judged)
      expect({ name: c.name, via: c.via, ok: c.ok, bad: c.bad, leaked: c.leakedTensors }).toEqual({
        name: c.name,
        via: c.via,
        ok: true,
        bad: [],
        leaked: 0,
      });
    expect(j.passed).toBe(true);
  },
);
