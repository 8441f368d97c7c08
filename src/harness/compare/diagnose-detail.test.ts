import type { FaultName, FaultPath } from '../../core/faults/catalogue';
import type { PathName, StageName } from '../../trace/stages';
import { runScenario } from '../run/run-scenario';
import type { CaseResult } from '../run/trace';
import type { Runtime } from '../../devices/runtime';
import { parseScenario } from '../scenario/load';
import type { Scenario } from '../scenario/scenario';
import { selftestCases } from '../selftest/cases';
import { expectNoLeak, testRuntime } from '../../test-utils/runtime';
import { diagnose } from './diagnose';

/**
 * The signatures that read inside the first divergent record (CaseResult.detail) or its norm ratio,
 * each on a real run of a planted fault, then on the same result with that evidence taken away.
 */
let rt: Runtime;
beforeAll(async () => {
  rt = await testRuntime('wasm');
});

async function run(fault: FaultName, path: FaultPath, schedule = 'prefill'): Promise<{ s: Scenario; c: CaseResult }> {
  const k = selftestCases({ seeds: [4], shapes: ['tiny'] }).find(
    (x) => x.fault?.fault === fault && x.fault.path === path && x.name.endsWith(schedule),
  )!;
  const s = parseScenario(k.yaml);
  const r = await expectNoLeak(rt, () => runScenario(s, { runtime: rt, toolVersion: 'test', worker: false }));
  return { s, c: r.cases[0]! };
}
const again = (c: CaseResult, s: Scenario, config = s.config) => diagnose(c.trace, c.comparison, config, c.detail);
const edit = (c: CaseResult, fn: (c: CaseResult) => void): CaseResult => {
  const x = structuredClone(c);
  fn(x);
  return x;
};
const setScalar = (path: PathName, name: 'softmax_scale' | 'rope_style', value: number | string) => (c: CaseResult) => {
  for (const p of c.trace.paths[path]!.pieces) p.scalars[name] = value;
};
const scaleL2 = (path: PathName, stage: StageName, k: number, chunk?: number) => (c: CaseResult) => {
  for (const r of c.trace.paths[path]!.stages) if (r.stage === stage && r.chunk === chunk) r.stats.l2 *= k;
};

describe('signatures on the detail of the first divergence', () => {
  it('agreement only at RoPE position 0 says RoPE convention without the rope_style scalar; not when position 0 differs too', async () => {
    const { s, c } = await run('rope-neox', 'mha', 'schedule');
    const blind = edit(c, setScalar('mha', 'rope_style', 'gptj'));
    const d = again(blind, s);
    expect(d[0]).toMatchObject({ cause: 'rope-convention', evidence: expect.stringContaining('position 0') });
    const moved = edit(blind, (x) => {
      x.detail!.records[0]!.perToken![0] = 0.5;
    });
    expect(again(moved, s).some((x) => x.cause === 'rope-convention')).toBe(false);
  });

  it('a subset of heads: k-pe-per-head (head 0 alone agrees at k, k_pe agrees); with every head off, no head-subset claim', async () => {
    const { s, c } = await run('k-pe-per-head', 'mha');
    expect(c.detail!.records[0]!.perHead![0]).toBeLessThan(1e-5);
    expect(c.diagnosis[0]).toMatchObject({ cause: 'head-subset', matches: 'k-pe-per-head' });
    const all = edit(c, (x) => {
      x.detail!.records[0]!.perHead![0] = 0.3;
    });
    expect(again(all, s).some((x) => x.cause === 'head-subset')).toBe(false);
    const other = edit(c, (x) => {
      x.detail!.records[0]!.perHead![0] = 0.3;
      x.detail!.records[0]!.perHead![2] = 0;
    });
    expect(again(other, s).find((x) => x.cause === 'head-subset')).toEqual(expect.not.objectContaining({ matches: expect.anything() }));
  });

  it("flat softmax: the k_scale run's attention entropy ≈ ln n; with the witness's entropy, no flat-softmax", async () => {
    const { s, c } = await run('k-scale-bf16-cache', 'mha');
    const flat = again(c, s).find((x) => x.cause === 'flat-softmax');
    expect(flat?.evidence).toMatch(/entropy/);
    expect(c.detail!.entropy[0]!.paths.mha!).toBeGreaterThan(0.97);
    const normal = edit(c, (x) => {
      const e = x.detail!.entropy[0]!.paths;
      e.mha = e.reference!;
    });
    expect(again(normal, s).some((x) => x.cause === 'flat-softmax')).toBe(false);
  });

  it('norm ratio at logits names √(D/(L+R)) and 1/mscale² without the softmax_scale scalar; 1 % off, nothing', async () => {
    for (const [f, path] of [
      ['softmax-scale-latent', 'mqa'],
      ['yarn-mscale-missing', 'mha'],
    ] as const) {
      const { s, c } = await run(f, path);
      const blind = edit(c, setScalar(path, 'softmax_scale', c.trace.expectedSoftmaxScale));
      expect(again(blind, s)[0]).toMatchObject({ cause: 'norm-ratio', matches: f });
      expect(again(edit(blind, scaleL2(path, 'logits', 1.01)), s).some((x) => x.cause === 'norm-ratio')).toBe(false);
    }
  });

  it("norm ratio 1/kv_lora_rank at an output stage (the bug hunt's 0.0586 vs ~30), read from the recorded norms", async () => {
    const { s, c } = await run('v-unpadded-before-merge', 'mha', 'schedule');
    const first = c.comparison.firstDivergence!;
    expect(again(c, s).some((x) => x.cause === 'norm-ratio')).toBe(false);
    const ref = c.trace.paths.reference!.stages.find(
      (r) => r.step === first.step && r.request === first.request && r.stage === first.stage && r.chunk === first.chunk,
    )!.stats.l2;
    const mha = c.trace.paths.mha!.stages.find(
      (r) => r.step === first.step && r.request === first.request && r.stage === first.stage && r.chunk === first.chunk,
    )!.stats.l2;
    const shrunk = edit(c, scaleL2('mha', first.stage, ref / mha / s.config.kv_lora_rank, first.chunk));
    expect(again(shrunk, s).find((x) => x.cause === 'norm-ratio')?.summary).toMatch(/kv_lora_rank/);
  });

  it('W_UK/W_UV swapped: each absorbed weight has the norm of the other; a witness with other norms, no swap', async () => {
    const { s, c } = await run('w-uk-uv-swapped', 'mqa');
    expect(c.diagnosis[0]).toMatchObject({ cause: 'absorbed-weights', matches: 'w-uk-uv-swapped' });
    expect(again(edit(c, scaleL2('reference', 'W_UV', 1.1)), s).some((x) => x.matches === 'w-uk-uv-swapped')).toBe(false);
  });

  it(
    'V unpadded before the merge: inputs and LSE agree, values do not, V < D; ' + 'with V = D only the generic merge-inputs remains',
    async () => {
      const { s, c } = await run('v-unpadded-before-merge', 'mha', 'schedule');
      expect(c.diagnosis[0]).toMatchObject({ cause: 'merge-inputs', matches: 'v-unpadded-before-merge' });
      const d = again(c, s, { ...s.config, v_head_dim: s.config.qk_nope_head_dim + s.config.qk_rope_head_dim });
      expect(d.some((x) => x.matches === 'v-unpadded-before-merge' || x.matches === 'lse-layout-transposed')).toBe(false);
      expect(d.map((x) => x.cause)).toContain('merge-inputs');
    },
  );
});
