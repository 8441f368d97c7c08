import { engineStorage } from './floors-engine';

const u16 = 2 ** -11 / Math.sqrt(3);
const f32 = { cacheType: 'f32', flashAttn: false, ropeAngleError: 0 };

describe('engineStorage: the rounding points of an engine path', () => {
  it('is zero where the engine rounds as fp32 does', () => {
    expect(engineStorage(f32, 'kv_cache', 3)).toBe(0);
    expect(engineStorage(undefined, 'attn_out', 3)).toBe(0);
  });
  it('an F16 K cache: u/√3 at the cache and logits, × the logits RMS after the softmax, V added after P·V', () => {
    const e = { ...f32, cacheType: 'f16' };
    expect(engineStorage(e, 'q_pe', 3)).toBe(0);
    expect(engineStorage(e, 'kv_cache', 3)).toBeCloseTo(u16, 12);
    expect(engineStorage(e, 'logits', 3)).toBeCloseTo(u16, 12);
    expect(engineStorage(e, 'attn_probs', 3)).toBeCloseTo(3 * u16, 12);
    expect(engineStorage(e, 'o_proj_out', 3)).toBeCloseTo(Math.hypot(3 * u16, u16), 12);
  });
  it('float32 RoPE angles reach the rotated stages only from q_pe on', () => {
    const e = { ...f32, ropeAngleError: 1e-5 };
    expect(engineStorage(e, 'q_nope', 1)).toBe(0);
    expect(engineStorage(e, 'q_pe', 1)).toBe(1e-5);
    expect(engineStorage(e, 'logits', 1)).toBeCloseTo(1e-5 * Math.SQRT2, 12);
  });
  it("quantized weights: the activations' rounding grows with the products upstream", () => {
    const e = { ...f32, activation: 'q8_0' };
    const one = engineStorage(e, 'q_c_raw', 1);
    expect(one).toBeGreaterThan(5e-3);
    expect(engineStorage(e, 'q_full_prerope', 1)).toBeCloseTo(one * Math.SQRT2, 12);
    expect(engineStorage(e, 'hidden_in', 1)).toBe(0);
  });
});

describe('the RoPE-angle term past the softmax', () => {
  it('reaches the LSEs, the context merges and the workspace rows too', () => {
    const e = { ...f32, ropeAngleError: 1e-5 };
    for (const s of ['lse', 'suffix_lse', 'chunk_lse', 'context_lse', 'split_lse', 'context_output'] as const)
      expect(engineStorage(e, s, 2)).toBeCloseTo(1e-5 * Math.SQRT2 * 2, 12);
    expect(engineStorage(e, 'ctx_workspace', 2)).toBe(1e-5);
  });
});
