import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RandomAccessFile } from '../file';
import { rowBytes } from './ggml-types';
import { openGguf, readTensorBytes, readTensorF32 } from './read';
import { CASES, expected, tensorCase } from './test-utils/gguf-fixtures';
import type { GgufModel } from './types';
import { writeGguf } from './write';

let dir: string;
let m: GgufModel;
const ROWS = [
  tensorCase('token_embd.weight', [64, 12], 'Q8_0', 7),
  tensorCase('blk.0.attn_q_b.weight', [8, 12], 'F16', 8),
  tensorCase('blk.1.attn_k_b.weight', [4, 3, 12], 'F32', 9),
];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mla-diff-gguf-tensor-'));
  const path = join(dir, 'rows.gguf');
  writeGguf(
    path,
    {},
    [...CASES, ...ROWS].map(({ name, ne, type, data }) => ({ name, ne, type, data })),
  );
  m = openGguf(path);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => jest.restoreAllMocks());

describe('readTensorF32 / readTensorBytes with rows', () => {
  it.each(ROWS.map((c) => [c.type, c] as const))('rows [5, 9) of a %s tensor are that slice of the whole, read alone', (_, c) => {
    const t = m.tensors.get(c.name)!;
    const rowElems = c.src.length / 12;
    const full = readTensorF32(m, c.name);
    expect(full).toEqual(expected(c));
    const read = jest.spyOn(RandomAccessFile.prototype, 'read');
    const rows = readTensorF32(m, c.name, [5, 9]);
    expect(rows).toEqual(full.slice(5 * rowElems, 9 * rowElems));
    const rowLen = rowBytes(c.type, c.ne[0]!) * (c.ne.length === 3 ? c.ne[1]! : 1);
    expect(read.mock.calls.map((a) => [a[0], a[1]])).toEqual([[t.offset + 5 * rowLen, 4 * rowLen]]);
    expect(readTensorBytes(m, c.name, [5, 9])).toEqual(c.data.slice(5 * rowLen, 9 * rowLen));
  });

  it('whole tensors: bytes as written; empty row ranges are empty', () => {
    for (const c of CASES) expect(readTensorBytes(m, c.name)).toEqual(c.data);
    expect(readTensorF32(m, 'token_embd.weight', [3, 3])).toEqual(new Float32Array(0));
    expect(readTensorF32(m, 'token_embd.weight', [0, 12])).toEqual(readTensorF32(m, 'token_embd.weight'));
  });

  it.each<[number, number]>([
    [-1, 2],
    [3, 2],
    [0, 13],
    [0.5, 2],
  ])('rows [%d, %d) are invalid-value', (r0, r1) => {
    expect(() => readTensorF32(m, 'token_embd.weight', [r0, r1])).toThrow(
      expect.objectContaining({ code: 'invalid-value', where: expect.objectContaining({ field: 'token_embd.weight' }) }),
    );
  });

  it('rows of a 1-D blocked tensor must not split a block', () => {
    const path = join(dir, 'q8-1d.gguf');
    const c = tensorCase('v', [96], 'Q8_0', 3);
    writeGguf(path, {}, [c]);
    const one = openGguf(path);
    expect(readTensorF32(one, 'v', [32, 64])).toEqual(expected(c).slice(32, 64));
    expect(() => readTensorF32(one, 'v', [1, 33])).toThrow(expect.objectContaining({ code: 'invalid-value' }));
  });

  it('streams a tensor bigger than one read chunk (16 MiB)', () => {
    const path = join(dir, 'big.gguf');
    const ne = [1024, 4200];
    const src = Float32Array.from({ length: ne[0]! * ne[1]! }, (_, i) => (i % 1001) - 500);
    writeGguf(path, {}, [{ name: 'big', ne, type: 'F32', bytes: src.length * 4, produce: () => new Uint8Array(src.buffer) }]);
    const read = jest.spyOn(RandomAccessFile.prototype, 'read');
    const got = readTensorF32(openGguf(path), 'big');
    expect(Buffer.compare(Buffer.from(got.buffer), Buffer.from(src.buffer))).toBe(0);
    expect(read.mock.calls.filter((a) => a[2] === 'tensor big').length).toBe(2);
  });

  it('a missing tensor is tensor-missing naming it', () => {
    expect(() => readTensorF32(m, 'blk.0.attn_q_b.weigth')).toThrow(
      expect.objectContaining({ code: 'tensor-missing', where: expect.objectContaining({ field: 'blk.0.attn_q_b.weigth' }) }),
    );
    expect(() => readTensorBytes(m, 'nope')).toThrow(expect.objectContaining({ code: 'tensor-missing' }));
  });
});
