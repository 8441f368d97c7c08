import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openGguf, metaValue, readTensorF32 } from './read';
import type { GgufEntry } from './types';
import { CASES, EVERY_TYPE, expected } from './test-utils/gguf-fixtures';
import { type LazyTensor, type TensorToWrite, writeGguf } from './write';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mla-diff-gguf-write-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('writeGguf → openGguf round trip', () => {
  let path: string;
  beforeAll(() => {
    path = join(dir, 'every.gguf');
    writeGguf(
      path,
      EVERY_TYPE,
      CASES.map(({ name, ne, type, data }) => ({ name, ne, type, data })),
    );
  });

  it('reads back every metadata value type (64-bit as bigint only past 2^53)', () => {
    const m = openGguf(path);
    expect(m.version).toBe(3);
    expect(m.alignment).toBe(32);
    expect([...m.metadata.keys()]).toEqual(Object.keys(EVERY_TYPE));
    for (const [k, e] of Object.entries(EVERY_TYPE)) expect(m.metadata.get(k)).toEqual(e);
    expect(metaValue(m, 'test.u64.small')).toBe(123456789);
    expect(metaValue(m, 'test.u64.big')).toBe(2n ** 60n + 1n);
    expect(metaValue(m, 'test.i64.small')).toBe(-7);
    expect(metaValue(m, 'no.such.key')).toBeUndefined();
  });

  it('reads back tensors of 1, 2 and 3 dims in F32, F16, Q8_0 and Q4_K with their PyTorch shapes', () => {
    const m = openGguf(path);
    expect([...m.tensors.keys()]).toEqual(CASES.map((c) => c.name));
    for (const c of CASES) {
      const t = m.tensors.get(c.name)!;
      expect(t.ne).toEqual(c.ne);
      expect(t.shape).toEqual([...c.ne].reverse());
      expect(t.type).toBe(c.type);
      expect(t.offset % 32).toBe(0);
      const got = readTensorF32(m, c.name);
      expect(got).toEqual(expected(c));
      if (c.type === 'F32' || c.type === 'F16') expect(got).toEqual(c.src);
    }
    // ggml order: element (i0, i1) of ne [4, 3] sits at i1 * 4 + i0, i.e. PyTorch [3, 4] row-major.
    const f16 = readTensorF32(m, 'blk.0.attn_q_a.weight');
    expect(f16[2 * 4 + 1]).toBe(CASES[1]!.src[9]);
  });
});

describe('writeGguf streaming', () => {
  it('produces each lazy tensor once, in order, after the header, and takes chunked output', () => {
    const path = join(dir, 'lazy.gguf');
    const log: string[] = [];
    const lazy = (name: string, n: number): LazyTensor => ({
      name,
      ne: [n],
      type: 'F32',
      bytes: n * 4,
      produce: function* () {
        log.push(name);
        for (let i = 0; i < n; i += 3) yield new Uint8Array(Float32Array.from({ length: Math.min(3, n - i) }, (_, j) => i + j).buffer);
      },
    });
    writeGguf(path, new Map([['general.alignment', { type: 'UINT32', value: 64 } as GgufEntry]]), [lazy('a', 10), lazy('b', 5)]);
    expect(log).toEqual(['a', 'b']);
    const m = openGguf(path);
    expect(m.alignment).toBe(64);
    expect(m.tensors.get('b')!.offset % 64).toBe(0);
    expect(Array.from(readTensorF32(m, 'a'))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(Array.from(readTensorF32(m, 'b'))).toEqual([0, 1, 2, 3, 4]);
  });

  it.each<[string, TensorToWrite[]]>([
    ['too few bytes', [{ name: 'w', ne: [4], type: 'F32', data: new Uint8Array(12) }]],
    ['too many produced', [{ name: 'w', ne: [4], type: 'F32', produce: () => new Uint8Array(20) }]],
    ['ne[0] not whole blocks', [{ name: 'w', ne: [33], type: 'Q8_0', data: new Uint8Array(0) }]],
    [
      'duplicate names',
      [
        { name: 'w', ne: [1], type: 'F32', data: new Uint8Array(4) },
        { name: 'w', ne: [1], type: 'F32', data: new Uint8Array(4) },
      ],
    ],
    ['a 64-byte name', [{ name: 'x'.repeat(64), ne: [1], type: 'F32', data: new Uint8Array(4) }]],
  ])('refuses %s (invalid-value) and leaves no file', (_, tensors) => {
    const path = join(dir, 'bad-write.gguf');
    expect(() => writeGguf(path, {}, tensors)).toThrow(expect.objectContaining({ code: 'invalid-value' }));
    expect(existsSync(path)).toBe(false);
  });

  it('refuses a value out of its type range and a nested array without items', () => {
    const path = join(dir, 'bad-meta.gguf');
    expect(() => writeGguf(path, { k: { type: 'UINT8', value: 256 } }, [])).toThrow(
      expect.objectContaining({ code: 'invalid-value', where: { field: 'k' } }),
    );
    expect(() => writeGguf(path, { k: { type: 'ARRAY', itemType: 'ARRAY', value: [[1]] } }, [])).toThrow(
      expect.objectContaining({ code: 'invalid-value' }),
    );
    expect(existsSync(path)).toBe(false);
  });
});
