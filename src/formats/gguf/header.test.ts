import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readGgufHeader } from './header';
import { metaValue, openGguf, readTensorBytes, readTensorF32 } from './read';
import type { Bytes } from './test-utils/gguf-bytes';
import { handGguf, kvString, kvU32, type HandTensor } from './test-utils/gguf-bytes';
import { writeGguf } from './write';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mla-diff-gguf-header-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
const file = (bytes: Uint8Array): string => {
  const p = join(dir, `f${n++}.gguf`);
  writeFileSync(p, bytes);
  return p;
};
const f32 = (v: number[]): Uint8Array => new Uint8Array(Float32Array.from(v).buffer);
const err = (code: string, where: object = {}) => expect.objectContaining({ code, where: expect.objectContaining(where) });

describe('a hand-built GGUF v2 file', () => {
  it('reads its metadata and its F32 tensor in PyTorch order', () => {
    const p = file(
      handGguf({
        version: 2,
        kvs: [kvString('general.name', 'tiny')],
        tensors: [{ name: 'w', ne: [3, 2], typeId: 0, offset: 0 }],
        data: f32([1, 2, 3, 4, 5, 6]),
      }),
    );
    const m = openGguf(p);
    expect(m.version).toBe(2);
    expect(metaValue(m, 'general.name')).toBe('tiny');
    expect(m.tensors.get('w')).toEqual({ name: 'w', ne: [3, 2], shape: [2, 3], type: 'F32', file: p, offset: 128, bytes: 24 });
    expect(Array.from(readTensorF32(m, 'w'))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(m.totalBytes).toBe(152);
  });
});

/** A good hand-built file: one kv, tensors `t` (defaults: one F32 [4] at 0) and 64 data bytes. */
const good = (t: HandTensor[] = [{ name: 'w', ne: [4], typeId: 0, offset: 0 }], kvs = [kvString('general.name', 'x')]) =>
  handGguf({ kvs, tensors: t, data: new Uint8Array(64) });

describe('bad GGUF files', () => {
  const patched = (at: number, b: number[]): string => {
    const bytes = good();
    bytes.set(b, at);
    return file(bytes);
  };

  it.each<[string, () => string, string, object]>([
    ['wrong magic', () => patched(0, [0x47, 0x47, 0x4d, 0x4c]), 'checkpoint-invalid', { field: 'magic' }],
    ['version 1', () => patched(4, [1, 0, 0, 0]), 'checkpoint-invalid', { field: 'version' }],
    ['version 4', () => patched(4, [4, 0, 0, 0]), 'checkpoint-invalid', { field: 'version' }],
    ['a big-endian file', () => patched(4, [0, 0, 0, 3]), 'checkpoint-invalid', { field: 'version' }],
    ['an empty file', () => file(new Uint8Array(0)), 'checkpoint-truncated', {}],
    ['a bad value type id', () => file(good(undefined, [(b: Bytes) => void b.str('k').u32(13)])), 'checkpoint-invalid', { field: 'k' }],
    [
      'a bad array item type id',
      () => file(good(undefined, [(b: Bytes) => void b.str('k').u32(9).u32(99).u64(0)])),
      'checkpoint-invalid',
      { field: 'k' },
    ],
    ['a 64-byte tensor name', () => file(good([{ name: 'n'.repeat(64), ne: [4], typeId: 0, offset: 0 }])), 'checkpoint-invalid', {}],
    ['5 dimensions', () => file(good([{ name: 'w', ne: [1, 1, 1, 1, 4], typeId: 0, offset: 0 }])), 'checkpoint-invalid', { field: 'w' }],
    [
      'duplicate tensor names',
      () =>
        file(
          good([
            { name: 'w', ne: [4], typeId: 0, offset: 0 },
            { name: 'w', ne: [4], typeId: 0, offset: 32 },
          ]),
        ),
      'checkpoint-invalid',
      { field: 'w' },
    ],
    [
      'overlapping tensors',
      () =>
        file(
          good([
            { name: 'a', ne: [16], typeId: 0, offset: 0 },
            { name: 'b', ne: [4], typeId: 0, offset: 32 },
          ]),
        ),
      'checkpoint-invalid',
      { field: 'b' },
    ],
    ['unknown ggml type id 99', () => file(good([{ name: 'w', ne: [4], typeId: 99, offset: 0 }])), 'unsupported-dtype', { field: 'w' }],
    [
      'ne[0] not a multiple of the block size',
      () => file(good([{ name: 'q', ne: [33], typeId: 8, offset: 0 }])),
      'checkpoint-invalid',
      { field: 'q' },
    ],
    ['a misaligned offset', () => file(good([{ name: 'w', ne: [4], typeId: 0, offset: 4 }])), 'checkpoint-invalid', { field: 'w' }],
    [
      'a tensor offset past the end of the file',
      () => file(good([{ name: 'w', ne: [4], typeId: 0, offset: 64 }])),
      'checkpoint-truncated',
      { field: 'w' },
    ],
    [
      'a non-power-of-2 alignment',
      () => file(good(undefined, [kvU32('general.alignment', 48)])),
      'checkpoint-invalid',
      { field: 'general.alignment' },
    ],
    ['a duplicate key', () => file(good(undefined, [kvString('k', 'a'), kvString('k', 'b')])), 'checkpoint-invalid', { field: 'k' }],
    [
      'an array count larger than the file',
      () =>
        file(
          good(undefined, [
            (b: Bytes) =>
              void b
                .str('k')
                .u32(9)
                .u32(4)
                .u64(2n ** 62n),
          ]),
        ),
      'checkpoint-truncated',
      { field: 'k' },
    ],
  ])('%s', (_, make, code, where) => {
    const p = make();
    expect(() => openGguf(p)).toThrow(err(code, { file: p, ...where }));
  });

  it('a file truncated in the middle of the metadata is checkpoint-truncated', () => {
    const p = join(dir, 'meta-cut.gguf');
    const tokens = Array.from({ length: 50_000 }, (_, i) => `token ${i}`);
    writeGguf(p, { 'tokenizer.ggml.tokens': { type: 'ARRAY', itemType: 'STRING', value: tokens } }, [
      { name: 'w', ne: [4], type: 'F32', data: f32([1, 2, 3, 4]) },
    ]);
    expect(readGgufHeader(p).metadata.get('tokenizer.ggml.tokens')!.value).toEqual(tokens);
    truncateSync(p, 300_000);
    expect(() => openGguf(p)).toThrow(err('checkpoint-truncated', { file: p, field: 'tokenizer.ggml.tokens' }));
  });

  it('a file truncated in the tensor infos is checkpoint-truncated naming the tensor', () => {
    const bytes = handGguf({ tensors: [{ name: 'weight', ne: [4, 4], typeId: 0, offset: 0 }], data: new Uint8Array(64) });
    // 24 bytes of magic, version and counts, then the tensor info: 8 + 6 (name) + 4 (n_dims) + 16 (ne) ...
    const p = file(bytes.subarray(0, 24 + 8 + 6 + 4 + 12));
    expect(() => openGguf(p)).toThrow(err('checkpoint-truncated', { file: p, field: 'weight' }));
  });

  it('a file cut inside its last tensor is checkpoint-truncated naming it', () => {
    const p = join(dir, 'data-cut.gguf');
    writeGguf(p, {}, [
      { name: 'a', ne: [8], type: 'F32', data: new Uint8Array(32) },
      { name: 'b', ne: [64], type: 'F32', data: new Uint8Array(256) },
    ]);
    truncateSync(p, readFileSync(p).length - 100);
    expect(() => openGguf(p)).toThrow(err('checkpoint-truncated', { file: p, field: 'b' }));
  });

  it('a known type without a dequantizer (IQ2_XXS) opens, gives its bytes, and is unsupported-dtype on dequantizing', () => {
    const p = join(dir, 'iq2.gguf');
    writeGguf(p, {}, [{ name: 'blk.0.ffn_up_exps.weight', ne: [256, 2], type: 'IQ2_XXS', data: new Uint8Array(132).fill(7) }]);
    const m = openGguf(p);
    expect(readTensorBytes(m, 'blk.0.ffn_up_exps.weight', [1, 2])).toEqual(new Uint8Array(66).fill(7));
    expect(() => readTensorF32(m, 'blk.0.ffn_up_exps.weight')).toThrow(
      err('unsupported-dtype', { file: p, field: 'blk.0.ffn_up_exps.weight' }),
    );
  });

  it('a missing file is file-not-found', () => {
    const p = join(dir, 'absent.gguf');
    expect(() => openGguf(p)).toThrow(err('file-not-found', { file: p }));
  });
});
