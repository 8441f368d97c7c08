import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import execa from 'execa';
import { smallFixtureConfig, writeFixtures } from '../../src/checkpoints/checkpoint/fixtures';
import { ggufKB, ggufName, ggufVB } from '../../src/checkpoints/checkpoint/names';
import { expectedShape, vBShape } from '../../src/checkpoints/checkpoint/shapes';
import { openGguf } from '../../src/formats/gguf/read';
import type { InspectReport } from '../../src/checkpoints/inspect';
import { mlaMeta, overwriteTensorData, writeF32Gguf, writeLlamaGguf } from '../../src/checkpoints/inspect/test-utils/checkpoints';
import { LAYER_TENSORS } from '../../src/core/weights/layer';
import { weightValues } from '../../src/core/weights/records';
import { openSource } from '../../src/checkpoints/checkpoint/source';

/** End to end: `mla-diff inspect` on the checkpoint fixtures, as a user runs it. */
const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'dist', 'surface', 'cli', 'main.js');

jest.setTimeout(120_000);

const mla = (args: string[]) => execa('node', [CLI, ...args], { cwd: ROOT, reject: false, env: { NO_COLOR: '1' } });
const stackLines = (text: string) => text.split('\n').filter((l) => /^\s+at /.test(l));

let dir: string;
const fx = (name: string) => join(dir, 'fx', name);

beforeAll(async () => {
  if (!existsSync(CLI)) await execa('npm', ['run', 'build'], { cwd: ROOT });
  dir = mkdtempSync(join(tmpdir(), 'mla-diff-e2e-inspect-'));
  writeFixtures(join(dir, 'fx'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('mla-diff inspect (e2e)', () => {
  it.each([
    ['tiny-q8_0.gguf', '32+8 = 40'],
    ['small-q4_k-00002-of-00002.gguf', '256+16 = 272'],
    ['tiny-bf16', '32+8 = 40'],
    ['small-fp8/model.safetensors.index.json', '256+16 = 272'],
  ])('%s: exit 0, the MLA dims, plain text', async (f, latent) => {
    const r = await mla(['inspect', fx(f)]);
    expect([r.exitCode, r.stderr]).toEqual([0, '']);
    expect(r.stdout).toContain(`latent L+R ${latent}`);
    expect(r.stdout).toMatch(/^ {2}layers 0–1: /m);
    expect(r.stdout).not.toMatch(/\u001b\[/);
  });

  it('--format json is the versioned inspect object', async () => {
    const r = await mla(['inspect', fx('small-q4_k-00001-of-00002.gguf'), '--format', 'json']);
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout) as InspectReport;
    expect([j.format, j.version, j.kvB, j.files.length, j.weights]).toEqual(['mla-diff/inspect', 1, 'merged', 2, null]);
    expect(j.mla!.config).toMatchObject({ hidden_size: 256, num_attention_heads: 2, kv_lora_rank: 256, qk_rope_head_dim: 16 });
    expect(j.attention!.tensors.find((t) => t.short === 'attn_output')!.type).toBe('Q5_0');
  });

  it('--layer 1 shows the norms and checksums weightValues computes', async () => {
    const want = weightValues(openSource({ kind: 'gguf', file: fx('tiny-q8_0.gguf'), layer: 1, overrides: {} }), [0]).map((w) => w.record);
    const j = JSON.parse((await mla(['inspect', fx('tiny-q8_0.gguf'), '--layer', '1', '--format', 'json'])).stdout) as InspectReport;
    expect(j.weights!.records.map((x) => [x.name, x.norm, x.checksum])).toEqual(want.map((x) => [x.name, x.norm, x.checksum]));
    const t = await mla(['inspect', fx('tiny-q8_0.gguf'), '--layer', '1']);
    expect(t.exitCode).toBe(0);
    for (const name of ['W_UK', 'W_UV', 'embed_tokens']) expect(t.stdout).toMatch(new RegExp(`│ ${name} `));
    for (const x of want) expect(t.stdout).toContain(x.checksum);
  });

  it('without --layer no tensor data is read: overwritten data, the same output', async () => {
    const copy = join(dir, 'garbage.gguf');
    copyFileSync(fx('tiny-q8_0.gguf'), copy);
    const before = await mla(['inspect', copy, '--format', 'json']);
    overwriteTensorData(openGguf(copy).tensors.values());
    const after = await mla(['inspect', copy, '--format', 'json']);
    expect([after.exitCode, after.stdout]).toEqual([0, before.stdout]);
  });

  it('a Llama GGUF: the facts and a warning that it is not MLA, exit 0', async () => {
    writeLlamaGguf(join(dir, 'llama.gguf'));
    const r = await mla(['inspect', join(dir, 'llama.gguf')]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('architecture llama (not MLA)');
    expect(r.stdout).toContain('warning [checkpoint-invalid]');
  });

  it('an MLA GGUF with a wrong attn_v_b shape: the facts on stdout, then error [tensor-shape], exit 2', async () => {
    const c = { ...smallFixtureConfig(), vocab_size: 16 };
    const tensors: Record<string, number[]> = {
      'token_embd.weight': [16, c.hidden_size],
      [ggufKB(0)]: [2, 256, 32],
      [ggufVB(0)]: [...vBShape(c)].reverse(),
    };
    for (const t of LAYER_TENSORS) if (t !== 'kv_b_proj') tensors[ggufName(0, t)] = expectedShape(c, t);
    writeF32Gguf(join(dir, 'bad-v-b.gguf'), mlaMeta(c, 1), tensors);
    const r = await mla(['inspect', join(dir, 'bad-v-b.gguf')]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toContain('attention tensors of layer 0');
    expect(r.stderr).toMatch(/^mla-diff: error \[tensor-shape\] .*attn_v_b/m);
  });

  describe('bad input exits 2 with an error code and no stack trace', () => {
    const cases: [string, string, () => string[]][] = [
      ['a missing file', 'file-not-found', () => ['inspect', join(dir, 'missing.gguf')]],
      ['a YAML file', 'checkpoint-invalid', () => ['inspect', join(ROOT, 'scenarios', 'tiny-smoke.yaml')]],
      [
        'random bytes',
        'checkpoint-invalid',
        () => {
          writeFileSync(join(dir, 'random.bin'), Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 31 + 7) % 256)));
          return ['inspect', join(dir, 'random.bin')];
        },
      ],
      ['a layer the file lacks', 'tensor-missing', () => ['inspect', fx('tiny-q8_0.gguf'), '--layer', '5']],
      ['a negative layer', 'invalid-value', () => ['inspect', fx('tiny-q8_0.gguf'), '--layer', '-1']],
      ['no file', 'usage', () => ['inspect']],
    ];
    it.each(cases)('%s → error [%s]', async (_what, code, args) => {
      const r = await mla(args());
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`error [${code}]`);
      expect(stackLines(r.stderr)).toEqual([]);
    });

    it('a non-checkpoint file gets a hint naming what inspect reads', async () => {
      const r = await mla(['inspect', join(ROOT, 'scenarios', 'tiny-smoke.yaml')]);
      expect(r.stderr).toMatch(/^ {2}hint: .*\.gguf/m);
    });
  });

  it('inspect --help exits 0 with examples', async () => {
    const r = await mla(['inspect', '--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('Examples:');
    expect(r.stdout).toContain('--layer');
  });
});
