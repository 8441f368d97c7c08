import { preset } from '../../core/model/presets';
import { SyntheticWeights } from '../../core/weights/synthetic';
import { plantEffect } from './plants';

const c = { ...preset('tiny'), num_attention_heads: 2 };
const src = new SyntheticWeights(c, 3);

describe('plantEffect: converter bugs in the engine GGUF only', () => {
  it('writes metadata over the true keys', () => {
    expect(plantEffect(c, 'deepseek2', ['rope-freq-base'], src).meta.get('deepseek2.rope.freq_base')?.value).toBe(1_000_000);
    expect(plantEffect(c, 'glm-dsa', ['head-count'], src).meta.get('glm-dsa.attention.head_count')?.value).toBe(4);
  });
  it('norm weights of ones replace the true ones; the other tensors stay', () => {
    const p = plantEffect(c, 'deepseek2', ['kv-a-norm-ones'], src);
    expect([...p.source.norm('kv_a_layernorm')].every((x) => x === 1)).toBe(true);
    expect(p.source.norm('q_a_layernorm')).toEqual(src.norm('q_a_layernorm'));
  });
  it("attn_k_b untransposed: each head's [L, P] block holds W_UK [P, L] in its place", () => {
    const p = plantEffect(c, 'deepseek2', ['k-b-untransposed'], src);
    const [L, P] = [c.kv_lora_rank, c.qk_nope_head_dim];
    const kB = Float32Array.from({ length: 2 * L * P }, (_, i) => i);
    const w = p.transform!('blk.0.attn_k_b.weight', kB);
    expect(w[1]).toBe(kB[P]); // [h=0, p=0, l=1] was [h=0, l=1, p=0]
    expect(p.transform!('blk.0.attn_q_b.weight', kB)).toBe(kB);
  });
  it("attn_v_b from the wrong half: each head's V rows copy its first V rows of kv_b", () => {
    const p = plantEffect(c, 'deepseek2', ['v-b-wrong-half'], src);
    const [P, V, L] = [c.qk_nope_head_dim, c.v_head_dim, c.kv_lora_rank];
    const rows = 2 * (P + V);
    const w = new Float32Array(rows * L);
    p.source.block('kv_b_proj', [0, rows], [0, L], 'out_in', w);
    const row = (r: number) => Array.from(w.subarray(r * L, (r + 1) * L));
    expect(row(P)).toEqual(row(0));
    expect(row(P + V + P + 1)).toEqual(row(P + V + 1));
  });
});
