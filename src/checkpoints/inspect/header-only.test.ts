import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFixtures } from '../checkpoint/fixtures';
import { RandomAccessFile } from '../../formats/file';
import { openGguf } from '../../formats/gguf/read';
import { openSafetensors } from '../../formats/safetensors';
import { inspectCheckpoint } from '.';
import { overwriteTensorData } from './test-utils/checkpoints';

/**
 * A 400 GB checkpoint must be inspected from its headers: without --layer no byte of tensor data
 * is read. Shown two ways: every read starts before the file's first tensor (the GGUF header
 * cursor reads ahead in chunks of at most 1 MiB, which may run past the header of a small file),
 * and a copy whose tensor data is overwritten reports exactly the same (while --layer sees the new values).
 */
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mla-diff-inspect-header-'));
  writeFixtures(join(dir, 'fx'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The GGUF header cursor's read-ahead (HeaderCursor's chunk); safetensors headers are read in one piece. */
const HEADER_CHUNK = 1 << 20;

type Tensors = (p: string) => Iterable<{ file: string; offset: number }>;
const gguf: Tensors = (p) => openGguf(p).tensors.values();
const st: Tensors = (p) => openSafetensors(p).tensors.values();

/** [what, files to copy, path to inspect (in the copy), tensor listing]. */
const CASES: [string, string[], string, Tensors][] = [
  ['a GGUF', ['tiny-q8_0.gguf'], 'tiny-q8_0.gguf', gguf],
  ['a split GGUF', ['small-q4_k-00001-of-00002.gguf', 'small-q4_k-00002-of-00002.gguf'], 'small-q4_k-00001-of-00002.gguf', gguf],
  [
    'one safetensors file',
    ['tiny-bf16/model.safetensors', 'tiny-bf16/config.json', 'tiny-bf16/tokenizer.json'],
    'tiny-bf16/model.safetensors',
    st,
  ],
  [
    'sharded safetensors',
    [
      'small-fp8/model-00001-of-00002.safetensors',
      'small-fp8/model-00002-of-00002.safetensors',
      'small-fp8/model.safetensors.index.json',
      'small-fp8/config.json',
    ],
    'small-fp8',
    st,
  ],
];

function copyOf(name: string, files: string[]): string {
  const copy = join(dir, name.replace(/\W/g, '_'));
  for (const f of files) {
    mkdirSync(join(copy, f, '..'), { recursive: true });
    copyFileSync(join(dir, 'fx', f), join(copy, f));
  }
  return copy;
}

describe('inspect reads no tensor data without --layer', () => {
  afterEach(() => jest.restoreAllMocks());

  it.each(CASES)('%s: every read starts in the header, none at tensor data', (what, files, path, tensors) => {
    const p = join(copyOf(`reads ${what}`, files), path);
    const first = new Map<string, number>();
    for (const t of tensors(p)) first.set(t.file, Math.min(first.get(t.file) ?? Infinity, t.offset));
    const reads: { file: string; offset: number; length: number }[] = [];
    const read = RandomAccessFile.prototype.read;
    jest.spyOn(RandomAccessFile.prototype, 'read').mockImplementation(function (this: RandomAccessFile, offset, length, w, dst) {
      reads.push({ file: this.path, offset, length });
      return read.call(this, offset, length, w, dst);
    });
    inspectCheckpoint(p);
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.filter((r) => !(r.offset < first.get(r.file)! && r.length <= HEADER_CHUNK))).toEqual([]);
    reads.length = 0;
    inspectCheckpoint(p, { layer: 0 });
    expect(reads.some((r) => r.offset >= first.get(r.file)!)).toBe(true); // the spy does see tensor reads
  });

  it.each(CASES)('%s with its tensor data overwritten reports the same; --layer sees the change', (what, files, path, tensors) => {
    const p = join(copyOf(`garbage ${what}`, files), path);
    const before = inspectCheckpoint(p);
    const sums = (r = inspectCheckpoint(p, { layer: 0 })) => r.weights!.records.map((x) => x.checksum);
    const sumsBefore = sums();
    overwriteTensorData(tensors(p));
    expect(inspectCheckpoint(p)).toEqual(before);
    expect(sums()).not.toEqual(sumsBefore);
  });
});
