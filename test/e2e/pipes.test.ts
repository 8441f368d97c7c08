/** A reader that goes away (`| head -1`): EPIPE on stdout or stderr ends the CLI quietly with exit 0, whatever the verdict. */
import { spawn } from 'node:child_process';
import execa from 'execa';
import { CLI, ROOT, stackLines, suiteDir, TINY_SMOKE, tinyScenario } from './cli-helpers';

const dir = suiteDir();

/** The built CLI on wasm with stdout and/or stderr's reading end closed before it writes a byte: its exit code and stderr. */
function closed(args: string[], which: ('stdout' | 'stderr')[]): Promise<{ exitCode: number | null; stderr: string }> {
  const child = spawn('node', [CLI, ...args, '--device', 'wasm'], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
  let stderr = '';
  if (!which.includes('stderr')) child.stderr.on('data', (c: Buffer) => (stderr += String(c)));
  for (const w of which) child[w].destroy();
  return new Promise((done) => child.on('exit', (exitCode) => done({ exitCode, stderr })));
}

describe('pipes', () => {
  it('run --format json | head -1: the first line, exit 0, nothing on stderr', async () => {
    // the run JSON is ~270 kB, far past a pipe's buffer: head exits while the CLI still writes
    const r = await execa('bash', ['-c', `node ${JSON.stringify(CLI)} run ${JSON.stringify(TINY_SMOKE)} --format json | head -1`], {
      cwd: ROOT,
      reject: false,
      env: { NO_COLOR: '1' },
    });
    expect(r.stdout).toBe('{');
    expect(r.stderr).toBe('');
    const code = await execa(
      'bash',
      ['-c', `node ${JSON.stringify(CLI)} run ${JSON.stringify(TINY_SMOKE)} --format json | head -1 >/dev/null; echo \${PIPESTATUS[0]}`],
      {
        cwd: ROOT,
        reject: false,
      },
    );
    expect(code.stdout.trim()).toBe('0');
  });

  it('stdout closed on a diverging run (exit 1 otherwise): exit 0, no stack trace', async () => {
    const fault = dir.write('fault.yaml', tinyScenario('fault', 'faults: [{path: mqa, fault: kv-norm-skipped}]\n'));
    const r = await closed(['run', fault, '--format', 'json'], ['stdout']);
    expect(r.exitCode).toBe(0);
    expect(stackLines(r.stderr)).toEqual([]);
    expect(r.stderr).not.toMatch(/EPIPE|internal error/);
  });

  it('stderr closed under --verbose (log lines on stderr): exit 0', async () => {
    const r = await closed(['run', TINY_SMOKE, '--verbose'], ['stderr']);
    expect(r.exitCode).toBe(0);
  });
});
