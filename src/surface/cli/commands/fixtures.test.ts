import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURE_ENTRIES, fixtureCacheDir } from '../../../checkpoints/checkpoint/fixture-cache';
import { fixturesCommand } from './fixtures';

let base: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'mla-diff-fixtures-cmd-'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const buffer = () => {
  const out: string[] = [];
  return { out, io: { out: (t: string) => void out.push(t), err: (t: string) => void out.push(t) } };
};

describe('mla-diff fixtures', () => {
  it('writes into DIR and lists each file', () => {
    const { out, io } = buffer();
    expect(fixturesCommand({ dir: join(base, 'here'), verbose: false }, io, {})).toBe(0);
    expect(FIXTURE_ENTRIES.filter((e) => !existsSync(join(base, 'here', e)))).toEqual([]);
    expect(out.some((l) => /tiny-q8_0\.gguf \(\d+\.\d KiB\)$/.test(l))).toBe(true);
  });

  it('without DIR fills the cache once, then says it is there', () => {
    const env = { XDG_CACHE_HOME: join(base, 'cache') };
    const first = buffer();
    expect(fixturesCommand({ verbose: false }, first.io, env)).toBe(0);
    expect(first.out[0]).toBe(`wrote the checkpoint fixtures in ${fixtureCacheDir(env)}`);
    const again = buffer();
    expect(fixturesCommand({ verbose: false }, again.io, env)).toBe(0);
    expect(again.out[0]).toMatch(/^already there:/);
  });
});
