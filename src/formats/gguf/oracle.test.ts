import { gguf } from '@huggingface/gguf';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GGML_TYPES } from './ggml-types';
import { readGgufHeader } from './header';
import { CASES, EVERY_TYPE } from './test-utils/gguf-fixtures';
import type { GgufEntry, GgufValue } from './types';
import { valueTypeId } from './value-types';
import { writeGguf } from './write';
import { writeGgufSplit } from './write-split';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mla-diff-gguf-oracle-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Our value as @huggingface/gguf reports it: every 64-bit integer a bigint. */
function asOracle(e: GgufEntry | undefined, v: GgufValue | undefined = e?.value): unknown {
  if (e === undefined || v === undefined) return undefined;
  if (e.type === 'UINT64' || e.type === 'INT64') return BigInt(v as number | bigint);
  if (e.type === 'ARRAY' && e.itemType === 'ARRAY') return e.items!.map((i) => asOracle(i));
  if (e.type === 'ARRAY' && (e.itemType === 'UINT64' || e.itemType === 'INT64')) return (v as GgufValue[]).map((x) => BigInt(x as number));
  return v;
}

/** Checks that @huggingface/gguf parses `path` as our reader does. */
async function agree(path: string): Promise<void> {
  const ours = readGgufHeader(path);
  const theirs = await gguf(path, { allowLocalFile: true, typedMetadata: true });
  expect(theirs.metadata.version).toBe(ours.version);
  expect(theirs.tensorDataOffset).toBe(BigInt(ours.dataStart));
  const keys = Object.keys(theirs.typedMetadata).filter((k) => !['version', 'tensor_count', 'kv_count'].includes(k));
  expect(keys).toEqual([...ours.metadata.keys()]);
  for (const [k, e] of ours.metadata) {
    const t = theirs.typedMetadata[k]!;
    expect(t.type).toBe(valueTypeId(e.type));
    if (e.type === 'ARRAY') expect((t as { subType?: number }).subType).toBe(valueTypeId(e.itemType!));
    expect(t.value).toEqual(asOracle(e));
  }
  expect(theirs.tensorInfos.map((t) => ({ name: t.name, n_dims: t.n_dims, shape: t.shape, dtype: t.dtype, offset: t.offset }))).toEqual(
    ours.tensors.map((t) => ({
      name: t.name,
      n_dims: t.ne.length,
      shape: t.ne.map(BigInt),
      dtype: GGML_TYPES[t.type].id,
      offset: BigInt(t.offset - ours.dataStart),
    })),
  );
}

describe('@huggingface/gguf (an independent parser) reads our files as we do', () => {
  it('every metadata value type and tensors of every layout', async () => {
    const path = join(dir, 'every.gguf');
    writeGguf(
      path,
      EVERY_TYPE,
      CASES.map(({ name, ne, type, data }) => ({ name, ne, type, data })),
    );
    await agree(path);
  });

  it('alignment 64', async () => {
    const path = join(dir, 'align64.gguf');
    writeGguf(
      path,
      { 'general.alignment': { type: 'UINT32', value: 64 }, 'general.name': { type: 'STRING', value: 'x' } },
      CASES.map(({ name, ne, type, data }) => ({ name, ne, type, data })),
    );
    await agree(path);
  });

  it('every shard of a split', async () => {
    const paths = writeGgufSplit(
      join(dir, 'split'),
      { 'general.name': { type: 'STRING', value: 'tiny' } },
      CASES.map(({ name, ne, type, data }) => ({ name, ne, type, data })),
      3,
    );
    for (const p of paths) await agree(p);
    const second = await gguf(paths[1]!, { allowLocalFile: true, typedMetadata: true });
    expect(second.typedMetadata['split.no']).toEqual({ type: 2, value: 1 });
    expect(second.typedMetadata['split.count']).toEqual({ type: 2, value: 3 });
    expect(second.typedMetadata['split.tensors.count']).toEqual({ type: 5, value: CASES.length });
  });
});
