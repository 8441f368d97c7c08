import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MlaDiffError } from '../../../errors';
import { loadMatrix } from '../../../harness/sweep/matrix';
import { runPoint } from '../../../harness/sweep/worker';
import { mergeCommand } from './merge';
import { sweepCommand } from './sweep';

/** The error paths of sweep, merge and the worker that stop before any point runs. */
const io = { out: () => {}, err: () => {} };
async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return e instanceof MlaDiffError ? e.code : `not an MlaDiffError: ${String(e)}`;
  }
  return 'nothing thrown';
}

describe('sweep, merge and worker: bad input', () => {
  let dir: string;
  let matrix: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mla-sweep-cli-'));
    matrix = join(dir, 'm.yaml');
    writeFileSync(
      matrix,
      'format: mla-diff/sweep\nversion: 1\nname: m\nbase: {model: {preset: tiny}, prompt: {length: 3}}\naxes: {seed: [1, 2]}\n',
    );
    writeFileSync(join(dir, 'not.json'), 'not json');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const args = { matrix: '', format: 'table' as const, device: 'cpu' as const, full: false, force: false, verbose: false };

  it.each([0, -1, 1.5])('--jobs %p is a usage error', async (jobs) => {
    expect(await code(sweepCommand({ ...args, matrix, jobs }, io))).toBe('usage');
  });

  it('--shard out of range is a usage error; a missing matrix is file-not-found', async () => {
    expect(await code(sweepCommand({ ...args, matrix, shard: '0/1' }, io))).toBe('usage');
    expect(await code(sweepCommand({ ...args, matrix: join(dir, 'gone.yaml') }, io))).toBe('file-not-found');
  });

  it('merge: a missing file, a file that is not JSON', async () => {
    const m = { format: 'table' as const, allowMissing: false, force: false, verbose: false };
    expect(await code(mergeCommand({ ...m, reports: [join(dir, 'gone.json')] }, io))).toBe('file-not-found');
    expect(await code(mergeCommand({ ...m, reports: [join(dir, 'not.json')] }, io))).toBe('sweep-mismatch');
  });

  it('worker: missing arguments, a matrix whose hash changed, a point that does not exist', async () => {
    expect(await code(runPoint([matrix, '0']))).toBe('usage');
    expect(await code(runPoint([matrix, '0', 'stale-hash', 'cpu', join(dir, 'o.json')]))).toBe('sweep-mismatch');
    expect(await code(runPoint([matrix, '7', loadMatrix(matrix).hash, 'cpu', join(dir, 'o.json')]))).toBe('invalid-value');
  });
});
