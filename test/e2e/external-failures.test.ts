/** External backends that fail through the built CLI: a crash or timeout exits 3, a malformed answer 2, each with its error code. */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeSafetensors } from '../../src/formats/safetensors';
import { external, externalSuite, mla } from './external-helpers';

jest.setTimeout(120_000);

const { tmp, scenario } = externalSuite();

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
    const d = tmp(name);
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
