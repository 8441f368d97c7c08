/** Engine dumps (docs/engine-trace.md) via the CLI: our own dump imports back, tampered it is caught, bad dumps give their code. */
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeSafetensors } from '../../src/formats/safetensors';
import { readNamedTensors } from '../../src/harness/external/tensors-file';
import type { Run } from './external-helpers';
import { external, externalSuite, mla, NODE_MLA, runJson } from './external-helpers';

jest.setTimeout(120_000);

const { tmp, scenario } = externalSuite();

describe('engine-trace import: --trace dump.safetensors | dump.jsonl', () => {
  let dump: string;
  let ok: Run;
  beforeAll(async () => {
    // A dump of our own making: the Node backend's stages, kept from a run.
    const { run } = await runJson([scenario('dump-src', external(`node ${NODE_MLA}`)), '--keep-external']);
    ok = run;
    dump = tmp('engine.safetensors');
    copyFileSync(join(run.cases[0]!.trace.external!.dir!, 'out', 'stages.safetensors'), dump);
    rmSync(run.cases[0]!.trace.external!.dir!, { recursive: true, force: true });
  });
  const layouts = 'trace:\n  layouts: {lse: "t h", attn_out_heads: "t (h v)"}\n';

  it('imported back, it agrees (named after the file)', async () => {
    const { code, run } = await runJson([scenario('dump-ok', layouts), '--trace', dump]);
    expect(code).toBe(0);
    expect(run.cases[0]!.trace.external?.name).toBe('engine.safetensors');
    expect(run.cases[0]!.trace.diffs.some((d) => d.a === 'external' && d.stage === 'o_proj_out')).toBe(true);
  });

  it('one stage scaled: localized at that stage, culprit external', async () => {
    const tampered = tmp('tampered.safetensors');
    writeSafetensors(
      tampered,
      readNamedTensors(dump, 'external-bad-response').map((t) => ({
        name: t.name,
        dtype: 'F32' as const,
        shape: t.shape,
        data: Float32Array.from(t.data, (x) => (t.name.endsWith('/k_pe') ? x * 1.01 : x)),
      })),
    );
    const { code, run } = await runJson([scenario('dump-tampered', layouts), '--trace', tampered]);
    expect(code).toBe(1);
    expect(run.cases[0]!.comparison.firstDivergence).toMatchObject({ stage: 'k_pe', culprit: 'external' });
  });

  it('a jsonl norms dump with the attention output far below expected: a norm divergence', async () => {
    const ref = ok.cases[0]! as unknown as { trace: { paths: { reference: { stages: { stage: string; stats: { l2: number } }[] } } } };
    const norm = (s: string) => ref.trace.paths.reference.stages.find((r) => r.stage === s)!.stats.l2;
    const lines = ['q_nope', 'kv_c_normed', 'lse', 'attn_out', 'o_proj_out'].map((s) =>
      JSON.stringify({ step: 0, request: 'prompt', stage: s, norm: s === 'attn_out' || s === 'o_proj_out' ? norm(s) / 8 : norm(s) }),
    );
    const file = tmp('norms.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const { code, run } = await runJson([scenario('dump-norms', ''), '--trace', file]);
    expect(code).toBe(1);
    expect(run.cases[0]!.comparison.firstDivergence).toMatchObject({ stage: 'attn_out', culprit: 'external' });
    const d = run.cases[0]!.trace.diffs.find((x) => x.a === 'external' && x.b === 'reference' && x.stage === 'attn_out')!;
    expect(d.normOnly).toBe(true);
    expect(d.relErr).toBeCloseTo(7 / 8, 6); // |‖a‖/8 − ‖a‖| / ‖a‖
  });

  it.each([
    ['a missing dump', 'file-not-found', () => tmp('nope.safetensors')],
    [
      'a corrupt dump',
      'external-bad-response',
      () => {
        const f = tmp('corrupt.safetensors');
        writeFileSync(f, 'not safetensors at all');
        return f;
      },
    ],
    [
      'a jsonl line that is not JSON',
      'external-bad-response',
      () => {
        const f = tmp('broken.jsonl');
        writeFileSync(f, '{"stage": "lse", "norm": 1}\n{oops\n');
        return f;
      },
    ],
    [
      'an unknown stage name',
      'external-bad-output',
      () => {
        const f = tmp('unknown.jsonl');
        writeFileSync(f, '{"stage": "attn_output", "norm": 1}\n');
        return f;
      },
    ],
  ])('%s → error [%s]', async (_what, code, file) => {
    const r = await mla(['run', scenario(`dump-bad-${code}`, ''), '--trace', file()]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`error [${code}]`);
  });

  it('external: without a command and no --external: invalid-value', async () => {
    const r = await mla(['run', scenario('no-command', 'external:\n  name: x\n')]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('error [invalid-value]');
  });

  it('--external gives the command', async () => {
    const r = await mla(['run', scenario('flag', 'external:\n  name: flagged\n'), '--external', `node ${NODE_MLA}`]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('external (flagged)');
  });

  it('--external and --trace together: usage', async () => {
    const r = await mla(['run', scenario('both', ''), '--trace', dump, '--external', 'true']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('error [usage]');
  });
});
