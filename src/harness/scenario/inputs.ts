/**
 * Every file a scenario's run reads, so that no output of the run is written over one of them
 * (src/surface/cli/io/output-path.ts). Pure: paths only, listed by name; a directory among them (a
 * safetensors checkpoint given as its folder) is expanded by the caller, which may read it.
 */
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parseShardName, shardPath } from '../../formats/gguf/split';
import { INDEX_FILE } from '../../formats/safetensors/open';
import type { SourceSpec } from '../../trace/scenario';
import type { Scenario } from './scenario';

/** The most shards of a split GGUF listed by name: real splits have tens; a name claiming more lists itself only. */
const MAX_SHARDS = 4096;

/** The directory relative paths of a scenario are read from: the scenario file's, else the working directory. */
const baseDir = (file: string | null | undefined): string => (!file || file.startsWith('<') ? process.cwd() : dirname(resolve(file)));

const at = (base: string, p: string): string => (isAbsolute(p) ? p : resolve(base, p));

/** The files a checkpoint's folder holds beside its weights: the config and the tokenizer the loader reads. */
const besideCheckpoint = (dir: string): string[] =>
  ['config.json', 'tokenizer.json', 'tokenizer_config.json', INDEX_FILE].map((n) => join(dir, n));

/** A .gguf file with its split's other shards, or a .safetensors file, index or folder with its config and tokenizer. */
export function checkpointInputs(kind: 'gguf' | 'safetensors', file: string): string[] {
  if (kind === 'gguf') {
    const shard = parseShardName(file);
    if (!shard || shard.count > MAX_SHARDS) return [file];
    return Array.from({ length: shard.count }, (_, i) => shardPath(shard.base, i + 1, shard.count));
  }
  const dir = /\.(safetensors|json)$/i.test(file) ? dirname(file) : file;
  return [file, ...besideCheckpoint(dir)];
}

/** A tokenizer: a .gguf's vocabulary, or a tokenizer.json with the tokenizer_config.json beside it. */
export const tokenizerInputs = (file: string): string[] =>
  /\.gguf$/i.test(file) ? checkpointInputs('gguf', file) : [file, join(dirname(file), 'tokenizer_config.json')];

const sourceInputs = (s: SourceSpec | undefined): string[] => (s && s.kind !== 'synthetic' ? checkpointInputs(s.kind, s.file) : []);

/** Words of an external command that name files (`node examples/backends/node-mla.mjs`): read by the backend. */
export function commandFiles(command: string, cwd: string): string[] {
  // words as a shell splits them, quotes kept together ("my backend.py"); $VARS and globs are not expanded
  return [...command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)]
    .map((m) => m[1] ?? m[2] ?? m[3] ?? '')
    .filter((w) => w.length > 0 && !w.startsWith('-') && /[/\\]|\.[A-Za-z0-9]{1,8}$/.test(w))
    .map((w) => at(cwd, w));
}

const field = (o: unknown, k: string): unknown =>
  o !== null && typeof o === 'object' && !Array.isArray(o) ? (o as Record<string, unknown>)[k] : undefined;
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The paths a scenario's YAML names that its resolved form no longer holds: `tolerances: {file:}`
 * and `weights.tokenizer:` (also under compare_weights:), relative to `base`. Also a sweep point's.
 */
export function rawScenarioInputs(raw: unknown, base: string): string[] {
  const out: string[] = [];
  const tolerances = text(field(field(raw, 'tolerances'), 'file'));
  if (tolerances) out.push(at(base, tolerances));
  for (const w of ['weights', 'compare_weights']) {
    const src = field(raw, w);
    const tokenizer = text(field(src, 'tokenizer'));
    if (tokenizer) out.push(...tokenizerInputs(at(base, tokenizer)));
    for (const kind of ['gguf', 'safetensors'] as const) {
      const p = text(field(src, kind));
      if (p) out.push(...checkpointInputs(kind, at(base, p)));
    }
  }
  const trace = text(field(field(raw, 'trace'), 'file'));
  if (trace) out.push(at(base, trace));
  const command = text(field(field(raw, 'external'), 'command'));
  if (command) out.push(...commandFiles(command, base));
  return out;
}

/**
 * Every file a run of `s` reads: the scenario file, its checkpoints (every shard of a split GGUF,
 * a safetensors checkpoint's config, index and tokenizer), the second source of compare_weights:,
 * a trace dump, the files an external command names and, from its YAML (`raw`, when given), the
 * tolerances file and a tokenizer. Absolute paths, each once, in that order.
 */
export function scenarioInputs(s: Scenario, raw?: unknown): string[] {
  const base = baseDir(s.file);
  const all = [
    ...(s.file && !s.file.startsWith('<') ? [resolve(s.file)] : []),
    ...sourceInputs(s.weights),
    ...sourceInputs(s.compareWeights),
    ...(s.trace?.file ? [at(base, s.trace.file)] : []),
    ...(s.external?.command ? commandFiles(s.external.command, base) : []),
    ...(raw === undefined ? [] : rawScenarioInputs(raw, base)),
  ];
  return [...new Set(all)];
}
