import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { openGgufLayer } from '../checkpoints/checkpoint/gguf-layer';
import { openSafetensorsLayer } from '../checkpoints/checkpoint/safetensors-layer';
import type { CheckpointLayer } from '../checkpoints/checkpoint/checkpoint-weights';
import { openGguf, readTensorF32 as ggufTensor } from '../formats/gguf/read';
import { openSafetensors, readTensorF32 as stTensor } from '../formats/safetensors';
import { loadScenario } from '../harness/scenario/load';
import { listFiles, mirrorRoot, readSeed, ROOT, type Seed } from './corpus';
import { mutateBytes } from './mutate-bytes';
import { mutateText } from './mutate-tree';
import type { Rng } from './rng';
import type { Target } from './target';

/** Generated scenarios beside the shipped ones: the smallest valid one, and one with a schedule and a tokenizer. */
const GENERATED: Seed[] = [
  'name: g\nmodel: {preset: tiny}\nweights: {synthetic: {seed: 3}}\nprompt:\n  ids: [5, 17, 256, 999, 42]\n',
  'name: g2\nmodel: {preset: tiny}\nweights: {synthetic: {seed: 3}}\n' +
    'schedule: {block_size: 4, context_chunk: 5, kv_splits: 3}\n' +
    'requests:\n  - {name: chat, steps: [{prefill: 12, chunk: 5}, {decode: 3}]}\n' +
    '  - {name: hit, start_step: 1, steps: [{cached: 7}, {prefill: 6}]}\n',
].map((t, i) => ({ name: `scenarios/generated-${i}.yaml`, bytes: Buffer.from(t) }));

const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');

/** Mutated scenarios (shipped and generated), written beside the originals in a mirror of the project, loaded by path. */
export function loaderTarget(dir: string): Target {
  const files = listFiles('scenarios', /\.ya?ml$/);
  const seeds = [...files.map(readSeed), ...GENERATED];
  const dirs = [...new Set(files.map((f) => dirname(f)))];
  const mirror = mirrorRoot(join(dir, 'root'), dirs);
  return {
    name: 'loader',
    naming: { fieldOrLine: true },
    make(r) {
      const s = r.pick(seeds);
      const structured = r.chance(0.75);
      const bytes = structured ? Buffer.from(mutateText(r, text(s.bytes), 'yaml')) : mutateBytes(r, s.bytes, [], 1 << 20);
      const path = join(mirror, dirname(s.name), '__fuzz.yaml');
      writeFileSync(path, bytes);
      return { path, describe: `${s.name} ${structured ? 'yaml' : 'bytes'}` };
    },
    run: (path) => loadScenario(path),
  };
}

/** Every tensor the layer needs, its values and bounds, and a few embedding rows: what a run reads of a checkpoint. */
function readLayer(l: CheckpointLayer): void {
  for (const t of Object.values(l.tensors)) {
    t.values();
    t.bound();
  }
  l.embeddingRows([0, 1, 5]);
  l.embeddingBound([0, 1, 5]);
}

/** A checkpoint folder copied as symlinks with one file replaced by its mutation. */
function withMutated(r: Rng, dir: string, files: string[], mutate: (r: Rng, s: Seed) => Uint8Array): { path: string; name: string } {
  const out = join(dir, 'ckpt');
  mkdirSync(out, { recursive: true });
  const victim = r.pick(files);
  for (const f of files) {
    const to = join(out, basename(f));
    rmSync(to, { force: true });
    if (f === victim) writeFileSync(to, mutate(r, readSeed(f)));
    else symlinkSync(join(ROOT, f), to);
  }
  return { path: join(out, basename(files[0]!)), name: victim };
}

const GGUF_SETS = [
  ['fixtures/checkpoints/tiny-q8_0.gguf'],
  ['fixtures/checkpoints/small-q4_k-00001-of-00002.gguf', 'fixtures/checkpoints/small-q4_k-00002-of-00002.gguf'],
];

export function ggufTarget(dir: string): Target {
  const donors = GGUF_SETS.flat().map((f) => readSeed(f).bytes);
  return {
    name: 'gguf',
    naming: {},
    make(r) {
      const set = r.pick(GGUF_SETS);
      const { path, name } = withMutated(r, dir, set, (q, s) => mutateBytes(q, s.bytes, donors, 8192));
      return { path, describe: `${name} bytes` };
    },
    run(path) {
      const m = openGguf(path);
      for (const name of [...m.tensors.keys()].slice(0, 64)) ggufTensor(m, name, [0, 1]);
      readLayer(openGgufLayer(path, { layer: 0 }));
    },
  };
}

const ST_SETS = [
  ['fixtures/checkpoints/tiny-bf16/model.safetensors', 'fixtures/checkpoints/tiny-bf16/config.json'],
  [
    'fixtures/checkpoints/small-fp8/model.safetensors.index.json',
    'fixtures/checkpoints/small-fp8/model-00001-of-00002.safetensors',
    'fixtures/checkpoints/small-fp8/model-00002-of-00002.safetensors',
    'fixtures/checkpoints/small-fp8/config.json',
  ],
];

export function safetensorsTarget(dir: string): Target {
  return {
    name: 'safetensors',
    naming: {},
    make(r) {
      const set = r.pick(ST_SETS);
      const { path, name } = withMutated(r, dir, set, (q, s) =>
        s.name.endsWith('.json') && q.chance(0.7)
          ? Buffer.from(mutateText(q, text(s.bytes), 'json'))
          : mutateBytes(q, s.bytes, [], s.name.endsWith('.json') ? 1 << 20 : readFileSync(join(ROOT, s.name)).readUInt32LE(0) + 8),
      );
      return { path, describe: `${name} mutated` };
    },
    run(path) {
      const m = openSafetensors(path);
      for (const name of [...m.tensors.keys()].slice(0, 64)) stTensor(m, name, [0, 1]);
      readLayer(openSafetensorsLayer(path, { layer: 0 }));
    },
  };
}
