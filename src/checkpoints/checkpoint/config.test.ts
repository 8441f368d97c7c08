import type { GgufEntry } from '../../formats/gguf/types';
import { preset } from '../../core/model/presets';
import { configFromGguf } from './config-gguf';
import { configFromHf, fp8BlockSize } from './config-hf';
import { hfConfigJson } from './write-safetensors';
import { mlaMetadata } from './write-gguf';

describe('config from GGUF metadata', () => {
  it('GLM-5 as the converter writes it: qk_nope = key_length_mla − rope dims, no YaRN', () => {
    const glm = preset('glm-5');
    const c = configFromGguf(mlaMetadata(glm, 'glm-dsa', 78), 'glm5.gguf', 3);
    expect(c).toEqual({ ...glm, rms_norm_eps: c.rms_norm_eps, rope_theta: glm.rope_theta });
    expect(c.qk_nope_head_dim).toBe(192);
  });
  it('DeepSeek-V3 YaRN: yarn_log_multiplier is 0.1·mscale_all_dim (the legacy pre-scaled form)', () => {
    const ds = preset('deepseek-v3');
    const meta = mlaMetadata(ds, 'deepseek2', 61);
    expect(meta.get('deepseek2.rope.scaling.yarn_log_multiplier')!.value).toBeCloseTo(0.1, 12);
    const c = configFromGguf(meta, 'dsv3.gguf', 0);
    expect(c.rope_scaling).toEqual({ ...ds.rope_scaling, beta_fast: 32, beta_slow: 1 });
  });
  it('older files without *_mla keys: key_length / value_length are the per-head dims', () => {
    const meta = mlaMetadata(preset('tiny'), 'deepseek2', 1);
    meta.delete('deepseek2.attention.key_length_mla');
    meta.delete('deepseek2.attention.value_length_mla');
    meta.set('deepseek2.attention.key_length', { type: 'UINT32', value: 24 });
    meta.set('deepseek2.attention.value_length', { type: 'UINT32', value: 12 });
    const c = configFromGguf(meta, 'old.gguf', 0);
    expect([c.qk_nope_head_dim, c.qk_rope_head_dim, c.v_head_dim]).toEqual([16, 8, 12]);
  });
  it('not MLA, or a key missing: checkpoint-invalid naming the key', () => {
    const llama = new Map<string, GgufEntry>([['general.architecture', { type: 'STRING', value: 'llama' }]]);
    expect(() => configFromGguf(llama, 'l.gguf', 0)).toThrow(
      expect.objectContaining({ code: 'checkpoint-invalid', where: { file: 'l.gguf', field: 'general.architecture' } }),
    );
    const meta = mlaMetadata(preset('tiny'), 'deepseek2', 1);
    meta.delete('deepseek2.attention.kv_lora_rank');
    expect(() => configFromGguf(meta, 'x.gguf', 0)).toThrow(
      expect.objectContaining({ code: 'checkpoint-invalid', where: { file: 'x.gguf', field: 'deepseek2.attention.kv_lora_rank' } }),
    );
  });
});

describe('config from config.json', () => {
  it('round-trips the presets through the config.json we write', () => {
    for (const name of ['glm-5', 'deepseek-v3', 'tiny'] as const) {
      const p = preset(name);
      const j = JSON.parse(JSON.stringify(hfConfigJson(p, 2))) as Record<string, unknown>;
      expect(configFromHf(j, 'config.json')).toEqual(p);
    }
  });
  it('FP8 block size from quantization_config, DeepSeek 128×128 by default', () => {
    expect(fp8BlockSize(hfConfigJson(preset('tiny'), 1, [64, 32]) as Record<string, unknown>)).toEqual([64, 32]);
    expect(fp8BlockSize({})).toEqual([128, 128]);
  });
  it('a missing dimension: checkpoint-invalid naming the field', () => {
    const j = hfConfigJson(preset('tiny'), 1) as Record<string, unknown>;
    delete j.kv_lora_rank;
    expect(() => configFromHf(j, 'c.json')).toThrow(
      expect.objectContaining({ code: 'checkpoint-invalid', where: { file: 'c.json', field: 'kv_lora_rank' } }),
    );
  });
});
