import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import execa from 'execa';
import { writeSafetensors } from '../../src/formats/safetensors';
import { readNamedTensors } from '../../src/harness/external/tensors-file';

/**
 * External backends (docs/external-backends.md) and engine dumps (docs/engine-trace.md) through the
 * built CLI: the Node example backend agrees, its planted W_UV bug is localized, every failure of a
 * backend or a dump gives its error code; a dump of our own making imports back, tampered it is caught.
 */
const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'dist', 'surface', 'cli', 'main.js');
const NODE_MLA = join(ROOT, 'examples', 'backends', 'node-mla.mjs');

jest.setTimeout(120_000);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mla-diff-external-e2e-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const mla = (args: string[]) => execa('node', [CLI, ...args, '--device', 'wasm'], { cwd: ROOT, reject: false, env: { NO_COLOR: '1' } });

interface Run {
  verdict: string;
  cases: {
    trace: {
      external?: { name: string; statsOnly: number; dir?: string };
      diffs: { a: string; b: string; stage: string; relErr: number | null; normOnly?: boolean }[];
    };
    comparison: { firstDivergence: { stage: string; culprit: string; step: number; request: string } | null };
    replay?: unknown;
  }[];
}

/** One prefill of 5 tokens on the tiny config, reference on, plus `extra` YAML. */
function scenario(name: string, extra: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `name: ${name}\nmodel: {preset: tiny}\nweights: {synthetic: {seed: 3}}\nprompt:\n  ids: [5, 17, 256, 999, 42]\nreference: on\n${extra}`,
  );
  return file;
}
const external = (command: string, more = '') => `external:\n  command: ${JSON.stringify(command)}\n  timeout_s: 30\n${more}`;

async function runJson(args: string[]): Promise<{ code: number | undefined; run: Run; stderr: string }> {
  const r = await mla(['run', ...args, '--format', 'json']);
  return { code: r.exitCode, run: JSON.parse(r.stdout) as Run, stderr: r.stderr };
}

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
    expect(run.cases[0]!.replay).toBeUndefined(); // an external backend cannot be re-run from substituted inputs: no origin marks
  });

  it('compares stats-only stages by norm, as a lower bound', async () => {
    const { code, run } = await runJson([scenario('node-stats', external(`node ${NODE_MLA} --stats attn_out,o_proj_out`))]);
    expect(code).toBe(0);
    const norm = run.cases[0]!.trace.diffs.filter((d) => d.a === 'external' && d.normOnly);
    expect(new Set(norm.map((d) => d.stage))).toEqual(new Set(['attn_out', 'o_proj_out']));
    expect(run.cases[0]!.trace.external?.statsOnly).toBe(2);
  });
});

