import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MlaDiffError } from '../../errors';
import { openGguf, readTensorBytes } from '../../formats/gguf/read';
import type { GgufEntry } from '../../formats/gguf/types';
import type { MlaConfig } from '../../core/model/config';
import { SyntheticWeights } from '../../core/weights/synthetic';
import { configFromGguf } from '../../checkpoints/checkpoint/config-gguf';
import { lazyTensor, writeGgufCheckpoint } from '../../checkpoints/checkpoint/write-gguf';
import { INDEXER_PARTS } from '../../checkpoints/extract/plan';
import { extractLayer } from './extract';
import { ENGINE_VOCAB } from './model-gguf';
import { engineLibDir, runEngine } from './test-utils/run-engine';

// Dims that take Q4_K where rows are 256 wide and llama.cpp's fallbacks (Q5_0) where they are not: a mix of types.
const C: MlaConfig = {
  hidden_size: 256,
  num_attention_heads: 2,
  q_lora_rank: 256,
  kv_lora_rank: 256,
  qk_nope_head_dim: 64,
  qk_rope_head_dim: 32,
  v_head_dim: 64,
  rope_theta: 10_000,
  rope_interleave: true,
  rope_scaling: null,
  rms_norm_eps: 1e-6,
  max_position_embeddings: 4096,
  vocab_size: 300,
};
const LAYERS = 3;
const u32 = (value: number): GgufEntry => ({ type: 'UINT32', value });
const arr = (value: number[]): GgufEntry => ({ type: 'ARRAY', itemType: 'UINT32', value });

/** A 3-layer, 3-shard Q4_K checkpoint with MoE-like tensors and keys around the attention, as real conversions have. */
function source(dir: string, arch: 'deepseek2' | 'glm-dsa', indexer: boolean): string {
  const meta = new Map<string, GgufEntry>([
    [`${arch}.expert_count`, u32(8)],
    [`${arch}.expert_used_count`, arr([0, 2, 2])],
    [`${arch}.expert_group_count`, u32(2)],
    [`${arch}.nextn_predict_layers`, u32(0)],
    [`${arch}.attention.head_count`, arr([2, 2, 2])],
    ['tokenizer.ggml.model', { type: 'STRING', value: 'gpt2' }],
    ['general.name', { type: 'STRING', value: 'user model' }],
  ]);
  const tensors = [1, 2].flatMap((n) => [
    lazyTensor(`blk.${n}.ffn_norm.weight`, [C.hidden_size], 'F32', () => new Float32Array(C.hidden_size).fill(1)),
    lazyTensor(`blk.${n}.ffn_gate_exps.weight`, [8, 32, C.hidden_size], 'Q4_K', () => new Float32Array(8 * 32 * C.hidden_size)),
  ]);
  if (indexer) {
    for (const [k, v] of [
      ['head_count', 2],
      ['key_length', 64],
      ['top_k', 16],
    ] as const)
      meta.set(`${arch}.attention.indexer.${k}`, u32(v));
    for (let n = 0; n < LAYERS; n++) {
      const shapes = [[64], [64], [2, C.hidden_size], [64, C.hidden_size], [128, C.q_lora_rank]];
      INDEXER_PARTS.forEach((p, i) => {
        const shape = shapes[i]!;
        const size = shape.reduce((a, b) => a * b, 1);
        tensors.push(
          lazyTensor(`blk.${n}.${p}`, shape, shape.length === 1 ? 'F32' : 'Q8_0', () =>
            Float32Array.from({ length: size }, (_, j) => Math.cos(j + n) * 0.1),
          ),
        );
      });
    }
  }
  const layers = Array.from({ length: LAYERS }, (_, n) => new SyntheticWeights(C, 11 + n));
  const paths = writeGgufCheckpoint(join(dir, 'big.gguf'), {
    config: C,
    layers,
    type: 'Q4_K',
    kvB: 'split',
    shards: 3,
    arch,
    extra: { meta, tensors },
  });
  return paths[1]!; // any shard names the split
}

const tmp = () => mkdtempSync(join(tmpdir(), 'extract-'));
const lib = engineLibDir();
const engineIt = lib ? it : it.skip;
if (!lib) console.warn('llama.cpp (@node-llama-cpp/linux-x64, an optional dependency) is not installed: the load checks are skipped');

