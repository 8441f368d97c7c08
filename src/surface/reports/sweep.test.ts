import type { SweepReport } from '../../harness/sweep/report';
import { summarize } from '../../harness/sweep/report';
import { PLAIN } from './style';
import { progressLine, renderSweep } from './sweep';

const report = (): SweepReport => {
  const points: SweepReport['points'] = [
    {
      index: 0,
      id: 'seed=1,fault=none',
      axes: { seed: 1, faults: 'none' },
      device: 'cpu',
      verdict: 'agree',
      firstDivergence: null,
      culprit: null,
      expect: { outcome: 'agree' },
      met: true,
      misses: [],
      cases: [],
      error: null,
      seconds: 1.25,
    },
    {
      index: 1,
      id: 'seed=1,fault=mqa:softmax-scale-latent',
      axes: { seed: 1 },
      device: 'cpu',
      verdict: 'diverge',
      firstDivergence: { step: 0, request: 'prompt', stage: 'q_pe', culprit: 'mha', relErr: 0.5 },
      culprit: 'mha',
      expect: { outcome: 'diverge', first_divergence: 'logits', culprit: 'mqa' },
      met: false,
      misses: ['first divergence q_pe, expected logits'],
      cases: [],
      error: null,
      seconds: 2,
    },
  ];
  return {
    format: 'mla-diff/sweep',
    version: 1,
    tool: { name: 'mla-diff', version: 't' },
    created: 'now',
    matrix: { name: 'm', file: 'm.yaml', hash: 'abcdef0123456789', points: 4 },
    shard: { index: 1, count: 2 },
    missing: [],
    points,
    summary: summarize(points),
    seconds: 3.25,
  };
};

describe('renderSweep', () => {
  it('one row per point, the misses and the verdict', () => {
    const text = renderSweep(report(), PLAIN);
    expect(text).toContain('shard 1/2 · 2 of 4 points');
    expect(text).toContain('seed=1,fault=none');
    expect(text).toContain('diverge at q_pe (mha)');
    expect(text).toContain('not met: seed=1,fault=mqa:softmax-scale-latent: first divergence q_pe, expected logits');
    expect(text).toMatch(/FAIL: 1 point\(s\) missed/);
  });

  it('a progress line per finished point', () => {
    expect(progressLine(report().points[0]!, 1, 2)).toBe('[1/2] seed=1,fault=none: agree (1.3 s)');
  });
});
