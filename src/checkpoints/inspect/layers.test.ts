import { attentionByLayer, kvBLayout, layerPatterns, layerRanges } from './layers';
import type { RawTensor } from './layers';

const t = (name: string, type = 'Q4_K', shape = [8, 8]): RawTensor => ({ name, type, shape, bytes: 64 });

/** 78 GLM-5-like layers: attn_k_b Q8_0 except in layers 3–5 and 40 (Q4_K); ffn tensors are not attention. */
function glm5(): RawTensor[] {
  const out: RawTensor[] = [t('token_embd.weight')];
  for (let l = 0; l < 78; l++) {
    out.push(
      t(`blk.${l}.attn_q_a.weight`),
      t(`blk.${l}.attn_k_b.weight`, (l >= 3 && l <= 5) || l === 40 ? 'Q4_K' : 'Q8_0'),
      t(`blk.${l}.attn_v_b.weight`, 'Q8_0'),
      t(`blk.${l}.ffn_down.weight`),
      t(`blk.${l}.indexer.k_norm.weight`, 'F32', [128]),
    );
  }
  return out;
}

describe('per-layer patterns', () => {
  it('collapses identical layers: two patterns for GLM-5-like layers, ranges as runs', () => {
    const by = attentionByLayer(glm5(), 'gguf');
    expect([...by.keys()]).toHaveLength(78);
    expect(by.get(0)!.map((x) => x.short)).toEqual(['attn_q_a', 'attn_k_b', 'attn_v_b', 'indexer.k_norm']);
    const p = layerPatterns(by);
    expect(p.map((x) => layerRanges(x.layers))).toEqual(['0–2, 6–39, 41–77', '3–5, 40']);
    expect(p[1]!.tensors.find((x) => x.short === 'attn_k_b')!.type).toBe('Q4_K');
    expect(kvBLayout(by)).toBe('split');
  });

  it('Hugging Face names: self_attn.* and input_layernorm; the MLP is not attention', () => {
    const by = attentionByLayer(
      [
        t('model.layers.2.self_attn.kv_b_proj.weight'),
        t('model.layers.2.self_attn.kv_b_proj.weight_scale_inv', 'F32', [1, 1]),
        t('model.layers.2.input_layernorm.weight', 'BF16', [8]),
        t('model.layers.2.mlp.down_proj.weight'),
      ],
      'hf',
    );
    expect(by.get(2)!.map((x) => x.short)).toEqual(['kv_b_proj', 'kv_b_proj.weight_scale_inv', 'input_layernorm']);
    expect(kvBLayout(by)).toBe('merged');
  });

  it('kv_b layouts: split, merged, both, none and mixed', () => {
    const layout = (...names: string[]) =>
      kvBLayout(
        attentionByLayer(
          names.map((n) => t(n)),
          'gguf',
        ),
      );
    expect(layout('blk.0.attn_kv_b.weight', 'blk.0.attn_k_b.weight', 'blk.0.attn_v_b.weight')).toBe('both');
    expect(layout('blk.0.attn_q.weight')).toBe('none');
    expect(layout('blk.0.attn_kv_b.weight', 'blk.1.attn_k_b.weight', 'blk.1.attn_v_b.weight')).toBe('mixed');
    expect(layout()).toBe('none');
  });

  it('layerRanges', () => {
    expect(layerRanges([])).toBe('');
    expect(layerRanges([5])).toBe('5');
    expect(layerRanges([3, 1, 2, 2, 7, 9, 8])).toBe('1–3, 7–9');
  });
});
