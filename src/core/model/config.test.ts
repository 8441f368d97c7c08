import { latentWidth, qkHeadDim, softmaxScale, validateConfig, yarnGetMscale } from './config';
import { PRESET_NAMES, preset } from './presets';
import { layerWeightElements, MAX_LAYER_WEIGHT_ELEMENTS } from './config-limits';

describe('model config', () => {
  it.each(PRESET_NAMES)('preset %s is valid', (name) => {
    expect(() => validateConfig(preset(name))).not.toThrow();
  });

  it('GLM-5: D = 256, L+R = 576, scale = 256^-0.5 = 0.0625 exactly', () => {
    const c = preset('glm-5');
    expect(qkHeadDim(c)).toBe(256);
    expect(latentWidth(c)).toBe(576);
    expect(softmaxScale(c)).toBe(0.0625);
  });

  it('DeepSeek-V3: scale = 192^-0.5 · mscale², mscale = 0.1·ln 40 + 1', () => {
    const c = preset('deepseek-v3');
    const m = 0.1 * Math.log(40) + 1;
    expect(yarnGetMscale(40, 1)).toBeCloseTo(m, 15);
    expect(softmaxScale(c)).toBeCloseTo(192 ** -0.5 * m * m, 15);
    expect(softmaxScale(c)).toBeCloseTo(0.135234, 6);
  });

  it('presets are copies: overriding one does not touch the table', () => {
    const a = preset('glm-5');
    a.hidden_size = 1;
    expect(preset('glm-5').hidden_size).toBe(6144);
  });

  it.each([
    ['qk_rope_head_dim', 63],
    ['num_attention_heads', 0],
    ['kv_lora_rank', 1.5],
    ['rms_norm_eps', 0],
  ] as const)('rejects %s = %p with invalid-config naming the field', (key, value) => {
    const c = { ...preset('tiny'), [key]: value };
    expect(() => validateConfig(c)).toThrow(
      expect.objectContaining({ code: 'invalid-config', where: expect.objectContaining({ field: `model.${key}` }) }),
    );
  });

  it.each([
    ['rope_theta', Infinity],
    ['rms_norm_eps', NaN],
  ] as const)('rejects %s = %p (a config.json 1e400 is Infinity) with invalid-config', (key, value) => {
    expect(() => validateConfig({ ...preset('tiny'), [key]: value })).toThrow(expect.objectContaining({ code: 'invalid-config' }));
  });

  it('rejects a non-finite YaRN factor', () => {
    const y = { ...preset('deepseek-v3').rope_scaling!, factor: Infinity };
    expect(() => validateConfig({ ...preset('deepseek-v3'), rope_scaling: y })).toThrow(
      expect.objectContaining({ code: 'invalid-config' }),
    );
  });

  it.each([
    ['vocab_size', 2 ** 24 + 1],
    ['hidden_size', 65_537],
    ['num_attention_heads', 1025],
    ['max_position_embeddings', 2 ** 24 + 1],
  ] as const)('%s = %p is limit-exceeded naming the field, with the bound in the hint', (key, value) => {
    expect(() => validateConfig({ ...preset('tiny'), [key]: value }, { file: 'c.json' })).toThrow(
      expect.objectContaining({
        code: 'limit-exceeded',
        where: { file: 'c.json', field: `model.${key}` },
        hint: expect.stringMatching(/\d/),
      }),
    );
  });

  it('GLM-5 and DeepSeek-V3 are within the weight bound; dims each in bounds whose projections are not are limit-exceeded', () => {
    expect(layerWeightElements(preset('glm-5'))).toBeLessThan(MAX_LAYER_WEIGHT_ELEMENTS / 1.4);
    expect(layerWeightElements(preset('deepseek-v3'))).toBeLessThan(MAX_LAYER_WEIGHT_ELEMENTS / 1.4);
    const big = { ...preset('deepseek-v3'), num_attention_heads: 512 };
    expect(() => validateConfig(big)).toThrow(
      expect.objectContaining({ code: 'limit-exceeded', where: expect.objectContaining({ field: 'model.num_attention_heads' }) }),
    );
  });

  it('unknown preset is an error with a code', () => {
    expect(() => preset('glm-6')).toThrow(expect.objectContaining({ code: 'unknown-preset' }));
  });
});