describe('external backend failures: exit 3 when it crashes or times out, 2 when its answer is malformed', () => {
  const bad = async (name: string, yaml: string, code: string) => {
    const r = await mla(['run', scenario(name, yaml)]);
    expect(r.exitCode).toBe(code === 'external-failed' || code === 'external-timeout' ? 3 : 2);
    expect(r.stderr).toContain(`error [${code}]`);
    return r.stderr;
  };

  it('a crashing command: external-failed, its exit code and stderr tail shown, exchange kept', async () => {
    const err = await bad('crash', external('echo first line >&2; echo the backend fell over >&2; exit 3'), 'external-failed');
    expect(err).toContain('code 3');
    expect(err).toContain('the backend fell over');
    const kept = /exchange directory kept: (\S+)/.exec(err)?.[1];
    expect(kept && existsSync(join(kept, 'request.json'))).toBe(true);
    rmSync(kept!, { recursive: true, force: true });
  });

  it('a command past timeout_s: external-timeout', async () => {
    const t = performance.now();
    await bad('timeout', 'external:\n  command: sleep 30\n  timeout_s: 0.5\n', 'external-timeout');
    expect(performance.now() - t).toBeLessThan(20_000);
  });

  it('no response.json: external-bad-response', () => bad('no-response', external('true'), 'external-bad-response'));
  it('a response of the wrong version: external-bad-response', () =>
    bad(
      'bad-version',
      external('echo \'{"format": "mla-diff/external-response", "version": 9}\' > "$MLA_DIFF_OUT/response.json"'),
      'external-bad-response',
    ));

  /** A backend that hands back prepared files: response.json and a stages.safetensors with these tensors. */
  const canned = (name: string, tensors: { name: string; shape: number[] }[], response: Record<string, unknown> = {}) => {
    const d = join(dir, name);
    mkdirSync(d);
    writeSafetensors(
      join(d, 'stages.safetensors'),
      tensors.map((t) => ({ ...t, dtype: 'F32' as const, data: new Float32Array(t.shape.reduce((a, b) => a * b, 1)).fill(0.5) })),
    );
    writeFileSync(join(d, 'response.json'), JSON.stringify({ format: 'mla-diff/external-response', version: 1, ...response }));
    return external(`cp ${d}/* "$MLA_DIFF_OUT"/`);
  };
  // tiny: N 4, P 16, R 8, V 12, L 32; the piece is 0/prompt with T = 5.
  it('a misshaped tensor: external-bad-output', () =>
    bad('misshaped', canned('misshaped', [{ name: '0/prompt/q_nope', shape: [5, 4, 15] }]), 'external-bad-output'));
  it('an unknown stage name: external-bad-output', () =>
    bad('unknown-stage', canned('unknown-stage', [{ name: '0/prompt/attn_output', shape: [5, 48] }]), 'external-bad-output'));
  it('a step/request not in the schedule: external-bad-output', () =>
    bad('unknown-piece', canned('unknown-piece', [{ name: '1/prompt/q_nope', shape: [5, 4, 16] }]), 'external-bad-output'));
  it('an unknown layout axis: external-bad-output', () =>
    bad('bad-axis', canned('bad-axis', [{ name: '0/prompt/lse', shape: [5, 4] }], { layouts: { lse: 't x' } }), 'external-bad-output'));
  it('names: maps a backend name onto a stage', async () => {
    const yaml = canned('mapped', [{ name: '0/prompt/attn_output', shape: [5, 48] }]) + '  names: {attn_output: attn_out}\n';
    const r = await mla(['run', scenario('mapped', yaml)]);
    expect(r.exitCode).toBe(1); // 0.5 everywhere is not attention output: caught, not refused
    expect(r.stdout).toContain('first divergence at attn_out');
  });
});

describe('engine-trace import: --trace dump.safetensors | dump.jsonl', () => {
  let dump: string;
  let ok: Run;
  beforeAll(async () => {
    // A dump of our own making: the Node backend's stages, kept from a run.
    const { run } = await runJson([scenario('dump-src', external(`node ${NODE_MLA}`)), '--keep-external']);
    ok = run;
    dump = join(dir, 'engine.safetensors');
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
    const tampered = join(dir, 'tampered.safetensors');
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
    const file = join(dir, 'norms.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const { code, run } = await runJson([scenario('dump-norms', ''), '--trace', file]);
    expect(code).toBe(1);
    expect(run.cases[0]!.comparison.firstDivergence).toMatchObject({ stage: 'attn_out', culprit: 'external' });
    const d = run.cases[0]!.trace.diffs.find((x) => x.a === 'external' && x.b === 'reference' && x.stage === 'attn_out')!;
    expect(d.normOnly).toBe(true);
    expect(d.relErr).toBeCloseTo(7 / 8, 6); // |‖a‖/8 − ‖a‖| / ‖a‖
  });

  it.each([
    ['a missing dump', 'file-not-found', () => join(dir, 'nope.safetensors')],
    [
      'a corrupt dump',
      'external-bad-response',
      () => {
        const f = join(dir, 'corrupt.safetensors');
        writeFileSync(f, 'not safetensors at all');
        return f;
      },
    ],
    [
      'a jsonl line that is not JSON',
      'external-bad-response',
      () => {
        const f = join(dir, 'broken.jsonl');
        writeFileSync(f, '{"stage": "lse", "norm": 1}\n{oops\n');
        return f;
      },
    ],
    [
      'an unknown stage name',
      'external-bad-output',
      () => {
        const f = join(dir, 'unknown.jsonl');
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
