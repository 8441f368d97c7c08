import type { SelftestReport } from '../../harness/selftest/run';
import { renderSelftest } from './selftest';
import { PLAIN } from './style';

const base = (over: Partial<SelftestReport>): SelftestReport => ({
  format: 'mla-diff/selftest',
  version: 1,
  tolerance: 'default',
  options: { seeds: [1], shapes: ['tiny'] },
  seconds: 1.5,
  device: { name: 'wasm', backend: 'wasm', description: 'wasm: test', software: false, reason: 'requested' },
  rows: [],
  perFault: { 'rope-neox': { runs: 2, detected: 2, localized: 2, attributed: 2, diagnosed: 2, origin: 2 } },
  total: { runs: 2, detected: 2, localized: 2, attributed: 2, diagnosed: 2, origin: 2 },
  clean: { runs: 3, falsePositives: 0 },
  goalMet: true,
  ...over,
});

describe('the selftest report', () => {
  it('rates per fault, the clean runs, PASS when the goal is met', () => {
    const text = renderSelftest(base({}), PLAIN);
    expect(text).toMatch(/rope-neox\s+│ 2\s+│ 100 %\s+│ 100 %\s+│ 100 %/);
    expect(text).toMatch(/clean runs \(must agree\)\s+│ 3\s+│ 0 false positives/);
    expect(text).toContain('PASS: every fault detected');
  });
  it('names every miss: a fault localized elsewhere, a clean run that diverged', () => {
    const text = renderSelftest(
      base({
        goalMet: false,
        perFault: { 'rope-neox': { runs: 2, detected: 2, localized: 1, attributed: 2, diagnosed: 1, origin: 1 } },
        total: { runs: 2, detected: 2, localized: 1, attributed: 2, diagnosed: 1, origin: 1 },
        clean: { runs: 3, falsePositives: 1 },
        rows: [
          {
            name: 'rope-neox.mha.tiny.s1.prefill',
            fault: 'rope-neox',
            path: 'mha',
            detected: true,
            localized: false,
            attributed: true,
            diagnosed: false,
            origin: false,
            cause: 'context-only',
            first: { step: 0, request: 'prompt', stage: 'q', culprit: 'mha' },
            seconds: 0.1,
          },
          {
            name: 'clean.tiny.s1.prefill',
            fault: null,
            path: null,
            detected: true,
            localized: false,
            attributed: false,
            diagnosed: false,
            origin: false,
            cause: null,
            first: { step: 0, request: 'prompt', stage: 'lse', culprit: 'unknown' },
            seconds: 0.1,
          },
        ],
      }),
      PLAIN,
    );
    expect(text).toMatch(/rope-neox\s+│ 2\s+│ 100 %\s+│ 50 %\s+│ 100 %\s+│ 50 %\s+│ 50 %/);
    expect(text).toContain('undiagnosed: rope-neox.mha.tiny.s1.prefill: likely cause context-only');
    expect(text).toContain('miss: rope-neox.mha.tiny.s1.prefill: first divergence q (culprit mha, step 0, prompt)');
    expect(text).toContain('miss: clean.tiny.s1.prefill: first divergence lse');
    expect(text).toContain('origin missed: rope-neox.mha.tiny.s1.prefill');
    expect(text).toContain('1 false positive(s)');
    expect(text).toContain('FAIL: 2 miss(es)');
  });
});
