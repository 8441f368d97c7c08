import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { INDEX_FILE, openSafetensors, readTensorF32, readWeightF32, shardName, writeShardedSafetensors } from './index';
import type { TensorToWrite } from './index';
import { expectCode, tempDir } from './test-utils/files';
import { testMatrix } from './test-utils/matrix';

const t = tempDir();
afterAll(t.cleanup);

const seq = (n: number, f: (i: number) => number): Float32Array => Float32Array.from({ length: n }, (_, i) => f(i));
const TENSORS: TensorToWrite[] = [
  { name: 'embed', dtype: 'BF16', shape: [64, 16], data: seq(1024, (i) => (i % 256) - 128) },
  { name: 'kv_b', dtype: 'F8_E4M3', shape: [300, 200], data: testMatrix(300, 200, 3) },
  { name: 'norm', dtype: 'F32', shape: [16], data: seq(16, (i) => 1 + i) },
  { name: 'q_a', dtype: 'F16', shape: [32, 16], data: seq(512, (i) => (i % 7) - 3) },
  { name: 'lm_head', dtype: 'F32', shape: [10, 16], data: seq(160, (i) => -i) },
];

describe('sharded checkpoints', () => {
  const dir = join(t.dir, 'model');
  writeShardedSafetensors(dir, TENSORS, 3, { format: 'pt' });
  const index = JSON.parse(readFileSync(join(dir, INDEX_FILE), 'utf8')) as {
    metadata: { total_size: number };
    weight_map: Record<string, string>;
  };

  it('writes 3 shards and an index whose weight_map covers every tensor, scales beside their weights', () => {
    expect(readdirSync(dir).sort()).toEqual([shardName(1, 3), shardName(2, 3), shardName(3, 3), INDEX_FILE]);
    expect(shardName(2, 3)).toBe('model-00002-of-00003.safetensors');
    expect(Object.keys(index.weight_map).sort()).toEqual(['embed', 'kv_b', 'kv_b_scale_inv', 'lm_head', 'norm', 'q_a']);
    expect(index.weight_map.kv_b_scale_inv).toBe(index.weight_map.kv_b);
    expect(new Set(Object.values(index.weight_map)).size).toBe(3);
    expect(index.weight_map.lm_head).toBe(shardName(3, 3));
    // BF16 64·16·2 + FP8 300·200 + scales 3·2·4 + F32 16·4 + F16 32·16·2 + F32 10·16·4
    expect(index.metadata.total_size).toBe(2048 + 60000 + 24 + 64 + 1024 + 640);
  });

  it('opens via the directory and via the index path alike', () => {
    for (const m of [openSafetensors(dir), openSafetensors(join(dir, INDEX_FILE))]) {
      expect(m.files).toEqual([1, 2, 3].map((k) => join(dir, shardName(k, 3))));
      expect(m.tensors.size).toBe(6);
      expect(m.totalBytes).toBe(index.metadata.total_size);
      expect(m.metadata).toEqual({ format: 'pt', total_size: String(index.metadata.total_size) });
      expect(m.tensors.get('lm_head')!.file).toBe(join(dir, shardName(3, 3)));
      expect(readTensorF32(m, 'lm_head')).toEqual(TENSORS[4]!.data); // from the last shard
      expect(readTensorF32(m, 'lm_head', [9, 10])).toEqual(TENSORS[4]!.data.subarray(144));
      expect(readTensorF32(m, 'embed')).toEqual(TENSORS[0]!.data); // integers in [-128, 127] are exact in bf16
      expect(readWeightF32(m, 'kv_b')).toHaveLength(60000);
    }
  });

  it('makes exactly N shards even when one tensor dwarfs the rest', () => {
    const d = join(t.dir, 'lopsided');
    writeShardedSafetensors(d, [TENSORS[1]!, TENSORS[2]!, TENSORS[4]!], 3);
    expect(readdirSync(d).filter((f) => f.endsWith('.safetensors'))).toHaveLength(3);
    expect(openSafetensors(d).tensors.size).toBe(4);
    expectCode(() => writeShardedSafetensors(join(t.dir, 'x'), [TENSORS[2]!], 2), 'invalid-value');
    expect(existsSync(join(t.dir, 'x'))).toBe(false);
  });

  it('an index naming a missing shard → file-not-found with the shard path', () => {
    const d = join(t.dir, 'broken');
    writeShardedSafetensors(d, TENSORS, 3);
    rmSync(join(d, shardName(2, 3)));
    const e = expectCode(() => openSafetensors(d), 'file-not-found');
    expect(e.where.file).toBe(join(d, shardName(2, 3)));
  });

  it('an index naming a tensor its shard lacks → tensor-missing; a bad index → checkpoint-invalid', () => {
    const d = join(t.dir, 'liar');
    writeShardedSafetensors(d, TENSORS, 2);
    const idx = JSON.parse(readFileSync(join(d, INDEX_FILE), 'utf8')) as { weight_map: Record<string, string> };
    idx.weight_map.ghost = shardName(1, 2);
    writeFileSync(join(d, INDEX_FILE), JSON.stringify(idx));
    const e = expectCode(() => openSafetensors(d), 'tensor-missing');
    expect(e.where).toEqual({ file: join(d, shardName(1, 2)), field: 'ghost' });
    writeFileSync(join(d, INDEX_FILE), '{"weight_map": ');
    expectCode(() => openSafetensors(d), 'checkpoint-invalid');
  });

  it('an empty directory → file-not-found', () => {
    mkdirSync(join(t.dir, 'empty'));
    expectCode(() => openSafetensors(join(t.dir, 'empty')), 'file-not-found');
  });
});
