import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mla, ROOT } from './cli-helpers';

/** One verdict everywhere: the exit code, the table, JUnit, Markdown, HTML and JSON say the same under the one rule. */
const FAULT = join(ROOT, 'scenarios', 'fault-mqa-scale-576.yaml');
const SAVED_FAULT = join(ROOT, 'fixtures', 'fault-mqa-scale-576.tp0.report.json');
const SAVED_SMOKE = join(ROOT, 'fixtures', 'tiny-smoke.report.json');
const SAVED_LSE = join(ROOT, 'fixtures', 'tiny-schedule-lse-layout.report.json');

describe('one verdict (e2e)', () => {
  let dir: string;
  const file = (n: string) => join(dir, n);
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mla-diff-verdict-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const outputs = async (scenario: string, tag: string, extra: string[] = []) => {
    const r = await mla(
      ['run', scenario, '--device', 'wasm', '--case', 'tp0-of-8', ...extra, '--junit', file(`${tag}.xml`)].concat([
        '--markdown',
        file(`${tag}.md`),
        '--html',
        file(`${tag}.html`),
      ]),
    );
    return {
      r,
      xml: readFileSync(file(`${tag}.xml`), 'utf8'),
      md: readFileSync(file(`${tag}.md`), 'utf8'),
      html: readFileSync(file(`${tag}.html`), 'utf8'),
    };
  };

  it('a declared divergence met: exit 0, and every output says the expectation was met', async () => {
    const { r, xml, md, html } = await outputs(FAULT, 'met');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^PASS tp0-of-8 \(divergence as declared\): first divergence at logits.*mqa is the wrong path/m);
    expect(r.stdout).toMatch(/^PASS fault-mqa-scale-576: 1\/1 pass \(1 divergence\(s\) as declared; judged by declared outcomes\)/m);
    expect(xml).toMatch(/<testsuites [^>]*failures="0"/);
    expect(md).toContain('### mla-diff: 1/1 pass');
    expect(md).toContain('— as declared');
    expect(html).toMatch(/<h1>[^<]*<span class="pass">PASS<\/span><\/h1>/);
    expect(html).toContain('PASS (divergence as declared)');
    expect(html).toContain('expect: diverge at logits, culprit mqa');
  });

  it('the fault removed (expect: diverge not met): exit 1, and every output says so', async () => {
    const twin = file('no-fault.yaml');
    writeFileSync(twin, readFileSync(FAULT, 'utf8').replace(/^faults:\n( {2}- .*\n)+/m, ''));
    const { r, xml, md, html } = await outputs(twin, 'missed');
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^FAIL tp0-of-8 \(expected diverge at logits, culprit mqa: .*\): mha ≡ mqa/m);
    expect(xml).toMatch(/<testsuites [^>]*failures="[1-9]/);
    expect(md).toMatch(/### mla-diff: 0\/1 pass, 1 fail/);
    expect(md).toContain('expectation not met');
    expect(html).toMatch(/<h1>[^<]*<span class="fail">FAIL<\/span><\/h1>/);
    expect(html).toContain('FAIL (expected diverge at logits, culprit mqa');
  });

  it('--no-expect on the fault twin judges agreement: exit 1, JSON outcome fail', async () => {
    const r = await mla(['run', FAULT, '--device', 'wasm', '--case', 'tp0-of-8', '--no-expect', '--format', 'json']);
    expect(r.exitCode).toBe(1);
    const j = JSON.parse(r.stdout) as { judge: string; outcome: string; cases: { outcome: string }[] };
    expect([j.judge, j.outcome, j.cases[0]!.outcome]).toEqual(['agreement', 'fail', 'fail']);
  });

  it('rejudge follows the rule; --rel under the noise floor quotes the failing pair and says so', async () => {
    expect((await mla(['rejudge', SAVED_FAULT])).exitCode).toBe(0);
    expect((await mla(['rejudge', SAVED_FAULT, '--no-expect'])).exitCode).toBe(1);
    const tight = await mla(['rejudge', SAVED_SMOKE, '--rel', '1e-7']);
    expect(tight.exitCode).toBe(1);
    const line = tight.stdout.split('\n').find((l) => l.startsWith('FAIL ') && l.includes('first divergence'))!;
    expect(line).toMatch(/below this record's noise floor/);
    expect(line).toMatch(/(mha|mqa|cold)↔reference rel err \S+, tolerance 1\.0e-7/);
    expect(line).not.toMatch(/shared code/);
  });

  it('report renders a diverged run with exit 0; --judge exits by the rule', async () => {
    expect((await mla(['report', SAVED_FAULT, '--html', file('r.html')])).exitCode).toBe(0);
    expect((await mla(['report', SAVED_FAULT, '--html', file('r.html'), '--judge'])).exitCode).toBe(0);
    expect((await mla(['report', SAVED_FAULT, '--html', file('r.html'), '--judge', '--no-expect'])).exitCode).toBe(1);
  });

  it('compare of two runs with no record in common is a usage error (exit 2), not CHANGED', async () => {
    const r = await mla(['compare', SAVED_SMOKE, SAVED_LSE]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('[usage]');
    expect(r.stdout).not.toContain('CHANGED');
    expect((await mla(['compare', SAVED_SMOKE, SAVED_SMOKE])).exitCode).toBe(0);
  });
});
