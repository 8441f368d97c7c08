import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import execa from 'execa';
import { CLI, ROOT, stackLines, tinyScenario } from './cli-helpers';
import type { SmallDisk } from './tmpfs';
import { smallDisk } from './tmpfs';

/**
 * A full disk (ENOSPC) and a read-only one (EROFS), on a small tmpfs (./tmpfs.ts): the write fails with
 * write-failed (exit 3) naming the path and the OS's reason, and no temp file stays. Skipped, with a
 * note, where this machine cannot mount a tmpfs (neither root nor `unshare -rm`).
 */
describe('a full or read-only disk (e2e)', () => {
  let dir = '';
  let full: SmallDisk | { skip: string } = { skip: 'not set up' };
  let ro: SmallDisk | { skip: string } = { skip: 'not set up' };
  const scenario = () => join(dir, 's.yaml');

  beforeAll(async () => {
    if (!existsSync(CLI)) await execa('npm', ['run', 'build'], { cwd: ROOT });
    dir = mkdtempSync(join(tmpdir(), 'mla-diff-disk-e2e-'));
    writeFileSync(scenario(), tinyScenario('disk'));
    full = smallDisk({ bytes: 64 * 1024 });
    ro = smallDisk({ bytes: 64 * 1024, readOnly: true });
  });
  afterAll(() => {
    for (const d of [full, ro]) if (!('skip' in d)) d.release();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a full disk: write-failed (exit 3) naming the path and ENOSPC; no *.tmp-* file left', async () => {
    if ('skip' in full) return console.warn(full.skip);
    for (const flag of ['--out', '--junit']) {
      const top = join(full.dir, 'r.json');
      const f = await full.run(['node', CLI, 'run', scenario(), '--device', 'cpu', '--format', 'json', flag, top], { fill: true });
      expect([flag, f.exitCode, f.stderr.includes('[write-failed]'), f.stderr.includes(top), f.stderr.includes('(ENOSPC)')]).toEqual([
        flag,
        3,
        true,
        true,
        true,
      ]);
      expect(stackLines(f.stderr)).toEqual([]);
      expect(f.listing).toEqual(['fill']);
    }
  });

  it('a full disk: the report mla-diff wrote before stays whole, the failed one leaves no temp file', async () => {
    if ('skip' in full) return console.warn(full.skip);
    const old = 'mla-diff report\nold\n';
    const out = join(full.dir, 'r.txt');
    const r = await full.run(['node', CLI, 'run', scenario(), '--device', 'cpu', '--out', out], { files: { 'r.txt': old }, fill: true });
    expect([r.exitCode, r.stderr.includes('[write-failed]')]).toEqual([3, true]);
    expect(r.listing.sort()).toEqual(['fill', 'r.txt']);
    const kept = await full.run(['cat', out], { files: { 'r.txt': old } });
    expect(kept.stdout).toBe(old.trimEnd());
  });

  it('a read-only disk: write-failed (exit 3) with EROFS, before the run', async () => {
    if ('skip' in ro) return console.warn(ro.skip);
    const out = join(ro.dir, 'r.json');
    const r = await ro.run(['node', CLI, 'run', scenario(), '--device', 'cpu', '--out', out]);
    expect([r.exitCode, r.stderr.includes('[write-failed]'), r.stderr.includes(out), r.stderr.includes('(EROFS)')]).toEqual([
      3,
      true,
      true,
      true,
    ]);
    expect(r.listing).toEqual([]);
    expect(readFileSync(scenario(), 'utf8')).toBe(tinyScenario('disk'));
  });

  it('TMPDIR full while an external backend runs: write-failed (exit 3) naming the exchange directory, nothing left', async () => {
    if ('skip' in full) return console.warn(full.skip);
    const backend = join(ROOT, 'examples', 'backends', 'node-mla.mjs');
    const x = join(dir, 'x.yaml');
    writeFileSync(x, tinyScenario('disk-x', `external:\n  command: ${JSON.stringify(`node ${backend}`)}\n  timeout_s: 60\n`));
    const r = await full.run(['node', CLI, 'run', x, '--device', 'cpu', '--out', join(dir, 'x.json')], {
      fill: true,
      env: { TMPDIR: full.dir },
    });
    expect([r.exitCode, r.stderr.includes('[write-failed]'), r.stderr.includes(full.dir), r.stderr.includes('ENOSPC')]).toEqual([
      3,
      true,
      true,
      true,
    ]);
    expect(stackLines(r.stderr)).toEqual([]);
    expect(r.listing).toEqual(['fill']);
    expect(existsSync(join(dir, 'x.json'))).toBe(false);
  });
});
