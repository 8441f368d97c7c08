import { parseScenario } from './load';
import { failure } from '../../test-utils/errors';
import { PRECISION_K } from './precision';

const base = (extra = '', model = 'tiny') => `name: t\nmodel:\n  preset: ${model}\nprompt:\n  ids: [1, 2, 3]\n${extra}`;
const parseError = (text: string) => failure(() => parseScenario(text, 'test.yaml'));

describe('dtype:, kv_cache_dtype:, kv_cache_scale:, rounding:', () => {
  it('default to float32 with an auto cache, the FA3 prefill and Triton MLA points, and leave the tolerances alone', () => {
    const s = parseScenario(base());
    expect(s.precision).toEqual({
      dtype: 'float32',
      kvCache: 'auto',
      cacheScale: { kind: 'per-tensor', k_scale: 1 },
      rounding: { mha: 'vllm-fa3-prefill', mqa: 'vllm-triton-mla' },
    });
    expect(s.tolerances.default).toBeUndefined();
  });

  it('a narrower dtype or an fp8 cache is judged against noise floors unless the scenario sets its own default', () => {
    expect(parseScenario(base('dtype: bfloat16\n')).tolerances.default).toEqual({ floor: PRECISION_K });
    expect(parseScenario(base('kv_cache_dtype: fp8_e4m3\n')).tolerances.default).toEqual({ floor: PRECISION_K });
    expect(parseScenario(base('dtype: float16\ntolerances:\n  default: { rel: 0.01 }\n')).tolerances.default).toBe(0.01);
  });

  it('rope_angles: float32 (RoPE tables as engines compute them) is recorded and judged against noise floors', () => {
    const s = parseScenario(base('rope_angles: float32\n'));
    expect(s.precision.ropeAngles).toBe('float32');
    expect(s.tolerances.default).toEqual({ floor: PRECISION_K });
    expect(parseScenario(base('rope_angles: float64\n')).precision.ropeAngles).toBeUndefined();
    expect(parseError(base('rope_angles: float32\nschedule: { cold: off }\n')).code).toBe('invalid-value');
    expect(parseError(base('rope_angles: fp32\n')).code).toBe('invalid-value');
  });

  it('a decode preset names the mqa kernel, the prefill preset the mha one; lists of points are kept as given', () => {
    expect(parseScenario(base('dtype: bfloat16\nrounding: vllm-flashmla\n')).precision.rounding).toEqual({
      mha: 'vllm-fa3-prefill',
      mqa: 'vllm-flashmla',
    });
    expect(parseScenario(base('dtype: bfloat16\nrounding: { mqa: [ql_nope, lse] }\n')).precision.rounding).toEqual({
      mha: 'vllm-fa3-prefill',
      mqa: ['ql_nope', 'lse'],
    });
  });

  it('fp8 scales: a per-tensor k_scale, or per-token tiles of 128 where kv_lora_rank allows them', () => {
    const s = parseScenario(base('dtype: bfloat16\nkv_cache_dtype: fp8_e4m3\nkv_cache_scale: { k_scale: 0.25 }\n'));
    expect(s.precision.cacheScale).toEqual({ kind: 'per-tensor', k_scale: 0.25 });
    expect(parseScenario(base('kv_cache_dtype: fp8_e4m3\nkv_cache_scale: per-token\n', 'glm-5')).precision.cacheScale).toEqual({
      kind: 'per-token',
      tile: 128,
    });
  });

  it.each([
    ['an unknown dtype', 'dtype: float8\n', 'invalid-value', 'dtype'],
    ['a scale without an fp8 cache', 'kv_cache_scale: { k_scale: 2 }\n', 'invalid-value', 'kv_cache_scale'],
    [
      'per-token scales on a latent that is no multiple of 128',
      'kv_cache_dtype: fp8_e4m3\nkv_cache_scale: per-token\n',
      'invalid-value',
      'kv_cache_scale',
    ],
    ['a decode kernel given to mha', 'dtype: bfloat16\nrounding: { mha: vllm-triton-mla }\n', 'invalid-value', 'rounding.mha'],
    ['a prefill kernel given to mqa', 'dtype: bfloat16\nrounding: { mqa: vllm-fa3-prefill }\n', 'invalid-value', 'rounding.mqa'],
    ['an unknown rounding point', 'dtype: bfloat16\nrounding: { mqa: [ql_nope, softmax] }\n', 'invalid-value', 'rounding'],
    ['a second weight source in bf16', 'dtype: bfloat16\ncompare_weights: { synthetic: { seed: 1 } }\n', 'invalid-value', 'dtype'],
    [
      'a second weight source with an fp8 cache',
      'kv_cache_dtype: fp8_e4m3\ncompare_weights: { synthetic: { seed: 1 } }\n',
      'invalid-value',
      'kv_cache_dtype',
    ],
    ['floors with the cold path off', 'dtype: bfloat16\nschedule: { cold: off }\n', 'invalid-value', 'schedule.cold'],
  ])('refuses %s with a code and the field', (_what, extra, code, field) => {
    const e = parseError(base(extra));
    expect(e.code).toBe(code);
    expect(e.where.field).toContain(field);
    expect(e.where.line).toBeGreaterThan(0);
  });
});
