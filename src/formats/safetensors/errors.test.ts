import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSafetensors, readTensorF32, readWeightF32, weightBoundF32, writeSafetensors } from './index';
import { expectCode, tempDir, writeRaw } from './test-utils/files';

const t = tempDir();
afterAll(t.cleanup);
let k = 0;
const raw = (header: string | object, data: readonly number[] | Uint8Array): string => writeRaw(t.dir, `f${k++}.safetensors`, header, data);
const F32x2 = (begin: number): object => ({ dtype: 'F32', shape: [2], data_offsets: [begin, begin + 8] });

describe('bad files', () => {
  it('truncated tensor data → checkpoint-truncated (at open, and at read after the file shrank)', () => {
    const p = raw({ a: F32x2(0), b: F32x2(8) }, new Array(16).fill(0));
    const m = openSafetensors(p);
    truncateSync(p, readFileSync(p).length - 2);
    expectCode(() => openSafetensors(p), 'checkpoint-truncated');
    expect([...readTensorF32(m, 'a')]).toEqual([0, 0]); // by offset: the intact tensor still reads
    const e = expectCode(() => readTensorF32(m, 'b'), 'checkpoint-truncated');
    expect(e.where).toEqual({ file: p, field: 'b' });
  });

  it('header length past the end of the file → checkpoint-truncated; absurd or tiny → checkpoint-invalid', () => {
    const b = Buffer.alloc(50, 0x20);
    b.writeBigUInt64LE(1000n, 0);
    writeFileSync(join(t.dir, 'long.safetensors'), b);
    expectCode(() => openSafetensors(join(t.dir, 'long.safetensors')), 'checkpoint-truncated');
    b.write('GGUF', 0); // a GGUF file: "GGUF" + version read as a u64 is ~2^34, above the 100 MB cap
    writeFileSync(join(t.dir, 'gguf.safetensors'), b);
    expectCode(() => openSafetensors(join(t.dir, 'gguf.safetensors')), 'checkpoint-invalid');
    b.writeBigUInt64LE(0n, 0);
    writeFileSync(join(t.dir, 'zero.safetensors'), b);
    expectCode(() => openSafetensors(join(t.dir, 'zero.safetensors')), 'checkpoint-invalid');
    writeFileSync(join(t.dir, 'short.safetensors'), Buffer.from([1, 2, 3]));
    expectCode(() => openSafetensors(join(t.dir, 'short.safetensors')), 'checkpoint-truncated');
  });

  it('non-JSON header → checkpoint-invalid', () => {
    expectCode(() => openSafetensors(raw('{"a": {"dtype": "F32",', [])), 'checkpoint-invalid');
    expectCode(() => openSafetensors(raw('[1, 2]', [])), 'checkpoint-invalid');
    expectCode(() => openSafetensors(raw({ __metadata__: { n: 1 } }, [])), 'checkpoint-invalid');
  });

  it('overlapping offsets, holes and trailing bytes → checkpoint-invalid', () => {
    const overlap = expectCode(() => openSafetensors(raw({ a: F32x2(0), b: F32x2(4) }, new Array(12).fill(0))), 'checkpoint-invalid');
    expect(overlap.where.field).toBe('b');
    expectCode(() => openSafetensors(raw({ a: F32x2(0), b: F32x2(12) }, new Array(20).fill(0))), 'checkpoint-invalid');
    expectCode(() => openSafetensors(raw({ a: F32x2(4) }, new Array(12).fill(0))), 'checkpoint-invalid');
    expectCode(() => openSafetensors(raw({ a: F32x2(0) }, new Array(12).fill(0))), 'checkpoint-invalid');
  });

  it('data_offsets span not matching shape × dtype → tensor-shape', () => {
    const e = expectCode(
      () => openSafetensors(raw({ w: { dtype: 'BF16', shape: [2, 3], data_offsets: [0, 8] } }, new Array(8).fill(0))),
      'tensor-shape',
    );
    expect(e.where.field).toBe('w');
  });

  it('unknown dtype spelling → checkpoint-invalid', () => {
    for (const dtype of ['f32', 'FP8', 'float8_e4m3fn']) {
      const e = expectCode(
        () => openSafetensors(raw({ w: { dtype, shape: [1], data_offsets: [0, 4] } }, [0, 0, 0, 0])),
        'checkpoint-invalid',
      );
      expect(e.where.field).toBe('w');
    }
  });
});

describe('bad requests', () => {
  const p = raw(
    {
      'model.embed_tokens.weight': F32x2(0),
      ids: { dtype: 'I64', shape: [1], data_offsets: [8, 16] },
      e5: { dtype: 'F8_E5M2', shape: [2], data_offsets: [16, 18] },
    },
    new Array(18).fill(0),
  );
  const m = openSafetensors(p);

  it('a missing tensor → tensor-missing, naming the nearest', () => {
    const e = expectCode(() => readTensorF32(m, 'model.embed_token.weight'), 'tensor-missing');
    expect(e.where).toEqual({ file: p, field: 'model.embed_token.weight' });
    expect(e.hint).toContain('model.embed_tokens.weight');
    expectCode(() => readWeightF32(m, 'nope'), 'tensor-missing');
    expectCode(() => weightBoundF32(m, 'nope'), 'tensor-missing');
  });

  it('unsupported dtypes → unsupported-dtype', () => {
    expect(expectCode(() => readTensorF32(m, 'ids'), 'unsupported-dtype').where.field).toBe('ids');
    expectCode(() => readTensorF32(m, 'e5'), 'unsupported-dtype');
    expectCode(() => readWeightF32(m, 'e5'), 'unsupported-dtype');
    expectCode(() => weightBoundF32(m, 'ids'), 'unsupported-dtype');
  });

  it('rows outside the first dim → invalid-value', () => {
    expectCode(() => readTensorF32(m, 'model.embed_tokens.weight', [1, 3]), 'invalid-value');
    expectCode(() => readTensorF32(m, 'model.embed_tokens.weight', [2, 1]), 'invalid-value');
  });

  it('a missing path → file-not-found', () => {
    expectCode(() => openSafetensors(join(t.dir, 'nothing.safetensors')), 'file-not-found');
  });
});

describe('writer input', () => {
  const w = (ts: Parameters<typeof writeSafetensors>[1]): void => writeSafetensors(join(t.dir, 'w.safetensors'), ts);
  it('rejects wrong data length, duplicate names, non-finite FP8', () => {
    expectCode(() => w([{ name: 'a', dtype: 'F32', shape: [2, 2], data: new Float32Array(3) }]), 'tensor-shape');
    const a = { name: 'a', dtype: 'F32' as const, shape: [1], data: new Float32Array(1) };
    expectCode(() => w([a, a]), 'invalid-value');
    expectCode(
      () =>
        w([
          { ...a, dtype: 'F8_E4M3' },
          { ...a, name: 'a_scale_inv' },
        ]),
      'invalid-value',
    );
    expectCode(() => w([{ ...a, dtype: 'F8_E4M3', data: new Float32Array([NaN]) }]), 'invalid-value');
    expectCode(() => writeSafetensors(join(t.dir, 'w.safetensors'), [a], undefined, [0, 128]), 'invalid-value');
  });
});
