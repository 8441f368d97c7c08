import type { ToleranceSpec } from '../compare/tolerance';
import type { MlaConfig } from '../../core/model/config';
import type {
  ActivationDtype,
  CacheScale,
  KernelPreset,
  KvCacheDtype,
  PathRounding,
  PrecisionSpec,
  RoundPoint,
} from '../../core/precision/plan';
import { rounds } from '../../core/precision/plan';
import { fail } from './fail';
import type { ScenarioFile } from './schema';
import type { YamlSource } from './yaml-source';

/** Kernels of each path: FlashAttention prefill computes MHA; Triton MLA and FlashMLA decode MQA. */
const MHA_PRESETS: readonly KernelPreset[] = ['vllm-fa3-prefill'];
const MQA_PRESETS: readonly KernelPreset[] = ['vllm-triton-mla', 'vllm-flashmla'];

/** fp8_ds_mla quantizes kv_c_normed in tiles of 128 values, one fp32 scale each. */
const DS_MLA_TILE = 128;

/**
 * The multiple of the noise floor a scenario in a narrower dtype is judged with by default (chosen
 * from the precision calibration: clean bf16/fp16/fp8 runs stay under 2.3 floors, planted faults far above).
 */
export const PRECISION_K = 8;

function pathRounding(r: PathRounding | undefined, path: 'mha' | 'mqa', src: YamlSource): PathRounding {
  const own = path === 'mha' ? MHA_PRESETS : MQA_PRESETS;
  if (r === undefined) return own[0]!;
  if (typeof r === 'string' && !own.includes(r)) {
    fail(
      src,
      'invalid-value',
      ['rounding', path],
      `${r} is not a kernel of the ${path} path`,
      `${path}: ${own.join(' | ')}, or a list of rounding points`,
    );
  }
  return r;
}

/** `dtype:`, `kv_cache_dtype:`, `kv_cache_scale:`, `rounding:` resolved and checked against the model. */
export function resolvePrecision(f: ScenarioFile, config: MlaConfig, src: YamlSource): PrecisionSpec {
  const kvCache = f.kv_cache_dtype as KvCacheDtype;
  const scale = f.kv_cache_scale;
  if (scale !== undefined && kvCache !== 'fp8_e4m3') {
    fail(
      src,
      'invalid-value',
      ['kv_cache_scale'],
      'kv_cache_scale: only applies to an fp8 cache',
      'set kv_cache_dtype: fp8_e4m3, or remove kv_cache_scale:',
    );
  }
  let cacheScale: CacheScale = { kind: 'per-tensor', k_scale: 1 };
  if (scale === 'per-token') {
    if (config.kv_lora_rank % DS_MLA_TILE !== 0) {
      fail(
        src,
        'invalid-value',
        ['kv_cache_scale'],
        `per-token scales quantize kv_c_normed in tiles of ${DS_MLA_TILE}; kv_lora_rank ${config.kv_lora_rank} is not a multiple`,
        'use {k_scale: x} (one per-tensor scale) for this model',
      );
    }
    cacheScale = { kind: 'per-token', tile: DS_MLA_TILE };
  } else if (scale) cacheScale = { kind: 'per-tensor', k_scale: scale.k_scale };
  if ((f.dtype !== 'float32' || f.kv_cache_dtype !== 'auto') && f.compare_weights) {
    const key = f.dtype !== 'float32' ? 'dtype' : 'kv_cache_dtype';
    fail(
      src,
      'invalid-value',
      [key],
      'compare_weights: measures two weight sources against their quantization bounds in float32; ' +
        `${key}: ${f[key]} is not supported with it`,
      'compare the two weight sources in a float32 scenario, and run the precision check on one source',
    );
  }
  const r = f.rounding;
  const given = typeof r === 'string' ? (MHA_PRESETS.includes(r as KernelPreset) ? { mha: r } : { mqa: r }) : (r ?? {});
  return {
    dtype: f.dtype as ActivationDtype,
    kvCache,
    cacheScale,
    rounding: {
      mha: pathRounding(given.mha as PathRounding | undefined, 'mha', src),
      mqa: pathRounding(given.mqa as KernelPreset | RoundPoint[] | undefined, 'mqa', src),
    },
    ...(f.rope_angles === 'float32' ? { ropeAngles: 'float32' as const } : {}),
  };
}

/**
 * A scenario that rounds is judged against noise floors unless it sets its own default: the floor
 * of each record is the error of the cold path, rounding where FlashAttention prefill does, against float64.
 * So is one whose paths compute RoPE angles in fp32 (rope_angles: float32): their error grows with the position
 * (7e-4 at 131k) and the cold path, rotating with the same tables, measures it.
 */
export function precisionTolerances(spec: ToleranceSpec, p: PrecisionSpec, f: ScenarioFile, src: YamlSource): ToleranceSpec {
  if ((!rounds(p) && p.ropeAngles !== 'float32') || spec.default !== undefined) return spec;
  if (f.schedule.cold === 'off') {
    fail(
      src,
      'invalid-value',
      ['schedule', 'cold'],
      `a ${!rounds(p) ? 'rope_angles: float32' : p.dtype === 'float32' ? 'fp8-cache' : p.dtype} scenario is judged against ` +
        'noise floors measured by the cold path, ' +
        'which cold: off switches off',
      'use cold: auto, or give tolerances: {default: {rel: x}}',
    );
  }
  return { ...spec, default: { floor: PRECISION_K } };
}
