import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { itWebgpu, skipReason } from './webgpu-checks';
import type { RunJson } from './cli-helpers';
import { RUN_VERSION, TINY_SMOKE, jsStackLines, mla, stackLines, suiteDir, tinyScenario } from './cli-helpers';

/**
 * End to end: the built CLI (dist/surface/cli/main.js) as a user runs it. Every case is a tiny layer on
 * wasm (or cpu), a second or so each. `npm test` builds first; run alone, this builds if needed.
 */
jest.setTimeout(120_000);

describe('mla-diff CLI (e2e): --out and webgpu', () => {
  const { file, write } = suiteDir();

  describe('--out', () => {
    it('writes the JSON report to the file and one line to stdout', async () => {
      const out = file('report.json');
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--format', 'json', '--out', out]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toMatch(/^PASS tiny-smoke/);
      expect(r.stdout).toContain(out);
      expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({
        format: 'mla-diff/run',
        version: RUN_VERSION,
        device: { name: 'wasm' },
      });
    });

    it('writes a table report as plain text', async () => {
      const out = file('report.txt');
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--out', out], { FORCE_COLOR: '1', NO_COLOR: undefined });
      expect(r.exitCode).toBe(0);
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
      const text = readFileSync(out, 'utf8');
      expect(text).toMatch(/^mla-diff report/);
      expect(text).toMatch(/^PASS all-heads/m);
      expect(text).not.toMatch(/\u001b\[/);
    });

    it('a diverging run writes the report and exits 1 with a FAIL line', async () => {
      const scenario = write('fault-out.yaml', tinyScenario('fault-out', 'faults: [{path: mqa, fault: kv-norm-skipped}]\n'));
      const out = file('fault-out.json');
      const r = await mla(['run', scenario, '--device', 'wasm', '--format', 'json', '--out', out]);
      expect(r.exitCode).toBe(1);
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toMatch(/^FAIL fault-out: .*kv_c_normed \(step 0, prompt; culprit mqa\)/);
      expect((JSON.parse(readFileSync(out, 'utf8')) as RunJson).cases[0]!.comparison.firstDivergence).toMatchObject({
        step: 0,
        request: 'prompt',
        stage: 'kv_c_normed',
        culprit: 'mqa',
      });
    });

    it('refuses to overwrite a file mla-diff did not write (output-exists), leaving it unchanged', async () => {
      const out = write('precious.json', '{"mine": true}\n');
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--format', 'json', '--out', out]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('error [output-exists]');
      expect(stackLines(r.stderr)).toEqual([]);
      expect(readFileSync(out, 'utf8')).toBe('{"mine": true}\n');
    });

    it.each([
      ['a JSON report', ['--format', 'json']],
      ['a table report', []],
    ])('may overwrite %s it wrote before', async (_what, first) => {
      const out = file(`again-${first.length}.out`);
      expect((await mla(['run', TINY_SMOKE, '--device', 'wasm', ...first, '--out', out])).exitCode).toBe(0);
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--format', 'json', '--case', 'all-heads', '--out', out]);
      expect(r.exitCode).toBe(0);
      expect((JSON.parse(readFileSync(out, 'utf8')) as RunJson).cases).toHaveLength(1);
    });

    it('--force overwrites a file mla-diff did not write', async () => {
      const out = write('forced.json', 'not a report\n');
      const r = await mla(['run', TINY_SMOKE, '--device', 'wasm', '--format', 'json', '--out', out, '--force']);
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ format: 'mla-diff/run' });
    });

    it.each([[[]], [['--force']]])('never over the input scenario (%p)', async (extra) => {
      const scenario = file(`input-${extra.length}.yaml`);
      copyFileSync(TINY_SMOKE, scenario);
      const before = readFileSync(scenario, 'utf8');
      const r = await mla(['run', scenario, '--device', 'wasm', '--out', scenario, ...extra]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('error [output-is-input]');
      expect(readFileSync(scenario, 'utf8')).toBe(before);
    });
  });

  describe('webgpu', () => {
    it('tiny-smoke on webgpu passes, or fails cleanly as device-unavailable', async () => {
      const r = await mla(['run', TINY_SMOKE, '--device', 'webgpu']);
      if (process.env['MLA_DIFF_REQUIRE_WEBGPU'] === '1' || r.exitCode === 0) {
        expect(r.exitCode).toBe(0);
        expect(r.stdout).toMatch(/^PASS all-heads/m);
      } else {
        expect(r.exitCode).toBe(2);
        expect(r.stderr).toContain('error [device-unavailable]');
        expect(jsStackLines(r.stderr)).toEqual([]);
      }
    });

    itWebgpu(
      'tiny-smoke with schedule.attention fused on webgpu: ' +
        `the WGSL flash kernel in both paths (MHA token-major) agrees with the reference${skipReason}`,
      async () => {
        const scenario = file('tiny-fused.yaml');
        writeFileSync(
          scenario,
          `${readFileSync(TINY_SMOKE, 'utf8').replace('name: tiny-smoke', 'name: tiny-smoke-fused')}schedule:\n  attention: fused\n`,
        );
        const r = await mla(['run', scenario, '--device', 'webgpu']);
        expect({ exit: r.exitCode, err: r.stderr.split('\n').filter((l) => /error|internal/i.test(l)) }).toEqual({ exit: 0, err: [] });
        expect(r.stdout).toContain('note: attention: fused on webgpu');
        expect(r.stdout).toMatch(/^PASS all-heads: mha ≡ mqa ≡ reference/m);
        expect(r.stdout).toMatch(/^PASS tp1-of-2/m);
      },
    );

    it('without a Vulkan driver: exit 2, device-unavailable, no crash, no stack trace', async () => {
      const r = await mla(['run', TINY_SMOKE, '--device', 'webgpu'], {
        VK_DRIVER_FILES: '/nonexistent.json',
        VK_ICD_FILENAMES: '/nonexistent.json',
      });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('error [device-unavailable]');
      expect(r.stderr).not.toContain('internal error');
      // Dawn itself logs a native source location (`at CheckVkSuccessImpl (…VulkanError.cpp:106)`);
      // what must not appear is a JavaScript stack.
      expect(jsStackLines(r.stderr)).toEqual([]);
      expect(r.stdout).toBe('');
    });
  });
});
