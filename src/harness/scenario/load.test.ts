import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ErrorCode } from '../../errors';
import { loadScenario } from './load';
import { failure } from '../../test-utils/errors';

/** A valid tiny scenario; `extra` is appended as more top-level YAML. */
const base = (extra = '') => `name: t\nmodel:\n  preset: tiny\nprompt:\n  ids: [1, 2, 3]\n${extra}`;

describe('loadScenario', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mla-diff-load-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads and parses a file, recording its path', () => {
    const file = join(dir, 'ok.yaml');
    writeFileSync(file, base());
    const s = loadScenario(file);
    expect(s.file).toBe(file);
    expect(s.requests[0]!.ids).toEqual([1, 2, 3]);
  });

  it('errors in a file carry its path', () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'name: t\nmodel:\n  preset: tiny\n  hiden_size: 1\nprompt: {ids: [1]}\n');
    const e = failure(() => loadScenario(file));
    expect(e.code).toBe('unknown-key');
    expect(e.where).toMatchObject({ file, line: 4, field: 'model.hiden_size' });
  });

  it.each<[string, ErrorCode, (d: string) => string]>([
    ['a missing file', 'file-not-found', (d) => join(d, 'does-not-exist.yaml')],
    ['a file under a missing directory', 'file-not-found', (d) => join(d, 'nope', 'x.yaml')],
    [
      'a directory',
      'file-unreadable',
      (d) => {
        const sub = join(d, 'a-directory.yaml');
        mkdirSync(sub, { recursive: true });
        return sub;
      },
    ],
  ])('%s → %s naming the file', (_what, code, make) => {
    const file = make(dir);
    const e = failure(() => loadScenario(file));
    expect(e.code).toBe(code);
    expect(e.where.file).toBe(file);
  });
});

describe('the shipped scenarios', () => {
  const root = resolve(__dirname, '../../../scenarios');
  const files = [
    ...readdirSync(root).filter((f) => f.endsWith('.yaml')),
    ...['gpu', 'mutants'].flatMap((dir) =>
      readdirSync(join(root, dir))
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => join(dir, f)),
    ),
  ];

  it('there are scenarios to check', () => {
    expect(files.length).toBeGreaterThanOrEqual(4);
    expect(files).toEqual(expect.arrayContaining(['tiny-smoke.yaml', join('gpu', 'glm5-long-2048.yaml')]));
  });

  it.each(files)('%s loads', (f) => {
    const s = loadScenario(join(root, f));
    expect(s.name.length).toBeGreaterThan(0);
    expect(s.cases.length).toBeGreaterThan(0);
    expect(s.requests.length).toBeGreaterThan(0);
    for (const r of s.requests) {
      expect(r.ids.length).toBe(r.phases.reduce((n, p) => n + p.tokens, 0));
      expect(r.ids.reduce((a, b) => Math.max(a, b), 0)).toBeLessThan(s.config.vocab_size); // 128k ids: no spread
      expect(r.positionOffset + r.ids.length).toBeLessThanOrEqual(s.config.max_position_embeddings);
    }
  });
});
