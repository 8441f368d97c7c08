import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { HF_MLA_TYPES, configFromHf, fp8BlockSize, readConfigJson } from '../checkpoint/config-hf';
import { layerIndices } from '../checkpoint/names';
import { checkpointDir } from '../checkpoint/safetensors-layer';
import { isMlaDiffError } from '../../errors';
import { INDEX_FILE, openSafetensors } from '../../formats/safetensors';
import type { SafetensorsModel } from '../../formats/safetensors';
import { attentionByLayer, kvBLayout, layerPatterns } from './layers';
import { shapeIssues, tryConfig } from './mla';
import { tokenizerJsonFacts } from './tokenizer-json';
import type { HeaderReport, InspectIssue, MlaFacts } from './types';
import { INSPECT_VERSION } from './types';

/** The index openSafetensors reads for `path`, if any (its own preference order). */
function indexOf(path: string): string | null {
  const p = resolve(path);
  if (!statSync(p).isDirectory()) return p.endsWith('.json') ? p : null;
  const names = readdirSync(p)
    .filter((n) => n.endsWith('.safetensors.index.json'))
    .sort();
  if (names.includes(INDEX_FILE)) return join(p, INDEX_FILE);
  return names.length === 1 ? join(p, names[0]!) : null;
}

interface ConfigFacts {
  architecture: string | null;
  isMla: boolean;
  mla: MlaFacts | null;
  declared: number | null;
  json: Record<string, unknown> | null;
}

/** config.json: architecture (model_type), layer count and, for MLA types, the MLA config. */
function configFacts(file: string, issues: InspectIssue[]): ConfigFacts {
  const none: ConfigFacts = { architecture: null, isMla: false, mla: null, declared: null, json: null };
  if (!existsSync(file)) {
    issues.push({
      severity: 'warning',
      code: 'file-not-found',
      file,
      message: 'no config.json beside the checkpoint: the architecture and MLA dims are unknown',
      hint: 'a Hugging Face checkpoint directory holds config.json next to the *.safetensors files',
    });
    return none;
  }
  let j: Record<string, unknown>;
  try {
    j = readConfigJson(file);
  } catch (e) {
    if (!isMlaDiffError(e)) throw e;
    issues.push({ severity: 'error', code: e.code, file, message: e.message });
    return none;
  }
  const architecture = typeof j.model_type === 'string' ? j.model_type : null;
  const isMla = architecture !== null && (HF_MLA_TYPES as readonly string[]).includes(architecture);
  const declared = typeof j.num_hidden_layers === 'number' ? j.num_hidden_layers : null;
  if (!isMla) {
    issues.push({
      severity: 'warning',
      code: 'checkpoint-invalid',
      file,
      field: 'model_type',
      message: `model_type is ${JSON.stringify(architecture)}: not an MLA model, so mla-diff cannot run it`,
      hint: `MLA model types: ${HF_MLA_TYPES.join(', ')}`,
    });
    return { ...none, architecture, declared, json: j };
  }
  return { architecture, isMla, mla: tryConfig(() => configFromHf(j, file), 0, issues), declared, json: j };
}

/**
 * The header facts of a safetensors checkpoint (a file, an index or a directory) and its
 * config.json / tokenizer.json: no tensor data is read.
 */
export function inspectSafetensors(path: string, layer?: number): HeaderReport {
  const m: SafetensorsModel = openSafetensors(path);
  const dir = checkpointDir(resolve(path));
  const configFile = join(dir, 'config.json');
  const issues: InspectIssue[] = [];
  const cfg = configFacts(configFile, issues);
  const tensors = [...m.tensors.values()].map((t) => ({ name: t.name, type: t.dtype, shape: t.shape, bytes: t.bytes }));
  const byLayer = attentionByLayer(tensors, 'hf');
  const shown = layer !== undefined && byLayer.has(layer) ? layer : [...byLayer.keys()][0];
  const patterns = layerPatterns(byLayer);
  const mla = cfg.mla && { ...cfg.mla, configLayer: shown ?? 0 };
  if (mla) issues.push(...shapeIssues(patterns, mla.config, 'hf', m.files[0]!));
  const files = m.files.map((f) => ({ path: f, bytes: statSync(f).size }));
  const fp8 = tensors.some((t) => t.type === 'F8_E4M3');
  return {
    format: 'mla-diff/inspect',
    version: INSPECT_VERSION,
    path,
    container: {
      kind: 'safetensors',
      index: indexOf(path),
      config: cfg.json ? configFile : null,
      metadata: m.metadata,
      fp8Block: fp8 ? fp8BlockSize(cfg.json ?? {}, configFile) : null,
    },
    files,
    totalBytes: files.reduce((a, f) => a + f.bytes, 0),
    tensorCount: m.tensors.size,
    architecture: cfg.architecture,
    isMla: cfg.isMla,
    mla,
    kvB: kvBLayout(byLayer),
    layers: { declared: cfg.declared, present: layerIndices(m.tensors.keys()), attention: [...byLayer.keys()] },
    attention: shown === undefined ? null : { layer: shown, tensors: byLayer.get(shown)! },
    patterns,
    tokenizer: tokenizerJsonFacts(dir, issues),
    issues,
  };
}
