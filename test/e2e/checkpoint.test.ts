import {
  closeSync,
  copyFileSync,
  cpSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import execa from 'execa';
import { RUN_VERSION } from './cli-helpers';

/**
 * End to end with checkpoints: the built CLI on GGUF and safetensors fixtures written by our own
 * writers, and on broken copies of them. Bad checkpoints get one line, a code, exit 2, no stack.
 */
const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'dist', 'surface', 'cli', 'main.js');
jest.setTimeout(120_000);

const dir = mkdtempSync(join(tmpdir(), 'mla-diff-e2e-ckpt-'));
const ck = join(dir, 'ck');
beforeAll(async () => {
  await execa('node', [join(ROOT, 'scripts', 'write-fixtures.mjs'), ck], { cwd: ROOT });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const mla = (args: string[]) => execa('node', [CLI, ...args], { cwd: ROOT, reject: false, env: { NO_COLOR: '1' } });
const scenario = (name: string, body: string) => {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, `name: ${name}\nmodel: {}\n${body}\n`);
  return file;
};
const noStack = (text: string) => expect(text.split('\n').filter((l) => /^\s+at /.test(l))).toEqual([]);

describe('mla-diff run on checkpoints (e2e)', () => {
  it('GGUF against its synthetic source: exit 0, the W table and the tokenized prompt', async () => {
    const r = await mla([
      'run',
      scenario(
        'ok',
        'weights: {gguf: ck/tiny-q8_0.gguf}\ncompare_weights: {synthetic: {seed: 0}}\nprompt: {text: The capital of France is}',
      ),
      '--device',
      'wasm',
      '--format',
      'json',
    ]);
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout) as {
      version: number;
      weights: { comparison: { verdict: string } };
      scenario: { tokenizer: string; requests: { ids: number[] }[] };
    };
    expect(j.version).toBe(RUN_VERSION);
    expect(j.weights.comparison.verdict).toBe('agree');
    expect(j.scenario.tokenizer).toMatch(/GGUF/);
    expect(j.scenario.requests[0]!.ids.length).toBeGreaterThan(1);
  });
  it('the loader fault: exit 1, the one-line summary names kv_b_proj, then k_nope and ql_nope', async () => {
    const r = await mla([
      'run',
      scenario(
        'fault',
        'weights: {gguf: ck/tiny-q8_0.gguf, loader_fault: k-b-wrong-axis}\n' +
          'compare_weights: {safetensors: ck/tiny-bf16}\nprompt: {ids: [5, 6, 7]}',
      ),
      '--device',
      'wasm',
      '--out',
      join(dir, 'fault.txt'),
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/FAIL fault: weights differ from safetensors tiny-bf16 layer 0 at kv_b_proj, then mha k_nope, mqa ql_nope/);
  });

  const broken: [string, (f: string) => void, string][] = [
    ['truncated', (f) => truncateSync(f, Math.floor(statSync(f).size / 2)), 'checkpoint-truncated'],
    [
      'wrong magic',
      (f) => {
        const fd = openSync(f, 'r+');
        writeSync(fd, Buffer.from('GGML'));
        closeSync(fd);
      },
      'checkpoint-invalid',
    ],
    ['unknown ggml type in a tensor info', (f) => corruptFirstTensorType(f), 'unsupported-dtype'],
  ];
  it.each(broken)('a %s GGUF: exit 2, one line with its code and the file, no stack', async (_what, breakIt, code) => {
    const copy = join(ck, `broken-${code}.gguf`);
    copyFileSync(join(ck, 'tiny-q8_0.gguf'), copy);
    breakIt(copy);
    const r = await mla(['run', scenario(`b-${code}`, `weights: {gguf: ck/broken-${code}.gguf}\nprompt: {ids: [1]}`), '--device', 'wasm']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`[${code}]`);
    expect(r.stderr).toContain(copy);
    noStack(r.stderr);
  });
  it('a missing layer: tensor-missing naming the tensor, with the layers the file has', async () => {
    const r = await mla(['run', scenario('layer', 'weights: {gguf: ck/tiny-q8_0.gguf, layer: 9}\nprompt: {ids: [1]}'), '--device', 'wasm']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/\[tensor-missing\].*blk\.9\.attn_norm\.weight/);
    expect(r.stderr).toMatch(/layers 0–1/);
  });
  it('a safetensors shard missing: file-not-found naming the shard', async () => {
    cpSync(join(ck, 'small-fp8'), join(ck, 'fp8-missing'), { recursive: true });
    rmSync(join(ck, 'fp8-missing', 'model-00002-of-00002.safetensors'));
    const r = await mla(['run', scenario('shard', 'weights: {safetensors: ck/fp8-missing}\nprompt: {ids: [1]}'), '--device', 'wasm']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/\[file-not-found\].*model-00002-of-00002\.safetensors/);
    noStack(r.stderr);
  });
});

/** Sets the ggml type id of the file's first tensor info to 99 (found by its name in the header). */
function corruptFirstTensorType(f: string): void {
  const name = Buffer.from('token_embd.weight');
  const fd = openSync(f, 'r+');
  const head = Buffer.alloc(1 << 20);
  const n = readSync(fd, head, 0, head.length, 0);
  const at = head.subarray(0, n).indexOf(name);
  const nDims = head.readUInt32LE(at + name.length);
  const typeAt = at + name.length + 4 + 8 * nDims;
  const b = Buffer.alloc(4);
  b.writeUInt32LE(99);
  writeSync(fd, b, 0, 4, typeAt);
  closeSync(fd);
}
