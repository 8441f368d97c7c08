import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { tokenizerFromFile } from '../checkpoints/tokenizer/from-file';
import { preset } from '../core/model/presets';
import { writeSafetensors } from '../formats/safetensors';
import { importTrace } from '../harness/external/trace-import';
import { loadRunReport } from '../harness/golden/load-report';
import { compareRuns } from '../harness/golden/compare-runs';
import type { TraceSpec } from '../trace';
import { listFiles, readSeed, ROOT, type Seed } from './corpus';
import { mutateBytes } from './mutate-bytes';
import { HOSTILE, mutateText } from './mutate-tree';
import type { Rng } from './rng';
import type { Target } from './target';

const text = (b: Uint8Array) => Buffer.from(b).toString('utf8');
const mutateJson = (r: Rng, s: Seed): Uint8Array =>
  r.chance(0.75) ? Buffer.from(mutateText(r, text(s.bytes), 'json')) : mutateBytes(r, s.bytes, [], 1 << 20);

/** Texts every tokenizer encodes: ASCII, a special-token string, wide and combining characters, lone surrogates, a long run. */
const TEXTS = ['seven tokens', '<|begin_of_text|>hi', '日本語 👩‍👩‍👧 e\u0301', '\ud800x\udfff', 'ab'.repeat(5000), ''];

/** tokenizer.json / tokenizer_config.json (one of them mutated) of the shipped tokenizers, and GGUF vocabularies. */
export function tokenizerTarget(dir: string): Target {
  const jsonDirs = ['scenarios/tokenizers/tiny-bpe', 'fixtures/checkpoints/tiny-bf16'];
  const gguf = readSeed('fixtures/checkpoints/tiny-q8_0.gguf');
  return {
    name: 'tokenizer',
    naming: {},
    make(r) {
      const out = join(dir, 'tok');
      rmSync(out, { recursive: true, force: true });
      mkdirSync(out, { recursive: true });
      if (r.chance(0.2)) {
        const path = join(out, 'vocab.gguf');
        writeFileSync(path, mutateBytes(r, gguf.bytes, [], 1 << 16));
        return { path, describe: `${gguf.name} bytes` };
      }
      const d = r.pick(jsonDirs);
      const victim = r.chance(0.8) ? 'tokenizer.json' : 'tokenizer_config.json';
      for (const f of ['tokenizer.json', 'tokenizer_config.json']) {
        if (f === victim) writeFileSync(join(out, f), mutateJson(r, readSeed(`${d}/${f}`)));
        else symlinkSync(join(ROOT, d, f), join(out, f));
      }
      return { path: join(out, 'tokenizer.json'), describe: `${d}/${victim}` };
    },
    run(path) {
      const t = tokenizerFromFile(path);
      for (const s of TEXTS) t.decode(t.encode(s));
      t.decode([0, 1, t.vocabSize - 1]);
    },
  };
}

/** The tiny preset's single prefill of 5 tokens (request `prompt`), as a scenario with `prompt: ids:` gives it. */
const PIECES = [{ step: 0, request: 'prompt', kind: 'prefill' as const, start: 0, count: 5, chunks: [] }];
/** The stages node-mla.mjs writes for that scenario, with its shapes (tiny: N 4, P 16, R 8, L 32, V 12, H 96). */
const STAGES: [string, number[]][] = [
  ['q_nope', [5, 4, 16]],
  ['q_pe', [5, 4, 8]],
  ['kv_c_normed', [5, 32]],
  ['k_pe', [5, 8]],
  ['k_nope', [5, 4, 16]],
  ['v', [5, 4, 12]],
  ['lse', [5, 4]],
  ['attn_out_heads', [5, 48]],
  ['attn_out', [5, 48]],
  ['o_proj_out', [5, 96]],
];
const LAYOUTS = { lse: 't h', attn_out_heads: 't (h v)' };

/** The dumps a trace import reads, written with the project's safetensors writer: prefixed names, bare names, norms. */
function traceSeeds(dir: string): Seed[] {
  mkdirSync(dir, { recursive: true });
  const values = (n: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i + 1));
  const tensors = (prefix: string) =>
    STAGES.map(([s, shape]) => ({ name: `${prefix}${s}`, dtype: 'F32' as const, shape, data: values(shape.reduce((a, b) => a * b)) }));
  const seeds: Seed[] = [];
  for (const [name, prefix] of [
    ['dump.safetensors', '0/prompt/'],
    ['bare.safetensors', ''],
  ] as const) {
    writeSafetensors(join(dir, name), tensors(prefix));
    seeds.push({ name, bytes: readFileSync(join(dir, name)) });
  }
  const norms = STAGES.map(([s, shape], i) => JSON.stringify({ step: 0, request: 'prompt', stage: s, norm: 1 + i, shape }));
  seeds.push({ name: 'norms.jsonl', bytes: Buffer.from(`${norms.join('\n')}\n`) });
  return seeds;
}

/** An engine dump (and the scenario's trace: layouts and names) imported against the tiny preset's single prefill. */
export function traceTarget(dir: string): Target {
  const seeds = traceSeeds(join(dir, 'trace-seeds'));
  const donors = seeds.map((s) => s.bytes);
  let spec: TraceSpec = { file: '', layouts: LAYOUTS, names: {} };
  return {
    name: 'trace',
    naming: {},
    make(r) {
      const s = r.pick(seeds);
      const path = join(dir, r.chance(0.02) ? 'x.json' : basename(s.name));
      const bytes = s.name.endsWith('.jsonl') && r.chance(0.6) ? jsonlMutation(r, s) : mutateBytes(r, s.bytes, donors, 2048);
      writeFileSync(path, bytes);
      spec = { file: path, ...hostileSpec(r) };
      return { path, describe: `${s.name} ${JSON.stringify({ layouts: spec.layouts, names: spec.names }).slice(0, 120)}` };
    },
    run: (path) => importTrace({ ...spec, file: path }, { config: preset('tiny'), pieces: PIECES, kvSplits: 1 }),
  };
}

function jsonlMutation(r: Rng, s: Seed): Uint8Array {
  const lines = text(s.bytes).trim().split('\n');
  const i = r.int(lines.length);
  lines[i] = mutateText(r, lines[i]!, 'json').replace(/\n/g, ' ');
  return Buffer.from(`${lines.join('\n')}\n`);
}

/** Mostly the layouts the dump needs; sometimes names and layouts with prototype keys, wrong types or unknown stages. */
function hostileSpec(r: Rng): Pick<TraceSpec, 'layouts' | 'names'> {
  if (r.chance(0.7)) return { layouts: LAYOUTS, names: {} };
  const map = (): Record<string, string> => {
    const o: Record<string, string> = {};
    const key = r.pick(['__proto__', 'constructor', 'lse', 'attn_out', 'toString', '', 'q_nope']);
    Object.defineProperty(o, key, { value: r.pick(HOSTILE), enumerable: true, writable: true, configurable: true });
    return o;
  };
  return { layouts: r.chance(0.5) ? map() : LAYOUTS, names: map() };
}

/** Saved run reports (the committed fixtures and fresh ones), mutated, loaded and compared with themselves. */
export function reportsTarget(dir: string): Target {
  const seeds = listFiles('fixtures', /\.report\.json$/).map(readSeed);
  return {
    name: 'reports',
    naming: {},
    make(r) {
      const s = r.pick(seeds);
      const path = join(dir, 'saved.report.json');
      writeFileSync(path, mutateJson(r, s));
      return { path, describe: s.name };
    },
    run(path) {
      const saved = loadRunReport(path);
      compareRuns(saved, saved);
    },
  };
}
