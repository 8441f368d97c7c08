import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFixtures } from '../checkpoint/fixtures';
import { isMlaDiffError } from '../../errors';
import { weightValues } from '../../core/weights/records';
import { openSource } from '../checkpoint/source';
import { firstError, inspectCheckpoint } from '.';
import type { InspectReport } from '.';

let dir: string;
const fx = (name: string) => join(dir, 'fx', name);
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mla-diff-inspect-'));
  writeFixtures(join(dir, 'fx'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TINY = {
  hidden_size: 96,
  num_attention_heads: 4,
  q_lora_rank: 48,
  kv_lora_rank: 32,
  qk_nope_head_dim: 16,
  qk_rope_head_dim: 8,
  v_head_dim: 12,
};
const SMALL = {
  hidden_size: 256,
  num_attention_heads: 2,
  q_lora_rank: 256,
  kv_lora_rank: 256,
  qk_nope_head_dim: 32,
  qk_rope_head_dim: 16,
  v_head_dim: 32,
};
const types = (r: InspectReport) => Object.fromEntries(r.attention!.tensors.map((t) => [t.short, t.type]));
const shapes = (r: InspectReport) => Object.fromEntries(r.attention!.tensors.map((t) => [t.short, t.shape]));

/** The code an inspect call throws. */
function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isMlaDiffError(e)) return e.code;
    throw e;
  }
  throw new Error('did not throw');
}

describe('inspect: GGUF', () => {
  it('tiny-q8_0: dims, split kv_b, layers, per-layer types and shapes, tokenizer', () => {
    const r = inspectCheckpoint(fx('tiny-q8_0.gguf'));
    expect(r).toMatchObject({
      format: 'mla-diff/inspect',
      version: 1,
      architecture: 'deepseek2',
      isMla: true,
      kvB: 'split',
      weights: null,
      issues: [],
    });
    expect(r.container).toEqual({ kind: 'gguf', version: 3, alignment: 32, metadataKeys: 27 });
    expect(r.files).toHaveLength(1);
    expect(r.mla!.config).toMatchObject({ ...TINY, vocab_size: 393, rope_theta: 10_000, rope_scaling: null });
    expect(r.mla).toMatchObject({ configLayer: 0, qkHeadDim: 24, latentWidth: 40 });
    expect(r.mla!.softmaxScale).toBeCloseTo(24 ** -0.5, 12);
    expect(r.layers).toEqual({ declared: 2, present: [0, 1], attention: [0, 1] });
    expect(types(r)).toEqual({
      attn_norm: 'F32',
      attn_q_a: 'Q8_0',
      attn_q_a_norm: 'F32',
      attn_q_b: 'F16',
      attn_kv_a_mqa: 'Q8_0',
      attn_kv_a_norm: 'F32',
      attn_k_b: 'F16',
      attn_v_b: 'Q8_0',
      attn_output: 'F16',
    });
    expect(shapes(r)).toMatchObject({ attn_k_b: [4, 32, 16], attn_v_b: [4, 12, 32], attn_kv_a_mqa: [40, 96] });
    expect(r.attention!.tensors.find((t) => t.short === 'attn_q_a')).toMatchObject({ name: 'blk.0.attn_q_a.weight', bytes: 4896 });
    expect(r.patterns.map((p) => p.layers)).toEqual([[0, 1]]);
    expect(r.tokenizer).toEqual({ present: true, source: 'gguf', model: 'gpt2', pre: 'gpt-2', tokens: 393, merges: 136 });
  });

  it('small-q4_k from its second shard: both shards, merged attn_kv_b, attn_output falls back to Q5_0', () => {
    const r = inspectCheckpoint(fx('small-q4_k-00002-of-00002.gguf'));
    expect(r.files.map((f) => f.path)).toEqual([fx('small-q4_k-00001-of-00002.gguf'), fx('small-q4_k-00002-of-00002.gguf')]);
    expect(r.totalBytes).toBe(r.files[0]!.bytes + r.files[1]!.bytes);
    expect(r.mla!.config).toMatchObject(SMALL);
    expect(r.mla).toMatchObject({ qkHeadDim: 48, latentWidth: 272 });
    expect(r.kvB).toBe('merged');
    expect(types(r)).toMatchObject({ attn_q_a: 'Q4_K', attn_kv_b: 'Q4_K', attn_output: 'Q5_0' });
    expect(shapes(r)).toMatchObject({ attn_kv_b: [128, 256], attn_output: [256, 64] });
    expect(r.layers.attention).toEqual([0, 1]);
    expect(r.issues).toEqual([]);
  });

  it('--layer 1 tabulates layer 1 and records exactly what weightValues reads', () => {
    const r = inspectCheckpoint(fx('tiny-q8_0.gguf'), { layer: 1 });
    expect(r.attention!.layer).toBe(1);
    expect(r.attention!.tensors[0]!.name).toBe('blk.1.attn_norm.weight');
    const want = weightValues(openSource({ kind: 'gguf', file: fx('tiny-q8_0.gguf'), layer: 1, overrides: {} }), [0]).map((w) => w.record);
    expect(r.weights).toEqual({ layer: 1, ids: [0], records: want });
    expect(r.weights!.records.map((x) => x.name)).toEqual(expect.arrayContaining(['embed_tokens', 'W_UK', 'W_UV', 'kv_b_proj']));
  });

  it("a layer the file lacks is the readers' tensor-missing", () => {
    expect(codeOf(() => inspectCheckpoint(fx('tiny-q8_0.gguf'), { layer: 5 }))).toBe('tensor-missing');
  });
});

