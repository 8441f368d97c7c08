import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import execa from 'execa';

/**
 * Exit codes through the built CLI: 0 every case passes, 1 a case fails, 2 bad input, 3 a runtime failure
 * (src/surface/cli/io/exit-codes.ts; the verdict rule: src/harness/compare/outcome.ts).
 */
const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'dist', 'surface', 'cli', 'main.js');
const mla = (args: string[]) => execa('node', [CLI, ...args, '--device', 'wasm'], { cwd: ROOT, reject: false, env: { NO_COLOR: '1' } });

jest.setTimeout(120_000);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mla-diff-exit-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it.each([
  ['agree', ['run', 'scenarios/tiny-smoke.yaml'], 0, null],
  ['a divergence its expect: declares', ['run', 'scenarios/fault-mqa-scale-576.yaml'], 0, null],
  ['divergence judged by agreement (--no-expect)', ['run', 'scenarios/fault-mqa-scale-576.yaml', '--no-expect'], 1, null],
  ['bad input: a missing scenario', ['run', 'scenarios/no-such.yaml'], 2, 'file-not-found'],
  ['runtime failure: an external backend that crashes', ['run', 'CRASH'], 3, 'external-failed'],
])('%s → exit %i', async (_what, args, exit, code) => {
  const file = join(dir, 'crash.yaml');
  writeFileSync(
    file,
    'name: crash\nmodel: {preset: tiny}\nweights: {synthetic: {seed: 3}}\nprompt:\n  ids: [5, 17]\n' +
      'external:\n  command: "exit 4"\n  timeout_s: 30\n',
  );
  const r = await mla(args.map((a) => (a === 'CRASH' ? file : a)));
  expect(r.exitCode).toBe(exit);
  if (code) expect(r.stderr).toContain(`error [${code}]`);
  expect(r.stderr).not.toMatch(/^\s+at /m);
});

it('--help documents the exit codes', async () => {
  const r = await mla(['--help']);
  expect(r.stdout).toMatch(/exit codes: 0 every case passes.*1 a case fails.*2 bad input.*3 runtime or device\s+failure.*interrupted/s);
});

it('bad input: MLA_DIFF_BLAS naming no BLAS → exit 2, one line naming it and a hint', async () => {
  const r = await execa('node', [CLI, 'run', 'scenarios/tiny-smoke.yaml', '--device', 'wasm'], {
    cwd: ROOT,
    reject: false,
    env: { NO_COLOR: '1', MLA_DIFF_BLAS: '/nonexistent/libopenblas.so.0' },
  });
  expect({ code: r.exitCode, stderr: r.stderr.split('\n').slice(0, 3) }).toMatchObject({ code: 2 }); // stderr shown if not
  expect(r.stderr).toContain('error [device-unavailable]');
  expect(r.stderr).toMatch(/MLA_DIFF_BLAS: \/nonexistent\/libopenblas\.so\.0 does not load as a BLAS/);
  expect(r.stderr).toMatch(/hint: .*cblas_sgemm/);
  expect(r.stderr).not.toMatch(/^\s+at /m);
});

it('MLA_DIFF_BLAS=off runs on XNNPACK and says so in the report', async () => {
  const r = await execa('node', [CLI, 'run', 'scenarios/tiny-smoke.yaml', '--device', 'wasm', '--format', 'json'], {
    cwd: ROOT,
    reject: false,
    env: { NO_COLOR: '1', MLA_DIFF_BLAS: 'off' },
  });
  expect({ code: r.exitCode, stderr: r.exitCode ? r.stderr.split('\n').slice(-8) : [] }).toEqual({ code: 0, stderr: [] });
  expect(JSON.stringify(JSON.parse(r.stdout).device ?? JSON.parse(r.stdout))).toMatch(/XNNPACK \(MLA_DIFF_BLAS=off\)/);
});
