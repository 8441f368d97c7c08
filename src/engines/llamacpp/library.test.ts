import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { thrownCode } from '../../test-utils/errors';
import type { AbiRelease } from './abi';
import { VERIFIED } from './abi';
import type { Koffi } from './library';
import { findLibDir, libraryFile, verifyAbi } from './library';

/** A koffi whose layouts are given: the sizes and offsets a struct declaration would produce. */
const fakeKoffi = (sizes: Record<string, number>, offsets: Record<string, number>): Koffi =>
  ({
    sizeof: (t: unknown) => sizes[t as string]!,
    offsetof: (t: unknown, f: string) => offsets[`${t as string}.${f}`]!,
  }) as unknown as Koffi;

const types = { model: 'model', context: 'context', batch: 'batch', tensor: 'tensor' };
const sizes = { model: 80, context: 160, batch: 56, tensor: 336 };
const offsets = (r: AbiRelease) =>
  Object.fromEntries(
    Object.entries(r.offsets).map(([k, v]) => [
      k
        .replace(/^llama_model_params/, 'model')
        .replace(/^llama_context_params/, 'context')
        .replace(/^ggml_tensor/, 'tensor'),
      v,
    ]),
  );

describe('the llama.cpp binding', () => {
  it('accepts the layouts measured on the verified release', () => {
    expect(() => verifyAbi(fakeKoffi(sizes, offsets(VERIFIED)), types, VERIFIED)).not.toThrow();
  });
  it('refuses a struct whose size or field offset moved (engine-abi)', () => {
    expect(thrownCode(() => verifyAbi(fakeKoffi({ ...sizes, context: 168 }, offsets(VERIFIED)), types, VERIFIED))).toBe('engine-abi');
    const moved = { ...offsets(VERIFIED), 'context.cb_eval': 96 };
    expect(thrownCode(() => verifyAbi(fakeKoffi(sizes, moved), types, VERIFIED))).toBe('engine-abi');
  });
  it('says engine-unavailable where no build is installed', () => {
    expect(thrownCode(() => findLibDir('cpu', { MLA_DIFF_LLAMA_CPP_DIR: '/nonexistent' }))).toBe('engine-unavailable');
    expect(thrownCode(() => findLibDir('vulkan', {}, '/'))).toBe('engine-unavailable');
  });
  it("names a build's library files: the CPU build's, else the Vulkan build's", () => {
    const dir = mkdtempSync(join(tmpdir(), 'mla-diff-libdir-'));
    try {
      writeFileSync(join(dir, 'libllama.vulkan.v0.5.0.so'), '');
      expect(libraryFile(dir, VERIFIED.libllama)).toBe('libllama.vulkan.v0.5.0.so');
      expect(findLibDir('cpu', { MLA_DIFF_LLAMA_CPP_DIR: dir })).toBe(dir);
      writeFileSync(join(dir, VERIFIED.libllama), '');
      expect(libraryFile(dir, VERIFIED.libllama)).toBe(VERIFIED.libllama);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
