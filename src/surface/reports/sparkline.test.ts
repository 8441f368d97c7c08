import { caseResult } from '../../test-utils/reports';
import { divergenceLine, sparkline, SPARKS } from './sparkline';
import { makeStyle } from './style';

describe('sparkline', () => {
  it('scales the finite values from the lowest to the highest block', () => {
    expect(sparkline([0, 1, 2, 3, 4, 5, 6, 7])).toBe(SPARKS.join(''));
    expect(sparkline([-5, 3])).toBe('▁█');
  });

  it('draws equal values at the middle, -Infinity lowest, +Infinity highest, NaN as a dot', () => {
    expect(sparkline([2, 2, 2])).toBe('▄▄▄');
    expect(sparkline([-Infinity, 0, 1, NaN, Infinity])).toBe('▁▁█·█');
    expect(sparkline([])).toBe('');
  });
});

describe('divergenceLine', () => {
  const plain = makeStyle(false);

  it('jumps to the top block at the first divergent stage and stays low before it', () => {
    const c = caseResult({ rel: { lse: { engine: 0.5, mqa: 0.5 } } });
    const line = divergenceLine(c, plain)!;
    const blocks = [...line.split(': ')[1]!.split('  ')[0]!];
    const lse = c.comparison.stages.filter((v) => v.pairs.length).findIndex((v) => v.stage === 'lse');
    expect(blocks[lse]).toBe('█');
    expect(blocks.slice(0, lse).every((b) => b === '▁' || b === '·')).toBe(true);
    expect(line).toMatch(/5\.0e\+4 × tolerance/); // 0.5 / 1e-5
  });

  it('has no line when nothing was measured', () => {
    const c = caseResult({ rel: () => ({ engine: null, mha: null, mqa: null }) });
    expect(divergenceLine(c, plain)).toBeNull();
  });
});
