import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import execa from 'execa';

/**
 * The HTML report in a real browser: `mla-diff report` renders a saved fault run, then
 * scripts/screenshot-report.mjs (the same script that makes the README image) opens it in headless
 * Chromium and measures the SVG marks and the screenshot. Without a chromium the test is skipped
 * with its reason in its name, unless MLA_DIFF_REQUIRE_CHROMIUM=1 (set by .ci/run once it installed one).
 */
const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'dist', 'surface', 'cli', 'main.js');
const CHROMIUM = process.env['CHROMIUM'] ?? '/usr/bin/chromium';
const FIXTURE = join(ROOT, 'fixtures', 'fault-mqa-scale-576.tp0.report.json');
const present = existsSync(CHROMIUM);
const required = process.env['MLA_DIFF_REQUIRE_CHROMIUM'] === '1';

interface Measured {
  external: string[];
  svgs: { marks: number; drawn: number; width: number; height: number }[];
  screenshot: { bytes: number; width: number; height: number; colours: number; inkFraction: number };
}

describe('HTML report in headless Chromium', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mla-html-e2e-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = present || required ? it : it.skip;
  run(
    'renders three plots with drawn marks and a non-blank page' +
      (present ? '' : ` (skipped: no chromium at ${CHROMIUM}; .ci/run installs Debian's chromium)`),
    async () => {
      const html = join(dir, 'report.html');
      const r = await execa('node', [CLI, 'report', FIXTURE, '--html', html], { cwd: ROOT, reject: false });
      expect(r.exitCode).toBe(0); // rendering a diverged run is not a failure (--judge asks for the verdict)
      expect(readFileSync(html, 'utf8')).toMatch(/^<!DOCTYPE html>/);
      const png = join(dir, 'report.png');
      const s = await execa('node', [join(ROOT, 'scripts', 'screenshot-report.mjs'), '--html', html, '--png', png], {
        cwd: ROOT,
        reject: false,
        env: { CHROMIUM },
      });
      expect(s.stderr).toBe('');
      expect(s.exitCode).toBe(0);
      const m = JSON.parse(s.stdout) as Measured;
      expect(m.external).toEqual([]);
      expect(m.svgs).toHaveLength(3);
      for (const svg of m.svgs) {
        expect(svg.width).toBeGreaterThan(100);
        expect(svg.height).toBeGreaterThan(100);
        expect(svg.drawn).toBeGreaterThan(0);
      }
      // Norms: a point per path and stage; errors: a point per record; heads: a cell per head and token.
      expect(m.svgs[0]!.drawn).toBeGreaterThan(29);
      expect(m.svgs[2]!.drawn).toBeGreaterThanOrEqual(8 + 5);
      expect(m.screenshot.width).toBe(1200);
      expect(m.screenshot.colours).toBeGreaterThan(16);
      expect(m.screenshot.inkFraction).toBeGreaterThan(0.02);
      expect(readFileSync(png).subarray(1, 4).toString()).toBe('PNG');
    },
  );

  run('measures a blank page as blank (the check can fail)', async () => {
    const html = join(dir, 'blank.html');
    writeFileSync(html, '<!DOCTYPE html><html><body></body></html>');
    const s = await execa('node', [join(ROOT, 'scripts', 'screenshot-report.mjs'), '--html', html, '--png', join(dir, 'blank.png')], {
      cwd: ROOT,
      reject: false,
      env: { CHROMIUM },
    });
    expect(s.exitCode).toBe(0);
    const m = JSON.parse(s.stdout) as Measured;
    expect(m.svgs).toEqual([]);
    expect(m.screenshot.colours).toBe(1);
    expect(m.screenshot.inkFraction).toBe(0);
  });
});

describe('run --html', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mla-html-run-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the page beside the terminal report, and overwrites only its own pages', async () => {
    const html = join(dir, 'smoke.html');
    const args = ['run', join(ROOT, 'scenarios', 'tiny-smoke.yaml'), '--device', 'wasm', '--html', html];
    const r = await execa('node', [CLI, ...args], { cwd: ROOT, reject: false, env: { NO_COLOR: '1' } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^PASS all-heads/m);
    const page = readFileSync(html, 'utf8');
    expect(page.match(/<svg/g)).toHaveLength(2 * 2); // two agreeing cases: norms and errors each
    expect((await execa('node', [CLI, ...args], { cwd: ROOT, reject: false })).exitCode).toBe(0);
    writeFileSync(html, 'my notes');
    const again = await execa('node', [CLI, ...args], { cwd: ROOT, reject: false });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('error [output-exists]');
    expect(again.stderr).toContain('--html');
    expect(readFileSync(html, 'utf8')).toBe('my notes');
  });
});