describe('extract', () => {
  const dir = tmp();
  const input = source(dir, 'deepseek2', false);
  const out = join(dir, 'layer2.gguf');
  const r = extractLayer(input, { layer: 2, output: out });

  it("round-trips a multi-shard quantized GGUF: the layer's attention as the original bytes and types, renamed blk.0", () => {
    const src = openGguf(input);
    const got = openGguf(out);
    expect(src.files).toHaveLength(3);
    expect(r.kept.map((k) => k.name)).toEqual(
      ['attn_norm', 'attn_q_a', 'attn_q_a_norm', 'attn_q_b', 'attn_kv_a_mqa', 'attn_k_b', 'attn_v_b', 'attn_kv_a_norm', 'attn_output'].map(
        (p) => `blk.0.${p}.weight`,
      ),
    );
    expect(new Set(r.kept.map((k) => k.type))).toEqual(new Set(['F32', 'Q4_K', 'Q5_0']));
    for (const k of r.kept) {
      expect(k.from).toBe(k.name.replace('blk.0.', 'blk.2.'));
      expect(got.tensors.get(k.name)!.type).toBe(src.tensors.get(k.from)!.type);
      expect(Buffer.from(readTensorBytes(got, k.name)).equals(Buffer.from(readTensorBytes(src, k.from)))).toBe(true);
    }
    const embd = readTensorBytes(got, 'token_embd.weight');
    expect(Buffer.from(embd).equals(Buffer.from(readTensorBytes(src, 'token_embd.weight', [0, ENGINE_VOCAB])))).toBe(true);
    expect(r.bytesRead.tensors).toBe(r.kept.reduce((a, k) => a + k.bytes, 0) + embd.length);
    expect(r.notCopied).toEqual(['blk.2.ffn_norm.weight', 'blk.2.ffn_gate_exps.weight']);
    expect(got.tensors.has('blk.0.ffn_gate_exps.weight')).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
  });

  it("keeps the original's metadata, cut to one dense layer", () => {
    const m = openGguf(out).metadata;
    const v = (k: string) => m.get(k)?.value;
    expect(v('general.name')).toBe('user model');
    expect(v('deepseek2.block_count')).toBe(1);
    expect(v('deepseek2.leading_dense_block_count')).toBe(1);
    expect([v('deepseek2.expert_count'), v('deepseek2.expert_used_count'), v('deepseek2.expert_group_count')]).toEqual([0, 0, 0]);
    expect(v('deepseek2.attention.head_count')).toEqual([2]);
    expect(r.metadata.cut).toEqual(['deepseek2.attention.head_count', 'deepseek2.expert_used_count']);
    expect(v('tokenizer.ggml.model')).toBe('none');
    expect([...m.keys()].filter((k) => k.startsWith('split.'))).toEqual([]);
    expect(v('mla-diff.extract.layer')).toBe(2);
    const src = openGguf(input);
    expect(configFromGguf(m, out, 0)).toEqual({ ...configFromGguf(src.metadata, input, 2), vocab_size: ENGINE_VOCAB });
  });

  it('refuses to overwrite the output without --force, and never writes over its input', () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as MlaDiffError).code;
      }
      return 'none';
    };
    expect(code(() => extractLayer(input, { layer: 2, output: out }))).toBe('output-exists');
    expect(code(() => extractLayer(input, { layer: 1, output: out, force: true }))).toBe('none');
    expect(openGguf(out).metadata.get('mla-diff.extract.layer')?.value).toBe(1);
    const shard = openGguf(input).files[0]!;
    expect(code(() => extractLayer(input, { layer: 0, output: shard, force: true }))).toBe('invalid-value');
    expect(code(() => extractLayer(input, { layer: 3, output: join(dir, 'l3.gguf') }))).toBe('invalid-value');
    expect(existsSync(join(dir, 'l3.gguf'))).toBe(false);
    writeFileSync(join(dir, 'not.gguf'), 'nope');
    expect(code(() => extractLayer(join(dir, 'not.gguf'), { layer: 0, output: join(dir, 'x.gguf') }))).toBe('checkpoint-invalid');
  });

  engineIt('writes a model llama.cpp loads and runs (deepseek2, its MLA graph over the Q4_K bytes)', () => {
    extractLayer(input, { layer: 2, output: out, force: true });
    const res = runEngine(lib!, join(dir, 'run'), out, C.hidden_size);
    const names = new Set(res.nodes.map((n) => n.name));
    for (const n of ['q_nope_absorbed-0', 'kq_soft_max-0', 'kqv_mla-0', 'kqv_out-0']) expect(names.has(n)).toBe(true);
  });

  engineIt("glm-dsa: the source's DSA indexer is kept, with top_k raised to the context (dense attention), and llama.cpp runs it", () => {
    const d = tmp();
    const o = join(d, 'l0.gguf');
    const g = extractLayer(source(d, 'glm-dsa', true), { layer: 0, output: o });
    expect(g.kept.filter((k) => k.name.startsWith('blk.0.indexer.'))).toHaveLength(INDEXER_PARTS.length);
    const m = openGguf(o).metadata;
    expect(m.get('glm-dsa.attention.indexer.top_k')?.value).toBe(C.max_position_embeddings);
    expect(m.get('glm-dsa.attention.indexer.head_count')?.value).toBe(2);
    const res = runEngine(lib!, join(d, 'run'), o, C.hidden_size);
    expect(res.nodes.some((n) => n.name === 'kqv_out-0')).toBe(true);
  });
});
