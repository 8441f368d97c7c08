import { existsSync } from 'node:fs';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { ggufConfig } from '../../checkpoints/checkpoint/gguf-layer';
import type { LoaderFault } from '../../checkpoints/checkpoint/kv-b';
import { checkpointDir, configJsonOf, safetensorsConfig } from '../../checkpoints/checkpoint/safetensors-layer';
import type { LayerTensor } from '../../core/weights/layer';
import { openGguf } from '../../formats/gguf/read';
import type { MlaConfig } from '../../core/model/config';
import { CONFIG_KEYS } from '../../core/model/config';
import { preset } from '../../core/model/presets';
import { tokenizerFromFile, tokenizerFromGguf, tokenizerFromJson } from '../../checkpoints/tokenizer';
import type { TextTokenizer } from '../../checkpoints/tokenizer';
import type { SourceSpec } from '../../checkpoints/checkpoint/source';
import { fixtureOnDemand } from '../../checkpoints/checkpoint/fixture-cache';
import { fail } from './fail';
import { once, syntheticVocab } from './tokenizer';
import type { ScenarioFile } from './schema';
import type { YamlSource } from './yaml-source';

type WeightsField = NonNullable<ScenarioFile['compare_weights']>;
type Overrides = Partial<MlaConfig>;

export interface ResolvedWeights {
  config: MlaConfig;
  /** The preset name, or `gguf:deepseek2` / `safetensors` for a checkpoint's own config. */
  presetLabel: string;
  seed: number;
  weights: SourceSpec;
  compare?: SourceSpec;
  /** weights.tokenizer: (a tokenizer.json or a .gguf's vocabulary), else the checkpoint's own; built on first use. */
  tokenizer: () => TextTokenizer | undefined;
}

/** Config values equal up to float32 storage (GGUF keeps rms_norm_eps and rope_theta as FLOAT32). */
function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b || Math.abs(a - b) <= 1e-6 * Math.max(Math.abs(a), Math.abs(b));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    return (
      ka.length === Object.keys(b).length &&
      ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
    );
  }
  return a === b;
}

const kindOf = (w: WeightsField): ('synthetic' | 'gguf' | 'safetensors')[] =>
  (['synthetic', 'gguf', 'safetensors'] as const).filter((k) => w[k] !== undefined);

/** A checkpoint path from the scenario, relative to the scenario file; a missing one is reported at its line. */
function checkpointPath(src: YamlSource, path: PropertyKey[], rel: string): string {
  const base = src.file.startsWith('<') ? process.cwd() : dirname(resolvePath(src.file));
  const abs = resolvePath(base, rel);
  if (!existsSync(abs)) {
    const cached = fixtureOnDemand(abs); // a shipped scenario's fixture, written into the cache on first use
    if (cached) return cached;
    fail(
      src,
      'file-not-found',
      path,
      `no such file: ${abs}`,
      rel.includes('fixtures/checkpoints')
        ? 'write the checkpoint fixtures with `mla-diff fixtures DIR` (`npm run fixtures` in the repository)'
        : 'paths are relative to the scenario file',
    );
  }
  return abs;
}

