import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { MlaDiffError } from '../../errors';
import { openSafetensors, readTensorF32, readWeightF32, weightBoundF32 } from '../../formats/safetensors';
import type { SafetensorsModel } from '../../formats/safetensors';
import type { MlaConfig } from '../../core/model/config';
import type { LayerTensor } from '../../core/weights/layer';
import { LAYER_TENSORS } from '../../core/weights/layer';
import type { CheckpointLayer, TensorReader } from './checkpoint-weights';
import { gatherRows } from './checkpoint-weights';
import { configFromHf, fp8BlockSize, readConfigJson } from './config-hf';
import { HF_EMBEDDINGS, hfName, hfScaleName, layerIndices } from './names';
import { checkShape, expectedShape } from './shapes';

export interface SafetensorsLayerOptions {
  layer: number;
  overrides?: Partial<MlaConfig>;
}

/** The directory of a checkpoint given as a file, an index or a directory: config.json lives there. */
export function checkpointDir(path: string): string {
  return existsSync(path) && statSync(path).isDirectory() ? path : dirname(path);
}

/** The config.json a safetensors checkpoint (file, index or directory) is read with. */
export const configJsonOf = (path: string): string => join(checkpointDir(path), 'config.json');

export function safetensorsConfig(path: string, overrides: Partial<MlaConfig> = {}): { config: MlaConfig; block: [number, number] } {
  const file = configJsonOf(path);
  const j = readConfigJson(file);
  return { config: { ...configFromHf(j, file), ...overrides }, block: fp8BlockSize(j, file) };
}

function tensorOf(m: SafetensorsModel, name: string, layer: number, path: string) {
  const t = m.tensors.get(name);
  if (t) return t;
  const layers = layerIndices(m.tensors.keys());
  throw new MlaDiffError(
    'tensor-missing',
    `no tensor ${name}`,
    { file: m.files[0] ?? path, field: name },
    layers.length
      ? `the checkpoint has layers ${layers[0]}–${layers[layers.length - 1]}${layers.includes(layer) ? '' : `, not ${layer}`}`
      : 'it holds no model.layers.N.* tensors',
  );
}

/**
 * One MLA layer of a Hugging Face safetensors checkpoint (single file, or shards with
 * model.safetensors.index.json): F32/F16/BF16, and F8_E4M3 with `weight_scale_inv` block scales.
 */
export function openSafetensorsLayer(path: string, opts: SafetensorsLayerOptions): CheckpointLayer {
  const { config, block } = safetensorsConfig(path, opts.overrides);
  const m = openSafetensors(path);
  const file = m.files[0] ?? path;
  const { layer } = opts;
  const tensors = {} as Record<LayerTensor, TensorReader>;
  for (const t of LAYER_TENSORS) {
    const info = tensorOf(m, hfName(layer, t), layer, path);
    checkShape(file, info.name, info.shape, expectedShape(config, t), t);
    const scale = m.tensors.get(hfScaleName(info.name));
    const names = scale ? [info.name, scale.name] : [info.name];
    tensors[t] = {
      origin: { tensors: names, dtype: scale ? `${info.dtype}×${block[0]}x${block[1]}` : info.dtype },
      values: () => readWeightF32(m, info.name, block),
      bound: () => (info.dtype === 'F32' ? null : weightBoundF32(m, info.name, block)),
    };
  }
  const embd = tensorOf(m, HF_EMBEDDINGS, layer, path);
  const H = config.hidden_size;
  checkShape(file, embd.name, embd.shape, [config.vocab_size, H], 'token embeddings [vocab, hidden]');
  const row = (id: number) => readTensorF32(m, HF_EMBEDDINGS, [id, id + 1]);
  return {
    label: `safetensors ${basename(path)} layer ${layer}`,
    file,
    config,
    tensors,
    embeddingRows: (ids) => gatherRows(ids, H, row),
    embeddingOrigin: { tensors: [embd.name], dtype: embd.dtype },
    embeddingBound: (ids) =>
      embd.dtype === 'F32' ? null : gatherRows(ids, H, (id) => weightBoundF32(m, HF_EMBEDDINGS, block, [id, id + 1])),
  };
}
