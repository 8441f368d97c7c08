import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import execa from 'execa';

/**
 * The sweep acceptance test, through the built CLI: a 2 seeds × 2 faults matrix on the tiny
 * layer run whole, then as 2 shards on "two machines", merged — the union of the shards is the
 * unsharded run, point for point (timings aside).
 */
const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'dist', 'surface', 'cli', 'main.js');

jest.setTimeout(120_000);

const mla = (args: string[]) => execa('node', [CLI, ...args], { cwd: ROOT, reject: false, env: { NO_COLOR: '1' } });

const MATRIX = `format: mla-diff/sweep
version: 1
name: e2e
base:
  model: {preset: tiny}
  prompt: {length: 5}
axes:
  seed: [1, 2]
  faults: [none, {path: mqa, fault: softmax-scale-latent}]
`;

interface SweepJson {
  format: string;
  version: number;
  matrix: { hash: string; points: number };
  shard: { index: number; count: number } | null;
  summary: { points: number; met: number };
  points: {
    index: number;
    id: string;
    verdict: string;
    met: boolean;
    seconds: number;
    firstDivergence: { stage: string; culprit: string } | null;
  }[];
}
const read = (f: string) => JSON.parse(readFileSync(f, 'utf8')) as SweepJson;
const timeless = (r: SweepJson) => r.points.map(({ seconds: _s, ...p }) => p);

describe('mla-diff sweep and merge (e2e)', () => {
  let dir: string;
  let matrix: string;
  beforeAll(async () => {
    if (!existsSync(CLI)) await execa('npm', ['run', 'build'], { cwd: ROOT });
    dir = mkdtempSync(join(tmpdir(), 'mla-sweep-e2e-'));
    matrix = join(dir, 'm.yaml');
    writeFileSync(matrix, MATRIX);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the merged shards equal the unsharded run (--jobs 2)', async () => {
    const whole = await mla(['sweep', matrix, '--device', 'cpu', '--jobs', '2', '--out', join(dir, 'whole.json')]);
    expect(whole.exitCode).toBe(0);
    expect(whole.stdout).toContain('PASS: all 4 points met their expectation');
    const all = read(join(dir, 'whole.json'));
    expect(all.format).toBe('mla-diff/sweep');
    expect(all.points.map((p) => p.id)).toEqual([
      'seed=1,fault=none',
      'seed=1,fault=mqa:softmax-scale-latent',
      'seed=2,fault=none',
      'seed=2,fault=mqa:softmax-scale-latent',
    ]);
    expect(all.points.map((p) => p.verdict)).toEqual(['agree', 'diverge', 'agree', 'diverge']);
    expect(all.points[1]!.firstDivergence).toMatchObject({ stage: 'logits', culprit: 'mqa' });

    const shards = await Promise.all(
      [1, 2].map((i) => mla(['sweep', matrix, '--device', 'cpu', '--jobs', '1', '--shard', `${i}/2`, '--out', `${dir}/shards/`])),
    );
    expect(shards.map((s) => s.exitCode)).toEqual([0, 0]);
    const s1 = read(join(dir, 'shards', 'e2e.shard-1-of-2.json'));
    expect(s1.shard).toEqual({ index: 1, count: 2 });
    expect(s1.points.map((p) => p.index)).toEqual([0, 2]);

    const merged = await mla([
      'merge',
      join(dir, 'shards', 'e2e.shard-2-of-2.json'),
      join(dir, 'shards', 'e2e.shard-1-of-2.json'),
      '--format',
      'json',
    ]);
    expect(merged.exitCode).toBe(0);
    const m = JSON.parse(merged.stdout) as SweepJson;
    expect(m.matrix).toEqual(all.matrix);
    expect(m.summary).toEqual(all.summary);
    expect(timeless(m)).toEqual(timeless(all));

    const one = await mla(['merge', join(dir, 'shards', 'e2e.shard-1-of-2.json')]);
    expect(one.exitCode).toBe(2);
    expect(one.stderr).toContain('[sweep-incomplete]');
    const partial = await mla(['merge', join(dir, 'shards', 'e2e.shard-1-of-2.json'), '--allow-missing']);
    expect(partial.exitCode).toBe(1);
    expect(partial.stdout).toContain('missing: 2 point(s)');
  });

  it('bad input: exit 2 with the code, no stack trace', async () => {
    const shard = await mla(['sweep', matrix, '--shard', '3/2']);
    expect([shard.exitCode, shard.stderr]).toEqual([2, expect.stringContaining('[usage]')]);
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, MATRIX.replace('seed: [1, 2]', 'seeds: [1, 2]'));
    const r = await mla(['sweep', bad]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`[unknown-key] ${bad}:8:3: axes.seeds`);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    writeFileSync(
      join(dir, 'other.json'),
      JSON.stringify({ ...read(join(dir, 'whole.json')), matrix: { name: 'x', file: 'x', hash: 'f00', points: 4 } }, null, 2),
    );
    const mixed = await mla(['merge', join(dir, 'whole.json'), join(dir, 'other.json')]);
    expect([mixed.exitCode, mixed.stderr]).toEqual([2, expect.stringContaining('[sweep-mismatch]')]);
  });
});
