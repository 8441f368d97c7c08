import type { EngineSpec, SourceSpec } from '../../trace';
import type { HeadSlice, WeightSource } from '../../core/weights/layer';
import { slicedSource } from '../../core/weights/sliced';
import type { GgmlType } from '../../formats/gguf/ggml-types';
import { writeEngineModel } from '../../engines/llamacpp/model-gguf';
import { extractLayer } from '../../engines/llamacpp/extract';

/**
 * The model llama.cpp loads for a case. From a GGUF checkpoint (every head, no plants, no config
 * overrides): the layer extracted with its original bytes and quant types, so llama.cpp runs the
 * user's exact tensors through its own dequantization while our paths read the same ones. Else our
 * F32 writer's runnable model of the case's head slice, plants applied to it only.
 */
export interface EngineModelChoice {
  graph: 'absorbed' | 'legacy';
  arch: EngineSpec['arch'];
  filled: string[];
  planted: string[];
  /** What llama.cpp's CPU matmuls round the activations to for these weights (ggml's vec_dot_type). */
  activation: ActivationType;
}

export type ActivationType = 'f32' | 'f16' | 'bf16' | 'q8_0' | 'q8_k';

/** ggml's vec_dot_type on the CPU: the type src1 (the activations) is converted to for a product with weights of type t. */
export function activationFor(t: GgmlType): ActivationType {
  if (t === 'F32') return 'f32';
  if (t === 'F16') return 'f16';
  if (t === 'BF16') return 'bf16';
  if (t.endsWith('_K') || t === 'IQ4_XS' || t.startsWith('IQ1') || t.startsWith('IQ2') || t.startsWith('IQ3')) return 'q8_k';
  return 'q8_0';
}

const RANK: Record<ActivationType, number> = { f32: 0, f16: 1, bf16: 2, q8_0: 3, q8_k: 4 };

export function engineModel(
  path: string,
  spec: EngineSpec,
  c: { source: WeightSource; weights?: SourceSpec; heads: HeadSlice },
  contextLength: number,
): EngineModelChoice {
  const w = c.weights;
  const whole = c.heads.start === 0 && c.heads.count === c.source.config.num_attention_heads;
  if (w?.kind === 'gguf' && whole && !spec.plants.length && !Object.keys(w.overrides ?? {}).length && !w.fault) {
    const r = extractLayer(w.file, { layer: w.layer, output: path, force: true });
    const types = r.kept.filter((k) => /attn_(q_a|q_b|kv_a_mqa|k_b|v_b|kv_b|output)\.weight$/.test(k.name)).map((k) => k.type);
    const activation = types.map(activationFor).reduce<ActivationType>((a, b) => (RANK[b] > RANK[a] ? b : a), 'f32');
    return {
      graph: r.kept.some((k) => k.name.endsWith('attn_k_b.weight')) ? 'absorbed' : 'legacy',
      arch: r.arch,
      filled: [`layer ${w.layer} of ${w.file}: ${[...new Set(types)].join(', ')} as stored`, ...r.filled],
      planted: [],
      activation,
    };
  }
  const m = writeEngineModel(path, {
    source: slicedSource(c.source, c.heads),
    arch: spec.arch,
    contextLength,
    kvB: spec.kvB,
    plants: spec.plants,
  });
  return { graph: spec.kvB === 'split' ? 'absorbed' : 'legacy', arch: spec.arch, ...m, activation: 'f32' };
}
