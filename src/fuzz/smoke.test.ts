/**
 * The fuzz smoke set (issue 23, point 6): a small seeded campaign through the built harness (dist/fuzz/campaign.js:
 * child processes, the 15 s watchdog, the RSS cap, spawned CLI runs), every bad outcome a failure. `npm test` builds
 * first; the full campaign is bench/fuzz/run.sh.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Summary } from './tally';
import { ROOT } from './corpus';

jest.setTimeout(240_000);

describe('fuzz smoke: seed 23, ~1200 in-process inputs and 12 CLI runs', () => {
  let summary: Summary;
  const out = mkdtempSync(join(tmpdir(), 'mla-diff-fuzz-smoke-'));
  beforeAll(() => {
    const args = [
      join(ROOT, 'dist', 'fuzz', 'campaign.js'),
      '--seed',
      '23',
      '--inputs',
      '1200',
      '--cli',
      '12',
      '--jobs',
      '2',
      '--out',
      out,
    ];
    try {
      execFileSync(process.execPath, args, { stdio: 'pipe' });
    } catch (e) {
      // exit 1 says there were bad outcomes: the summary lists them, judged below
      if ((e as { status?: number }).status !== 1) throw e;
    }
    summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as Summary;
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('ran every target, the CLI included', () => {
    expect(Object.keys(summary.targets).sort()).toEqual(['cli', 'gguf', 'loader', 'reports', 'safetensors', 'tokenizer', 'trace']);
    expect(summary.totals.inputs).toBeGreaterThanOrEqual(1212);
  });

  it('no crash, hang, blow-up, data loss, leak or uncoded rejection', () => {
    const bad = Object.entries(summary.targets).flatMap(([target, t]) =>
      Object.entries(t.signatures).map(
        ([sig, s]) => `${target}: ${s.count}× ${sig} (repro: node dist/fuzz/repro.js ${target} 23 ${s.examples[0]?.index})`,
      ),
    );
    expect(bad).toEqual([]);
  });
});
