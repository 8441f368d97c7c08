import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import execa from 'execa';

/** Engine precision through the built CLI: a bf16 run, an fp16 overflow, and a bad precision key. */
const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'dist', 'surface', 'cli', 'main.js');
jest.setTimeout(120_000);

const mla = (args: string[]) => execa('node', [CLI, ...args], { cwd: ROOT, reject: false, env: { NO_COLOR: '1' } });
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mla-precision-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const scenario = (name: string, body: string) => {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `name: ${name}\nmodel:\n  preset: tiny\n${body}`);
  return file;
};

describe('mla-diff run with dtype:', () => {
  it("a bf16 tiny layer with an fp8 cache passes against its floors and shows each stage's dtype", async () => {
    const r = await mla([
      'run',
      scenario('bf16', 'prompt:\n  ids: [1, 2, 3, 4]\ndtype: bfloat16\nkv_cache_dtype: fp8_e4m3\nreference: on\n'),
      '--device',
      'wasm',
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/│ stage\s+│ dtype/);
    expect(r.stdout).toMatch(/│ kv_cache\s+│ fp8 /);
    expect(r.stdout).toMatch(/│ lse\s+│ fp32\/bf16 /);
    expect(r.stdout).toMatch(/PASS .*tolerance 8×floor/);
  });

  it('ql_nope kept in fp16 overflows on large activations: exit 1, the count in the table, the cause named', async () => {
    const r = await mla([
      'run',
      scenario(
        'overflow',
        [
          'weights:\n  synthetic: { seed: 1, gain: { q_a_layernorm: 300000 } }',
          'prompt:\n  ids: [1, 2, 3, 4]',
          'dtype: bfloat16',
          'reference: on',
          'faults:\n  - { path: mqa, fault: absorbed-fp16 }',
          '',
        ].join('\n'),
      ),
      '--device',
      'wasm',
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/past range/);
    expect(r.stdout).toMatch(/│ ql_nope .*mqa \d+ →inf/);
    expect(r.stdout).toMatch(/first divergence at ql_nope.*mqa is the wrong path/);
    expect(r.stdout).toMatch(/likely cause: ql_nope stored in fp16 although the model dtype is bf16/);
  });

  it('a bad precision key is one line naming the field, exit 2', async () => {
    const r = await mla([
      'run',
      scenario('bad', 'prompt:\n  ids: [1]\ndtype: bfloat16\nrounding: { mha: vllm-triton-mla }\n'),
      '--device',
      'wasm',
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/error \[invalid-value\] .*bad\.yaml:\d+:\d+: rounding\.mha: vllm-triton-mla is not a kernel of the mha path/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});