describe('inspect: safetensors', () => {
  it.each([
    ['directory', 'tiny-bf16'],
    ['file', 'tiny-bf16/model.safetensors'],
    ['config.json', 'tiny-bf16/config.json'],
  ])('tiny-bf16 as a %s', (_what, p) => {
    const r = inspectCheckpoint(fx(p));
    expect(r.container).toMatchObject({ kind: 'safetensors', index: null, fp8Block: null });
    expect(r).toMatchObject({ architecture: 'deepseek_v3', isMla: true, kvB: 'merged', issues: [] });
    expect(r.mla!.config).toMatchObject(TINY);
    expect(r.layers).toEqual({ declared: 2, present: [0, 1], attention: [0, 1] });
    expect(new Set(Object.values(types(r)))).toEqual(new Set(['BF16']));
    expect(r.tokenizer).toMatchObject({ present: true, source: 'tokenizer.json', model: 'BPE', tokens: 393 });
  });

  it('small-fp8 by its index: 2 shards, FP8 with 128×128 scales, scale tensors listed', () => {
    const r = inspectCheckpoint(fx('small-fp8/model.safetensors.index.json'));
    expect(r.container).toMatchObject({ kind: 'safetensors', index: fx('small-fp8/model.safetensors.index.json'), fp8Block: [128, 128] });
    expect(r.files).toHaveLength(2);
    expect(r.mla!.config).toMatchObject(SMALL);
    expect(types(r)).toMatchObject({
      q_a_proj: 'F8_E4M3',
      'q_a_proj.weight_scale_inv': 'F32',
      input_layernorm: 'BF16',
      kv_b_proj: 'F8_E4M3',
    });
    expect(shapes(r)['kv_b_proj']).toEqual([128, 256]);
  });
});

describe('inspect: what is not a checkpoint', () => {
  it('a missing path is file-not-found; a YAML file or random bytes are checkpoint-invalid', () => {
    expect(codeOf(() => inspectCheckpoint(join(dir, 'nope.gguf')))).toBe('file-not-found');
    writeFileSync(join(dir, 'scenario.yaml'), 'name: t\nmodel: {preset: tiny}\n');
    expect(codeOf(() => inspectCheckpoint(join(dir, 'scenario.yaml')))).toBe('checkpoint-invalid');
    writeFileSync(join(dir, 'random.gguf'), Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 251)));
    expect(codeOf(() => inspectCheckpoint(join(dir, 'random.gguf')))).toBe('checkpoint-invalid');
    mkdirSync(join(dir, 'empty'));
    expect(codeOf(() => inspectCheckpoint(join(dir, 'empty')))).toBe('checkpoint-invalid');
  });

  it('a directory holding one GGUF split is that split', () => {
    const d = join(dir, 'split-dir');
    mkdirSync(d);
    for (const k of [1, 2]) copyFileSync(fx(`small-q4_k-0000${k}-of-00002.gguf`), join(d, `small-q4_k-0000${k}-of-00002.gguf`));
    expect(inspectCheckpoint(d).files).toHaveLength(2);
  });

  it('firstError turns the first error issue into the MlaDiffError the CLI reports', () => {
    expect(firstError([{ severity: 'warning', code: 'checkpoint-invalid', message: 'w' }])).toBeUndefined();
    const e = firstError([{ severity: 'error', code: 'tensor-shape', message: 'm', file: 'f', field: 'attn_k_b', hint: 'h' }])!;
    expect([e.code, e.where, e.hint]).toEqual(['tensor-shape', { file: 'f', field: 'attn_k_b' }, 'h']);
  });
});
