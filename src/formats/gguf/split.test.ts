import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readGgufHeader } from './header';
import { metaValue, openGguf, readTensorF32 } from './read';
import { parseShardName, shardPath } from './split';
import { CASES, EVERY_TYPE, expected } from './test-utils/gguf-fixtures';
import { writeGguf } from './write';
import { partition, writeGgufSplit } from './write-split';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mla-diff-gguf-split-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const TENSORS = CASES.map(({ name, ne, type, data }) => ({ name, ne, type, data }));
const META = { 'general.name': EVERY_TYPE['general.architecture']!, 'test.u64.big': EVERY_TYPE['test.u64.big']! };

describe('split names', () => {
  it('parses and formats gguf-split names', () => {
    expect(parseShardName('/m/GLM-5-Q4_K_M-00002-of-00017.gguf')).toEqual({ base: '/m/GLM-5-Q4_K_M', no: 2, count: 17 });
    expect(parseShardName('/m/model.gguf')).toBeUndefined();
    expect(parseShardName('/m/x-00004-of-00003.gguf')).toBeUndefined();
    expect(shardPath('/m/x', 3, 12)).toBe('/m/x-00003-of-00012.gguf');
  });

  it('partitions tensors into consecutive non-empty runs of about equal bytes', () => {
    expect(partition([100, 1, 1, 1, 100], 3)).toEqual([1, 4, 5]);
    expect(partition([1, 1, 1], 3)).toEqual([1, 2, 3]);
    expect(partition([5, 5, 5, 5], 2)).toEqual([2, 4]);
    expect(partition([1000, 1, 1], 2)).toEqual([1, 3]);
  });
});

describe('writeGgufSplit / openGguf of a split', () => {
  it('opens all 3 shards from the second one: metadata from shard 1, tensors from every shard', () => {
    const paths = writeGgufSplit(join(dir, 'tiny'), META, TENSORS, 3);
    expect(paths).toEqual([1, 2, 3].map((k) => join(dir, `tiny-0000${k}-of-00003.gguf`)));
    const shards = paths.map(readGgufHeader);
    expect(shards.every((h) => h.tensors.length > 0)).toBe(true);
    expect([...shards[0]!.metadata.keys()]).toEqual(['general.name', 'test.u64.big', 'split.no', 'split.count', 'split.tensors.count']);
    expect([...shards[1]!.metadata.keys()]).toEqual(['split.no', 'split.count', 'split.tensors.count']);
    expect(shards.map((h) => h.metadata.get('split.no'))).toEqual([0, 1, 2].map((value) => ({ type: 'UINT16', value })));

    const m = openGguf(paths[1]!);
    expect(m.files).toEqual(paths);
    expect(metaValue(m, 'general.name')).toBe('glm-dsa');
    expect(metaValue(m, 'split.no')).toBe(0);
    expect([...m.tensors.keys()]).toEqual(CASES.map((c) => c.name));
    const first = shards[0]!.tensors[0]!.name;
    const last = shards[2]!.tensors.at(-1)!.name;
    expect(m.tensors.get(first)!.file).toBe(paths[0]);
    expect(m.tensors.get(last)!.file).toBe(paths[2]);
    for (const c of CASES) expect(readTensorF32(m, c.name)).toEqual(expected(c));
  });

  it('a missing shard is file-not-found naming it', () => {
    const paths = writeGgufSplit(join(dir, 'tiny'), META, TENSORS, 3);
    unlinkSync(paths[2]!);
    expect(() => openGguf(paths[0]!)).toThrow(expect.objectContaining({ code: 'file-not-found', where: { file: paths[2] } }));
  });

  it('split.count disagreeing with the file names is checkpoint-invalid', () => {
    const paths = writeGgufSplit(join(dir, 'tiny'), META, TENSORS, 2);
    const wrong = join(dir, 'tiny-00001-of-00003.gguf');
    writeGguf(wrong, { 'split.no': { type: 'UINT16', value: 0 }, 'split.count': { type: 'UINT16', value: 2 } }, []);
    writeGguf(join(dir, 'tiny-00002-of-00003.gguf'), {}, []);
    writeGguf(join(dir, 'tiny-00003-of-00003.gguf'), {}, []);
    expect(() => openGguf(wrong)).toThrow(
      expect.objectContaining({ code: 'checkpoint-invalid', where: { file: wrong, field: 'split.count' } }),
    );
    // A renamed shard outside the naming scheme still says it is one of 2.
    const renamed = join(dir, 'renamed.gguf');
    writeGguf(renamed, { 'split.count': { type: 'UINT16', value: 2 } }, []);
    expect(() => openGguf(renamed)).toThrow(expect.objectContaining({ code: 'checkpoint-invalid' }));
    expect(openGguf(paths[1]!).tensors.size).toBe(CASES.length);
  });

  it('a shard-named file without split keys is read alone, as llama.cpp does', () => {
    const p = join(dir, 'x-00001-of-00002.gguf');
    writeGguf(p, {}, TENSORS.slice(0, 1));
    expect(openGguf(p).files).toEqual([p]);
  });

  it('split.tensors.count disagreeing with the shards is checkpoint-invalid', () => {
    const meta = (no: number) =>
      ({
        'split.no': { type: 'UINT16', value: no },
        'split.count': { type: 'UINT16', value: 2 },
        'split.tensors.count': { type: 'INT32', value: 5 },
      }) as const;
    writeGguf(join(dir, 'y-00001-of-00002.gguf'), meta(0), TENSORS.slice(0, 1));
    writeGguf(join(dir, 'y-00002-of-00002.gguf'), meta(1), TENSORS.slice(1, 2));
    expect(() => openGguf(join(dir, 'y-00002-of-00002.gguf'))).toThrow(
      expect.objectContaining({ code: 'checkpoint-invalid', where: expect.objectContaining({ field: 'split.tensors.count' }) }),
    );
  });
});
