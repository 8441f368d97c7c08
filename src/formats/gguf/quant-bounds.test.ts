import { boundFactor, LLAMA_BOUND_FACTOR, MLA_DIFF_QUANTIZER_KEY } from './quant-bounds';

describe('boundFactor', () => {
  const ours = new Map<string, unknown>([[MLA_DIFF_QUANTIZER_KEY, 'mla-diff']]);
  it('keeps half a step for files our quantizer wrote', () => {
    expect(boundFactor(ours, 'Q4_K')).toBe(1);
  });
  it("widens it for llama.cpp's (general.file_type set by llama_model_quantize, even over our marker)", () => {
    expect(boundFactor(new Map([...ours, ['general.file_type', 15]]), 'Q4_K')).toBe(LLAMA_BOUND_FACTOR.Q4_K);
    expect(boundFactor(new Map(), 'Q5_0')).toBe(LLAMA_BOUND_FACTOR.Q5_0);
    expect(boundFactor(new Map(), 'IQ2_XS')).toBe(3);
  });
  it('leaves round-to-nearest floats alone', () => {
    expect(boundFactor(new Map(), 'F16')).toBe(1);
    expect(boundFactor(new Map(), 'BF16')).toBe(1);
  });
});
