import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureFixtures, FIXTURE_ENTRIES, fixtureCacheDir, fixtureOnDemand, fixtureRelative } from './fixture-cache';

let base: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'mla-diff-fixture-cache-'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('checkpoint fixtures on demand', () => {
  it('recognises a fixture path below fixtures/checkpoints/, and nothing else', () => {
    expect(fixtureRelative('/pkg/fixtures/checkpoints/tiny-q8_0.gguf')).toBe('tiny-q8_0.gguf');
    expect(fixtureRelative('/a/fixtures/checkpoints/tiny-bf16/tokenizer.json')).toBe(join('tiny-bf16', 'tokenizer.json'));
    expect(fixtureRelative('/a/fixtures/checkpoints/my-model.gguf')).toBeNull();
    expect(fixtureRelative('/a/models/tiny-q8_0.gguf')).toBeNull();
  });

  it('caches per version under XDG_CACHE_HOME, else ~/.cache', () => {
    expect(fixtureCacheDir({ XDG_CACHE_HOME: '/c' }, '1.2.3')).toBe(join('/c', 'mla-diff', 'fixtures-1.2.3'));
    expect(fixtureCacheDir({}, '1.2.3')).toMatch(/\.cache[/\\]mla-diff[/\\]fixtures-1\.2\.3$/);
  });

  it('writes every fixture once, into place, and reads a missing scenario path from there', () => {
    const env = { XDG_CACHE_HOME: base };
    const dir = fixtureCacheDir(env);
    const first = fixtureOnDemand('/nowhere/fixtures/checkpoints/small-fp8', env);
    expect(first).toBe(join(dir, 'small-fp8'));
    expect(FIXTURE_ENTRIES.filter((e) => !existsSync(join(dir, e)))).toEqual([]);
    expect(readdirSync(join(base, 'mla-diff'))).toEqual([readdirSync(join(base, 'mla-diff'))[0]]); // no temporary folder left
    const mtime = statSync(join(dir, 'tiny-q8_0.gguf')).mtimeMs;
    expect(ensureFixtures(dir)).toEqual({ dir, written: false });
    expect(statSync(join(dir, 'tiny-q8_0.gguf')).mtimeMs).toBe(mtime);
    expect(fixtureOnDemand('/nowhere/fixtures/checkpoints/tiny-bf16/no-such-file', env)).toBeNull();
    expect(fixtureOnDemand('/nowhere/models/x.gguf', env)).toBeNull();
  });
});
