/**
 * Whatever throws inside the CLI, tfjs-backend-wasm's emscripten handlers included (they rethrow: Node's exit 7), ends as
 * `mla-diff: internal error: …` and exit 3, the stack only with --verbose; yargs' own failures exit 2.
 */
import execa from 'execa';
import { CLI, mla, ROOT, stackLines, suiteDir, TINY_SMOKE } from './cli-helpers';

const dir = suiteDir();

/**
 * Loaded with `node -r` before the CLI: once the wasm backend has installed its process handlers (a second
 * 'unhandledRejection' listener beside mla-diff's), throws or rejects from a timer, as a bug in tfjs would.
 */
const PLANT = `
const armed = setInterval(() => {
  if (process.listeners('unhandledRejection').length < 2) return;
  clearInterval(armed);
  if (process.env.PLANT === 'throw') throw new Error('planted crash');
  Promise.reject(new Error('planted rejection'));
}, 5);
`;

async function planted(kind: 'throw' | 'reject', verbose = false) {
  const plant = dir.write('plant.js', PLANT);
  const args = ['-r', plant, CLI, 'run', TINY_SMOKE, '--device', 'wasm', ...(verbose ? ['--verbose'] : [])];
  return execa('node', args, { cwd: ROOT, reject: false, env: { NO_COLOR: '1', PLANT: kind } });
}

describe('crashes', () => {
  it('an uncaught exception after the wasm backend loaded: internal error, exit 3, no stack', async () => {
    const r = await planted('throw');
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('mla-diff: internal error: planted crash');
    expect(r.stderr).toContain('(pass --verbose for the stack trace)');
    expect(stackLines(r.stderr)).toEqual([]);
  });

  it('an unhandled rejection: internal error, exit 3; --verbose adds the stack', async () => {
    const r = await planted('reject', true);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('mla-diff: internal error: planted rejection');
    expect(stackLines(r.stderr).length).toBeGreaterThan(0);
  });

  it.each([[['no-such-command']], [['run', TINY_SMOKE, '--device', 'abacus']], [['run']]])('yargs rejects %j: exit 2', async (args) => {
    const r = await mla(args);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('mla-diff: error [usage]');
  });
});
