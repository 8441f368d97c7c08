import { basename } from 'node:path';
import { MlaDiffError } from '../../errors';
import { boundRows } from '../../formats/gguf/codecs';
import { boundFactor } from '../../formats/gguf/quant-bounds';
import { openGguf, readTensorBytes, readTensorF32 } from '../../formats/gguf/read';
import type { GgufModel, GgufTensorInfo } from '../../formats/gguf/types';
import type { MlaConfig } from '../../core/model/config';
import type { LayerTensor } from '../../core/weights/layer';
import { LAYER_TENSORS } from '../../core/weights/layer';
import type { CheckpointLayer, TensorReader } from './checkpoint-weights';
import { gatherRows } from './checkpoint-weights';
import { configFromGguf } from './config-gguf';
import type { LoaderFault } from './kv-b';
import { mergeKvB } from './kv-b';
import { GGUF_EMBEDDINGS, ggufKB, ggufName, ggufVB, layerIndices } from './names';
import { checkShape, expectedShape, kBShape, vBShape } from './shapes';

export interface GgufLayerOptions {
  layer: number;
  /** Fields that override the file's config (scenario `model:`). */
  overrides?: Partial<MlaConfig>;
  fault?: LoaderFault;
}

function tensorInfo(m: GgufModel, name: string, layer: number): GgufTensorInfo {
  const t = m.tensors.get(name);
  if (t) return t;
  const layers = layerIndices(m.tensors.keys());
  throw new MlaDiffError(
    'tensor-missing',
    `no tensor ${name}`,
    { file: m.files[0], field: name },
    layers.length
      ? `the file has layers ${layers[0]}–${layers[layers.length - 1]}${layers.includes(layer) ? '' : `, not ${layer}`}`
      : 'the file holds no blk.N.* tensors',
  );
}

/** A bound widened by a quantizer's factor (quant-bounds.ts); as is for 1. */
function scaled(b: Float32Array, factor: number): Float32Array {
  if (factor !== 1) for (let i = 0; i < b.length; i++) b[i] = b[i]! * factor;
  return b;
}

function reader(m: GgufModel, info: GgufTensorInfo): TensorReader {
  return {
    origin: { tensors: [info.name], dtype: info.type },
    values: () => readTensorF32(m, info.name),
    bound: () =>
      info.type === 'F32'
        ? null
        : scaled(
            boundRows(
              info.type,
              readTensorBytes(m, info.name),
              info.shape.reduce((a, b) => a * b, 1),
            ),
            boundFactor(m.metadata, info.type),
          ),
  };
}

/** The config of a GGUF file (metadata, then overrides), without reading any tensor data. */
export function ggufConfig(m: GgufModel, layer: number, overrides: Partial<MlaConfig> = {}): MlaConfig {
  const embd = m.tensors.get(GGUF_EMBEDDINGS);
  return { ...configFromGguf(m.metadata, m.files[0]!, layer, embd?.shape[0]), ...overrides };
}

/**
 * One MLA layer of a GGUF model: llama.cpp names, shapes checked against the config, kv_b_proj
 * from attn_kv_b or reassembled from the split attn_k_b / attn_v_b. Reads only this layer's tensors.
 */
export function openGgufLayer(path: string, opts: GgufLayerOptions): CheckpointLayer {
  const m = openGguf(path);
  const file = m.files[0]!;
  const { layer } = opts;
  const config = ggufConfig(m, layer, opts.overrides);
  const tensors = {} as Record<LayerTensor, TensorReader>;
  for (const t of LAYER_TENSORS) {
    if (t === 'kv_b_proj' && !m.tensors.has(ggufName(layer, t))) continue;
    const info = tensorInfo(m, ggufName(layer, t), layer);
    checkShape(file, info.name, info.shape, expectedShape(config, t), t);
    tensors[t] = reader(m, info);
  }
  if (!tensors.kv_b_proj) {
    const kb = tensorInfo(m, ggufKB(layer), layer);
    const vb = tensorInfo(m, ggufVB(layer), layer);
    checkShape(file, kb.name, kb.shape, kBShape(config), 'W_UK per head, transposed: [H, L, P]');
    checkShape(file, vb.name, vb.shape, vBShape(config), 'W_UV per head: [H, V, L]');
    const dims = { heads: config.num_attention_heads, nope: config.qk_nope_head_dim, v: config.v_head_dim, rank: config.kv_lora_rank };
    const k = reader(m, kb);
    const v = reader(m, vb);
    tensors.kv_b_proj = {
      origin: { tensors: [kb.name, vb.name], dtype: kb.type === vb.type ? kb.type : `${kb.type}+${vb.type}` },
      values: () => mergeKvB(k.values(), v.values(), dims, opts.fault),
      bound: () => {
        const [bk, bv] = [k.bound(), v.bound()];
        if (!bk && !bv) return null;
        return mergeKvB(
          bk ?? new Float32Array(kb.shape.reduce((a, b) => a * b, 1)),
          bv ?? new Float32Array(vb.shape.reduce((a, b) => a * b, 1)),
          dims,
          opts.fault,
        );
      },
    };
  } else if (opts.fault) {
    throw new MlaDiffError('invalid-value', `loader fault ${opts.fault} needs split attn_k_b / attn_v_b tensors`, {
      file,
      field: ggufName(layer, 'kv_b_proj'),
    });
  }
  const embd = tensorInfo(m, GGUF_EMBEDDINGS, layer);
  const H = config.hidden_size;
  checkShape(file, embd.name, embd.shape, [config.vocab_size, H], 'token embeddings [vocab, hidden]');
  return {
    label: `gguf ${basename(file)} layer ${layer}`,
    file,
    config,
    tensors,
    embeddingRows: (ids) => gatherRows(ids, H, (id) => readTensorF32(m, GGUF_EMBEDDINGS, [id, id + 1])),
    embeddingOrigin: { tensors: [embd.name], dtype: embd.type },
    embeddingBound: (ids) =>
      embd.type === 'F32'
        ? null
        : gatherRows(ids, H, (id) =>
            scaled(boundRows(embd.type, readTensorBytes(m, GGUF_EMBEDDINGS, [id, id + 1]), H), boundFactor(m.metadata, embd.type)),
          ),
  };
}
