import { statSync } from 'node:fs';
import { MLA_ARCHS } from '../checkpoint/config-gguf';
import { ggufConfig } from '../checkpoint/gguf-layer';
import { layerIndices } from '../checkpoint/names';
import { metaValue, openGguf } from '../../formats/gguf/read';
import type { GgufModel, GgufValue } from '../../formats/gguf/types';
import { attentionByLayer, kvBLayout, layerPatterns } from './layers';
import { shapeIssues, tryConfig } from './mla';
import type { HeaderReport, InspectIssue, MlaFacts, TokenizerFacts } from './types';
import { INSPECT_VERSION } from './types';

const count = (v: GgufValue | undefined): number | null => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : null);

function tokenizerOf(m: GgufModel): TokenizerFacts {
  const model = metaValue(m, 'tokenizer.ggml.model');
  const pre = metaValue(m, 'tokenizer.ggml.pre');
  const tokens = metaValue(m, 'tokenizer.ggml.tokens');
  const merges = metaValue(m, 'tokenizer.ggml.merges');
  const present = typeof model === 'string' || Array.isArray(tokens);
  return {
    present,
    source: present ? 'gguf' : null,
    ...(typeof model === 'string' ? { model } : {}),
    ...(typeof pre === 'string' ? { pre } : {}),
    ...(Array.isArray(tokens) ? { tokens: tokens.length } : {}),
    ...(Array.isArray(merges) ? { merges: merges.length } : {}),
  };
}

/**
 * The header facts of a GGUF file or split (any shard names the whole split): no tensor data is
 * read. `layer` picks the layer whose tensors are tabulated and whose config is read.
 */
export function inspectGguf(path: string, layer?: number): HeaderReport {
  const m = openGguf(path);
  const file = m.files[0]!;
  const issues: InspectIssue[] = [];
  const arch = metaValue(m, 'general.architecture');
  const architecture = typeof arch === 'string' ? arch : null;
  const isMla = architecture !== null && (MLA_ARCHS as readonly string[]).includes(architecture);
  const byLayer = attentionByLayer(m.tensors.values(), 'gguf');
  const shown = layer !== undefined && byLayer.has(layer) ? layer : [...byLayer.keys()][0];
  const patterns = layerPatterns(byLayer);
  let mla: MlaFacts | null = null;
  if (!isMla) {
    issues.push({
      severity: 'warning',
      code: 'checkpoint-invalid',
      file,
      field: 'general.architecture',
      message: `general.architecture is ${JSON.stringify(architecture)}: not an MLA model, so mla-diff cannot run it`,
      hint: `MLA architectures: ${MLA_ARCHS.join(', ')} (GLM-5, DeepSeek-V2/V3)`,
    });
  } else {
    mla = tryConfig(() => ggufConfig(m, shown ?? 0), shown ?? 0, issues);
    if (mla) issues.push(...shapeIssues(patterns, mla.config, 'gguf', file));
  }
  const files = m.files.map((f) => ({ path: f, bytes: statSync(f).size }));
  return {
    format: 'mla-diff/inspect',
    version: INSPECT_VERSION,
    path,
    container: { kind: 'gguf', version: m.version, alignment: m.alignment, metadataKeys: m.metadata.size },
    files,
    totalBytes: m.totalBytes,
    tensorCount: m.tensors.size,
    architecture,
    isMla,
    mla,
    kvB: kvBLayout(byLayer),
    layers: {
      declared: architecture ? count(metaValue(m, `${architecture}.block_count`)) : null,
      present: layerIndices(m.tensors.keys()),
      attention: [...byLayer.keys()],
    },
    attention: shown === undefined ? null : { layer: shown, tensors: byLayer.get(shown)! },
    patterns,
    tokenizer: tokenizerOf(m),
    issues,
  };
}
