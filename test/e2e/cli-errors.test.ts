import { TINY_SMOKE, mla, stackLines, suiteDir } from './cli-helpers';

/**
 * End to end: the built CLI (dist/surface/cli/main.js) as a user runs it. Every case is a tiny layer on
 * wasm (or cpu), a second or so each. `npm test` builds first; run alone, this builds if needed.
 */
jest.setTimeout(120_000);

describe('mla-diff CLI (e2e): bad input, help and stages', () => {
  const { path, file, write } = suiteDir();
  const dir = path;

  describe('bad input exits 2 with an error code and no stack trace', () => {
    // [what, error code, where the message must point (or null), arguments]; a thunk, as files are written in the temp dir.
    const cases: [string, string, RegExp | null, () => string[]][] = [
      ['a missing file', 'file-not-found', /missing\.yaml/, () => ['run', file('missing.yaml'), '--device', 'wasm']],
      [
        'malformed YAML',
        'yaml-syntax',
        /malformed\.yaml:\d+/,
        () => ['run', write('malformed.yaml', 'name: t\nmodel: {preset: tiny\nprompt: {ids: [1]}\n'), '--device', 'wasm'],
      ],
      [
        'an unknown key',
        'unknown-key',
        /bad\.yaml:3\b/,
        () => ['run', write('bad.yaml', 'name: t\nmodel:\n  hiden_size: 96\n  preset: tiny\nprompt: {ids: [1]}\n'), '--device', 'wasm'],
      ],
      [
        'an unknown preset',
        'unknown-preset',
        /preset\.yaml:2\b/,
        () => ['run', write('preset.yaml', 'name: t\nmodel: {preset: glm-6}\nprompt: {ids: [1]}\n'), '--device', 'wasm'],
      ],
      ['a directory', 'file-unreadable', null, () => ['run', dir(), '--device', 'wasm']],
      ['--device nonsense', 'usage', null, () => ['run', TINY_SMOKE, '--device', 'nonsense']],
      ['an unknown option', 'usage', null, () => ['run', TINY_SMOKE, '--devcie', 'wasm']],
      ['an unknown command', 'usage', null, () => ['frobnicate']],
      ['no command', 'usage', null, () => []],
      ['run without a scenario', 'usage', null, () => ['run']],
    ];

    it.each(cases)('%s → error [%s]', async (_what, code, where, args) => {
      const r = await mla(args());
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`error [${code}]`);
      if (where) expect(r.stderr).toMatch(where);
      expect(stackLines(r.stderr)).toEqual([]);
      expect(r.stderr).not.toContain('internal error');
    });

    it('a bad scenario among good ones fails before anything runs', async () => {
      const bad = write('bad-second.yaml', 'name: t\nmodel: {preset: tiny}\nprompt: {ids: [1000]}\n');
      const r = await mla(['run', TINY_SMOKE, bad, '--device', 'wasm']);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('error [invalid-value]');
      expect(r.stdout).toBe('');
    });

    it('--verbose adds the stack trace', async () => {
      const r = await mla([
        'run',
        write('verbose.yaml', 'name: t\nmodel:\n  preset: tiny\n  hiden_size: 1\nprompt: {ids: [1]}\n'),
        '--device',
        'wasm',
        '--verbose',
      ]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('error [unknown-key]');
      expect(stackLines(r.stderr).length).toBeGreaterThan(0);
    });
  });

  describe('help and stages', () => {
    it('--help exits 0 and shows examples', async () => {
      const r = await mla(['--help']);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('Examples:');
      expect(r.stdout).toContain('mla-diff run');
    });

    it('run --help exits 0 and shows examples', async () => {
      const r = await mla(['run', '--help']);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('Examples:');
      expect(r.stdout).toContain('--device');
    });

    it('stages exits 0 and lists the stages', async () => {
      const r = await mla(['stages']);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('ql_nope');
      expect(r.stdout).toContain('W_UK_T');
      expect(r.stdout).toContain('softmax-scale-latent');
      expect(r.stdout).toContain('k-b-wrong-axis'); // the loader fault
      expect(r.stdout).toMatch(/Weight stage W .*kv_b_proj, W_UK, W_UV/);
    });

    it('faults lists the catalogue with bug references; --format json is versioned', async () => {
      const r = await mla(['faults']);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toMatch(/k-scale-bf16-cache .*sglang#18396/);
      expect(r.stdout).toContain('k-b-wrong-axis');
      const j = JSON.parse((await mla(['faults', '--format', 'json'])).stdout) as {
        format: string;
        faults: Record<string, { enters: string; needs: string }>;
      };
      expect(j.format).toBe('mla-diff/faults');
      expect(Object.keys(j.faults).length).toBeGreaterThanOrEqual(12);
      expect(j.faults['yarn-mscale-missing']).toMatchObject({ enters: 'logits', needs: 'yarn' });
    });

    it('selftest --help shows its examples; an unknown selftest option is a usage error (exit 2)', async () => {
      const r = await mla(['selftest', '--help']);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('selftest --full');
      expect((await mla(['selftest', '--fast'])).exitCode).toBe(2);
    });

    it('stages --format json is parseable', async () => {
      const r = await mla(['stages', '--format', 'json']);
      expect(r.exitCode).toBe(0);
      const j = JSON.parse(r.stdout) as { stages: Record<string, unknown>; faults: Record<string, unknown> };
      expect(Object.keys(j.stages)).toEqual(expect.arrayContaining(['ql_nope', 'W_UK_T', 'logits']));
      expect(Object.keys(j.faults)).toEqual(expect.arrayContaining(['rope-neox', 'lse-base-2']));
      expect(Object.keys((j as unknown as { loaderFaults: object }).loaderFaults)).toEqual(['k-b-wrong-axis']);
    });
  });
});
