import type { RunJson } from './cli-helpers';
import { RUN_VERSION, TINY_SMOKE, mla, stackLines, suiteDir, tinyScenario } from './cli-helpers';

/**
 * End to end: the built CLI (dist/surface/cli/main.js) as a user runs it. Every case is a tiny layer on
 * wasm (or cpu), a second or so each. `npm test` builds first; run alone, this builds if needed.
 */
jest.setTimeout(120_000);

describe('mla-diff CLI (e2e): runs', () => {
  const { write } = suiteDir();

  describe('runs', () => {
    it.each(['wasm', 'cpu'])('tiny-smoke on %s passes (exit 0)', async (device) => {
      const r = await mla(['run', TINY_SMOKE, '--device', device]);
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toMatch(/^PASS all-heads/m);
      expect(r.stdout).toMatch(/^PASS tp1-of-2/m);
      expect(r.stdout).not.toMatch(/\u001b\[/);
    });

    it('--format json is the versioned run report', async () => {
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--format', 'json']);
      expect(r.exitCode).toBe(0);
      const j = JSON.parse(r.stdout) as RunJson;
      expect(j).toMatchObject({ format: 'mla-diff/run', version: RUN_VERSION, verdict: 'agree', device: { name: 'wasm' } });
      // A prompt: is one request prefilled in one piece.
      expect(j.scenario.requests.map((r) => r.name)).toEqual(['prompt']);
      expect(j.cases[0]!.trace.pieces).toEqual([
        { step: 0, request: 'prompt', kind: 'prefill', route: 'mha', start: 0, count: 7, chunks: 0 },
      ]);
      expect(j.cases.map((c) => [c.trace.name, c.comparison.verdict, c.comparison.firstDivergence])).toEqual([
        ['all-heads', 'agree', null],
        ['tp1-of-2', 'agree', null],
      ]);
    });

    it.each([
      ['mqa', 'softmax-scale-latent', 'logits'],
      ['mha', 'rope-neox', 'q_pe'],
      ['mqa', 'kv-norm-skipped', 'kv_c_normed'],
      ['mha', 'lse-base-2', 'lse'],
    ])('a %s fault %s exits 1 and first diverges at %s, culprit the faulty path', async (path, fault, stage) => {
      const scenario = write(`fault-${fault}.yaml`, tinyScenario(`fault-${fault}`, `faults: [{path: ${path}, fault: ${fault}}]\n`));
      const r = await mla(['run', scenario, '--device', 'wasm', '--format', 'json']);
      expect(r.exitCode).toBe(1);
      const j = JSON.parse(r.stdout) as RunJson;
      expect(j).toMatchObject({ format: 'mla-diff/run', version: RUN_VERSION, verdict: 'diverge', device: { name: 'wasm' } });
      expect(j.cases[0]!.comparison.firstDivergence).toMatchObject({ step: 0, request: 'prompt', stage, culprit: path });
    });

    it('a fault in table format exits 1 and says FAIL', async () => {
      const scenario = write('fault-table.yaml', tinyScenario('fault-table', 'faults: [{path: mqa, fault: softmax-scale-latent}]\n'));
      const r = await mla(['run', scenario, '--device', 'wasm']);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toMatch(/^FAIL full: first divergence at logits, step 0, request prompt .*mqa/m);
      expect(r.stdout).toContain('◀ first');
    });

    it(
      'stage replay marks each divergent row introduced or inherited and names the first introduced stage; ' + '--replay off drops it',
      async () => {
        const scenario = write(
          'fault-replay.yaml',
          tinyScenario('fault-replay', 'faults: [{path: mqa, fault: kv-norm-skipped}, {path: mqa, fault: softmax-scale-latent}]\n'),
        );
        const r = await mla(['run', scenario, '--device', 'wasm']);
        expect(r.exitCode).toBe(1);
        expect(r.stdout).toMatch(/^FAIL full: first divergence at kv_c_normed, .*; first introduced at kv_c_normed$/m);
        expect(r.stdout).toMatch(/│ kv_c_normed .*│ out-of-tolerance \(mqa\) · introduced ◀ first\s+│$/m);
        expect(r.stdout).toMatch(/│ logits .*│ out-of-tolerance \(mqa\) · introduced\s+│$/m);
        expect(r.stdout).toMatch(/│ attn_out_latent .*│ out-of-tolerance \(mqa\) · inherited\s+│$/m);
        expect(r.stdout).toMatch(/^stage replay: introduced at kv_c_normed, logits; \d+ inherited \(\d+ re-runs?, [\d.]+ s\)$/m);
        const off = await mla(['run', scenario, '--device', 'wasm', '--replay', 'off']);
        expect(off.exitCode).toBe(1);
        expect(off.stdout).not.toMatch(/introduced|inherited|stage replay/);
      },
    );

    it('--quiet prints nothing; the exit code tells', async () => {
      const scenario = write('quiet.yaml', tinyScenario('quiet', 'faults: [{path: mha, fault: rope-neox}]\n'));
      const r = await mla(['run', scenario, '--device', 'wasm', '--quiet']);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
    });

    it('--case NAME runs only that case', async () => {
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--format', 'json', '--case', 'tp1-of-2']);
      expect(r.exitCode).toBe(0);
      expect((JSON.parse(r.stdout) as RunJson).cases.map((c) => c.trace.name)).toEqual(['tp1-of-2']);
    });

    it('selftest --floor with a negative k exits 2 before running anything', async () => {
      const r = await mla(['selftest', '--floor', '-1', '--device', 'wasm']);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/error \[usage\]/);
      expect(r.stdout).toBe('');
      expect(stackLines(r.stderr)).toEqual([]);
    });

    it('an unknown --case name exits 2', async () => {
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--case', 'no-such-case']);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/error \[invalid-value\]/);
      expect(r.stdout).toBe('');
      expect(stackLines(r.stderr)).toEqual([]);
    });
  });
});
