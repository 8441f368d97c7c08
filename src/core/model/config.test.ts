import { latentWidth, qkHeadDim, softmaxScale, validateConfig, yarnGetMscale } from './config';
import { PRESET_NAMES, preset } from './presets';

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

  it('unknown preset is an error with a code', () => {
    expect(() => preset('glm-6')).toThrow(expect.objectContaining({ code: 'unknown-preset' }));
  });
});
