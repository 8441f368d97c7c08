import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GgmlType } from '../../formats/gguf/ggml-types';
import { RandomAccessFile } from '../../formats/file';
import { openGguf } from '../../formats/gguf/read';
import { diffWeights } from '../../harness/run/weights-diff';
import { weightValues } from '../../core/weights/records';
import { openSource } from './source';
import { SyntheticWeights } from '../../core/weights/synthetic';
import { fixtureLayers, smallFixtureConfig, tinyFixtureConfig } from './fixtures';
import { writeGgufCheckpoint } from './write-gguf';
import { writeSafetensorsCheckpoint } from './write-safetensors';

const dir = mkdtempSync(join(tmpdir(), 'mla-diff-ckpt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const small = smallFixtureConfig();
const tiny = tinyFixtureConfig();
const IDS = [0, 7, 42, 100, 7];

/** Every weight of a source read back against the synthetic weights it was written from. */
function roundTrip(spec: Parameters<typeof openSource>[0], seed: number) {
  const a = weightValues(openSource(spec), IDS);
  const b = weightValues(new SyntheticWeights(spec.kind === 'synthetic' ? spec.config : openSource(spec).config, seed), IDS);
  return diffWeights(a, b);
}

describe('GGUF checkpoints: every quant type within its bound, k_b/v_b split and merged', () => {
  const TYPES: GgmlType[] = [
    'F32',
    'F16',
    'BF16',
    'Q8_0',
    'Q4_0',
    'Q4_1',
    'Q5_0',
    'Q5_1',
    'IQ4_NL',
    'Q2_K',
    'Q3_K',
    'Q4_K',
    'Q5_K',
    'Q6_K',
    'IQ4_XS',
  ];
  it.each(TYPES)('%s', (type) => {
    const path = join(dir, `small-${type}.gguf`);
    writeGgufCheckpoint(path, { config: small, layers: fixtureLayers(small), type, kvB: type.endsWith('K') ? 'merged' : 'split' });
    for (const layer of [0, 1]) {
      const diffs = roundTrip({ kind: 'gguf', file: path, layer, overrides: {} }, layer);
      for (const d of diffs) {
        if (d.name === 'embed_tokens' && layer === 1) continue; // the table is seed 0's
        expect({ name: d.name, beyond: d.beyond }).toEqual({ name: d.name, beyond: 0 });
        expect(d.relErr).toBeLessThanOrEqual(d.allowed * (1 + 1e-6) + 1e-9);
        const norm = d.name.endsWith('layernorm'); // 1-D tensors stay F32, as llama.cpp keeps them
        if (type === 'F32' || norm) expect(d.relErr).toBe(0);
        else expect(d.relErr).toBeGreaterThan(0); // quantized: the bound is not vacuous
      }
    }
  });
});

describe('safetensors checkpoints', () => {
  it.each([
    ['BF16', 1],
    ['F8_E4M3', 2],
  ] as const)('%s, %i shard(s): within the bound, layer 1 is seed 1', (dtype, shards) => {
    const path = join(dir, `st-${dtype}`);
    writeSafetensorsCheckpoint(path, { config: small, layers: fixtureLayers(small), dtype, shards });
    for (const layer of [0, 1]) {
      for (const d of roundTrip({ kind: 'safetensors', file: path, layer, overrides: {} }, layer)) {
        if (d.name === 'embed_tokens' && layer === 1) continue;
        expect({ name: d.name, beyond: d.beyond }).toEqual({ name: d.name, beyond: 0 });
        expect(d.relErr).toBeLessThanOrEqual(d.allowed * (1 + 1e-6) + 1e-9);
      }
    }
  });
});

describe('reading one layer reads that layer only', () => {
  it('tensor data read for layer 1 of an 8-layer GGUF = its tensors + the embedding rows, nothing else', () => {
    const path = join(dir, 'eight.gguf');
    writeGgufCheckpoint(path, { config: small, layers: fixtureLayers(small, 8), type: 'Q8_0', kvB: 'split' });
    const m = openGguf(path);
    const dataStart = Math.min(...[...m.tensors.values()].map((t) => t.offset));
    const layerBytes = [...m.tensors.values()].filter((t) => t.name.startsWith('blk.1.')).reduce((n, t) => n + t.bytes, 0);
    const emb = m.tensors.get('token_embd.weight')!;
    const rowBytes = emb.bytes / emb.shape[0]!;
    const spy = jest.spyOn(RandomAccessFile.prototype, 'read');
    try {
      weightValues(openSource({ kind: 'gguf', file: path, layer: 1, overrides: {} }), IDS);
      const data = spy.mock.calls.filter((c) => (c[0] as number) >= dataStart).reduce((n, c) => n + (c[1] as number), 0);
      // weightValues reads the 4 distinct rows twice (values and bound); every layer tensor twice at most
      expect(data).toBeGreaterThanOrEqual(layerBytes);
      expect(data).toBeLessThanOrEqual(2 * layerBytes + 2 * 4 * rowBytes);
      expect(data).toBeLessThan(m.totalBytes / 4);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('bad checkpoints fail with a code naming the tensor', () => {
  const path = join(dir, 'tiny.gguf');
  beforeAll(() => writeGgufCheckpoint(path, { config: tiny, layers: fixtureLayers(tiny), type: 'Q8_0', kvB: 'split' }));
  it('a layer the file does not have: tensor-missing', () => {
    expect(() => openSource({ kind: 'gguf', file: path, layer: 5, overrides: {} })).toThrow(
      expect.objectContaining({ code: 'tensor-missing' }),
    );
  });
  it('a config override that does not match the tensors: tensor-shape', () => {
    expect(() => openSource({ kind: 'gguf', file: path, layer: 0, overrides: { q_lora_rank: 64 } })).toThrow(
      expect.objectContaining({ code: 'tensor-shape', where: expect.objectContaining({ field: 'blk.0.attn_q_a.weight' }) }),
    );
  });
  it('NaN in a weight: nan-weights, naming the tensor', () => {
    const bad = join(dir, 'nan.gguf');
    const layers = fixtureLayers(tiny, 1);
    const src = layers[0]!;
    const poisoned = Object.assign(Object.create(Object.getPrototypeOf(src)), src, {
      norm: (n: 'input_layernorm' | 'q_a_layernorm' | 'kv_a_layernorm') => {
        const v = src.norm(n);
        if (n === 'kv_a_layernorm') v[3] = NaN;
        return v;
      },
    });
    writeGgufCheckpoint(bad, { config: tiny, layers: [poisoned], type: 'F32', kvB: 'split' });
    const w = openSource({ kind: 'gguf', file: bad, layer: 0, overrides: {} });
    expect(() => w.norm('kv_a_layernorm')).toThrow(
      expect.objectContaining({ code: 'nan-weights', where: expect.objectContaining({ field: 'blk.0.attn_kv_a_norm.weight' }) }),
    );
  });
});
