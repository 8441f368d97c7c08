import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readGgufHeader } from './header';
import { openGguf } from './read';
import { MAX_ARRAY_LENGTH, MAX_METADATA_KEYS, MAX_TENSORS } from './value-types';
import { MAX_STRING_BYTES } from './cursor';

/**
 * Issue 23: every count a GGUF header states is bounded before anything is allocated for it. A count
 * that fits the file but not the reader is limit-exceeded (the files are sparse: the count is read first).
 */
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mla-diff-gguf-limits-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};
const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
};
const str = (s: string) => Buffer.concat([u64(Buffer.byteLength(s)), Buffer.from(s)]);
const head = (tensors: number, kvs: number) => Buffer.concat([u32(0x46554747), u32(3), u64(tensors), u64(kvs)]);

let n = 0;
/** The bytes, then zeros (a sparse extent) up to `size`. */
const sparse = (bytes: Buffer, size: number): string => {
  const p = join(dir, `f${n++}.gguf`);
  writeFileSync(p, bytes);
  truncateSync(p, Math.max(size, bytes.length));
  return p;
};
const err = (code: string, field?: string) =>
  expect.objectContaining({ code, ...(field ? { where: expect.objectContaining({ field }) } : {}) });

describe('GGUF counts beyond what the reader holds', () => {
  it('a tensor count over MAX_TENSORS, in a file large enough for it → limit-exceeded', () => {
    const p = sparse(head(MAX_TENSORS + 1, 0), (MAX_TENSORS + 1) * 24 + 64);
    expect(() => readGgufHeader(p)).toThrow(err('limit-exceeded', 'tensor_count'));
  });

  it('a metadata count over MAX_METADATA_KEYS → limit-exceeded', () => {
    const p = sparse(head(0, MAX_METADATA_KEYS + 1), (MAX_METADATA_KEYS + 1) * 13 + 64);
    expect(() => readGgufHeader(p)).toThrow(err('limit-exceeded', 'metadata_kv_count'));
  });

  it('an array longer than MAX_ARRAY_LENGTH → limit-exceeded naming its key', () => {
    const bytes = Buffer.concat([head(0, 1), str('tokenizer.ggml.tokens'), u32(9), u32(0), u64(MAX_ARRAY_LENGTH + 1)]);
    const p = sparse(bytes, bytes.length + MAX_ARRAY_LENGTH + 64);
    expect(() => readGgufHeader(p)).toThrow(err('limit-exceeded', 'tokenizer.ggml.tokens'));
  });

  it('a string longer than MAX_STRING_BYTES → limit-exceeded', () => {
    const bytes = Buffer.concat([head(0, 1), str('tokenizer.chat_template'), u32(8), u64(MAX_STRING_BYTES + 1)]);
    const p = sparse(bytes, bytes.length + MAX_STRING_BYTES + 64);
    expect(() => readGgufHeader(p)).toThrow(err('limit-exceeded', 'tokenizer.chat_template'));
  });

  it('a key of 2^40 bytes in a small file → checkpoint-truncated, nothing allocated', () => {
    const p = sparse(Buffer.concat([head(0, 1), u64(2 ** 40)]), 0);
    expect(() => readGgufHeader(p)).toThrow(err('checkpoint-truncated'));
  });

  it('counts at the limit in a short file are still checkpoint-truncated (the file size is checked first)', () => {
    const p = sparse(head(MAX_TENSORS, 0), 0);
    expect(() => readGgufHeader(p)).toThrow(err('checkpoint-truncated', 'tensor_count'));
  });
});

describe('a GGUF path that is no regular file', () => {
  it('a directory named model.gguf → file-unreadable', () => {
    const d = join(dir, 'model.gguf');
    mkdirSync(d);
    expect(() => openGguf(d)).toThrow(err('file-unreadable'));
  });

  it('a FIFO → file-unreadable (the open never blocks)', () => {
    const f = join(dir, 'fifo.gguf');
    execFileSync('mkfifo', [f]);
    expect(() => openGguf(f)).toThrow(err('file-unreadable'));
  });

  it('/dev/zero → file-unreadable', () => {
    expect(() => openGguf('/dev/zero')).toThrow(err('file-unreadable'));
  });
});