function spec(
  src: YamlSource,
  field: 'weights' | 'compare_weights',
  w: WeightsField,
  overrides: Overrides,
  synthConfig: () => MlaConfig,
): SourceSpec {
  const kinds = kindOf(w);
  if (kinds.length !== 1) {
    fail(
      src,
      'invalid-value',
      [field],
      kinds.length ? `give one of ${kinds.join(', ')}, not ${kinds.length}` : 'give one of synthetic:, gguf:, safetensors:',
      'synthetic: {seed: 0} for generated weights; gguf: FILE or safetensors: PATH for a checkpoint',
    );
  }
  const layer = w.layer ?? 0;
  const fault = w.loader_fault as LoaderFault | undefined;
  if (kinds[0] === 'synthetic') {
    for (const k of ['layer', 'loader_fault'] as const)
      if (w[k] !== undefined) fail(src, 'invalid-value', [field, k], `${k} applies to a checkpoint, not to synthetic weights`);
    const gain = w.synthetic!.gain as Partial<Record<LayerTensor, number>> | undefined;
    return { kind: 'synthetic', config: synthConfig(), seed: w.synthetic!.seed, ...(gain ? { gain } : {}) };
  }
  if (kinds[0] === 'gguf') {
    return { kind: 'gguf', file: checkpointPath(src, [field, 'gguf'], w.gguf!), layer, overrides, ...(fault ? { fault } : {}) };
  }
  if (fault)
    fail(
      src,
      'invalid-value',
      [field, 'loader_fault'],
      `${fault} is a fault of the GGUF attn_k_b reassembly`,
      'use it with gguf: weights that split attn_k_b / attn_v_b',
    );
  const file = checkpointPath(src, [field, 'safetensors'], w.safetensors!);
  const config = configJsonOf(file);
  if (!existsSync(config))
    fail(
      src,
      'file-not-found',
      [field, 'safetensors'],
      `no config.json beside the safetensors checkpoint (${config})`,
      'a Hugging Face checkpoint directory holds config.json next to the *.safetensors files',
    );
  return { kind: 'safetensors', file, layer, overrides };
}

/** The config a source spec runs with (a checkpoint's header and config.json only; no tensor data). */
function configOf(s: SourceSpec): MlaConfig {
  if (s.kind === 'synthetic') return s.config;
  if (s.kind === 'gguf') return ggufConfig(openGguf(s.file), s.layer, s.overrides);
  return safetensorsConfig(s.file, s.overrides).config;
}

/** The checkpoint's own vocabulary: a GGUF's tokenizer.ggml.*, or tokenizer.json beside the safetensors. */
function checkpointTokenizer(s: SourceSpec): TextTokenizer | undefined {
  if (s.kind === 'gguf') {
    const m = openGguf(s.file);
    return m.metadata.has('tokenizer.ggml.tokens') ? tokenizerFromGguf(m.metadata, s.file) : undefined;
  }
  if (s.kind === 'safetensors') {
    const json = join(checkpointDir(s.file), 'tokenizer.json');
    return existsSync(json) ? tokenizerFromJson(json) : undefined;
  }
  return undefined;
}

/** weights:, compare_weights: and model: together: which config runs and where every weight comes from. */
export function resolveWeights(f: ScenarioFile, src: YamlSource): ResolvedWeights {
  const { preset: presetName, ...overrides } = f.model;
  const checkpoint = f.weights.synthetic === undefined;
  if (checkpoint && presetName !== undefined) {
    fail(
      src,
      'invalid-value',
      ['model', 'preset'],
      'a checkpoint brings its own config; preset: applies to synthetic weights',
      'remove preset:, keep model: fields only to override the checkpoint config',
    );
  }
  if (!checkpoint && presetName === undefined)
    fail(
      src,
      'invalid-type',
      ['model', 'preset'],
      'missing required field (a preset for synthetic weights)',
      'presets: glm-5, deepseek-v3, tiny',
    );
  const given = f.weights.tokenizer;
  const named = given === undefined ? undefined : once(() => tokenizerFromFile(checkpointPath(src, ['weights', 'tokenizer'], given)));
  const synth = () => {
    const c = { ...preset(presetName!), ...overrides } as MlaConfig;
    return named ? syntheticVocab(c, overrides.vocab_size, named(), src) : c;
  };
  const weights = spec(src, 'weights', f.weights, overrides as Overrides, synth);
  const config = configOf(weights);
  const compare = f.compare_weights && spec(src, 'compare_weights', f.compare_weights, overrides as Overrides, () => config);
  if (compare) {
    const other = configOf(compare);
    const differ = CONFIG_KEYS.filter((k) => !sameValue(other[k], config[k]));
    if (differ.length) {
      fail(
        src,
        'invalid-value',
        ['compare_weights'],
        `its config differs from weights: in ${differ.join(', ')}`,
        'compare two sources of the same layer of the same model',
      );
    }
  }
  const tokenizer = named ?? once(() => checkpointTokenizer(weights));
  const seed = weights.kind === 'synthetic' ? weights.seed : 0;
  return { config, presetLabel: presetName ?? weights.kind, seed, weights, ...(compare ? { compare } : {}), tokenizer };
}
