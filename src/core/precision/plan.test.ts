import { FP32_PRECISION, pathPoints, PRESET_POINTS, rounds, stageDtypes } from './plan';
import type { PrecisionSpec } from './plan';

const bf16 = (extra: Partial<PrecisionSpec> = {}): PrecisionSpec => ({ ...FP32_PRECISION, dtype: 'bfloat16', ...extra });

describe('rounding points per path', () => {
  it('float32 rounds nowhere, whatever the presets; an fp8 cache alone still counts as rounding', () => {
    for (const p of ['mha', 'mqa', 'cold'] as const) expect(pathPoints(FP32_PRECISION, p).size).toBe(0);
    expect(rounds(FP32_PRECISION)).toBe(false);
    expect(rounds({ ...FP32_PRECISION, kvCache: 'fp8_e4m3' })).toBe(true);
    expect(stageDtypes({ ...FP32_PRECISION, kvCache: 'fp8_e4m3' }, 'mqa')).toEqual({ kv_cache: 'fp8_e4m3' });
  });

  it('mha rounds k_nope/v, P and its outputs but keeps the LSE fp32; Triton MLA rounds its LSE, FlashMLA does not', () => {
    const mha = pathPoints(bf16(), 'mha');
    expect([...mha]).toEqual(expect.arrayContaining(['kv_nope', 'attn_probs', 'attn_out_heads', 'hidden_in', 'o_proj_out']));
    expect(mha.has('lse')).toBe(false);
    expect(mha.has('ql_nope')).toBe(false);
    expect(pathPoints(bf16(), 'mqa').has('lse')).toBe(true);
    const flash = pathPoints(bf16({ rounding: { mha: 'vllm-fa3-prefill', mqa: 'vllm-flashmla' } }), 'mqa');
    expect(flash.has('lse')).toBe(false);
    expect(flash.has('ql_nope')).toBe(true);
  });

  it('cold rounds as FlashAttention prefill whatever the scenario gives mha', () => {
    const p = bf16({ rounding: { mha: ['hidden_in'], mqa: 'vllm-triton-mla' } });
    expect(pathPoints(p, 'cold')).toEqual(new Set(PRESET_POINTS['vllm-fa3-prefill']));
    expect(pathPoints(p, 'mha')).toEqual(new Set(['hidden_in']));
  });

  it('Triton MLA with an fp8 cache casts K to the query dtype and leaves P uncast (its V is fp32)', () => {
    const mqa = pathPoints(bf16({ kvCache: 'fp8_e4m3' }), 'mqa');
    expect(mqa.has('latent_k')).toBe(true);
    expect(mqa.has('attn_probs')).toBe(false);
    expect(
      pathPoints(bf16({ kvCache: 'fp8_e4m3', rounding: { mha: 'vllm-fa3-prefill', mqa: 'vllm-flashmla' } }), 'mqa').has('attn_probs'),
    ).toBe(true);
  });

  it('stage dtypes label what the table shows: the LSE bf16 on mqa only, the cache in fp8, W_UK_T/W_UV in the model dtype', () => {
    const p = bf16({ kvCache: 'fp8_e4m3' });
    const mha = stageDtypes(p, 'mha');
    const mqa = stageDtypes(p, 'mqa');
    expect(mha).toMatchObject({ q_nope: 'bfloat16', k_nope: 'bfloat16', kv_cache: 'fp8_e4m3', attn_out_heads: 'bfloat16' });
    expect(mha.lse).toBeUndefined();
    expect(mqa).toMatchObject({ lse: 'bfloat16', ql_nope: 'bfloat16', attn_out_latent: 'bfloat16', W_UK_T: 'bfloat16', W_UV: 'bfloat16' });
    expect(mqa.logits).toBeUndefined();
  });
});
