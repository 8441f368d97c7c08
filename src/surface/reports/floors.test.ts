import { PIECE0 } from '../../test-utils/traces';
import { caseResult, runReport } from '../../test-utils/reports';
import { FLOOR_MARK, floorRatio, floorText, toleranceText, vsReferenceText } from './floors';
import { makeStyle } from './style';
import { renderCase } from './summary';
import { normTraceTable } from './table';

const plain = makeStyle(false);
const header = (table: string) =>
  table
    .split('\n')
    .find((l) => l.startsWith('│'))!
    .split('│')
    .slice(1, -1)
    .map((c) => c.trim());

describe('noise floors in the report', () => {
  const floor = { value: 2e-7, source: 'upstream' as const };

  it('floor with its source mark; tolerance as k×floor when floor-based, else the bound', () => {
    expect(floorText({ floor })).toBe(`2.0e-7${FLOOR_MARK.upstream}`);
    expect(floorText({ floor: { value: 3e-7, source: 'reference' } })).toBe('3.0e-7');
    expect(toleranceText({ tolerance: 1.6e-6, floorMultiple: 8 })).toBe('8×floor = 1.6e-6');
    expect(toleranceText({ tolerance: 1e-5 })).toBe('1.0e-5');
    expect(vsReferenceText({ vsReference: { mha: 1e-7, cold: 2e-7 } })).toBe('mha 1.0e-7, cold 2.0e-7');
  });

  it('err/floor: the largest finite pair error over the floor', () => {
    const pairs = [{ relErr: 4e-7 }, { relErr: Infinity }, { relErr: null }, { relErr: 1e-7 }] as never;
    expect(floorRatio({ pairs, floor })).toBeCloseTo(2, 12);
    expect(floorRatio({ pairs: [], floor })).toBeNull();
  });

  it('the table has a floor column only under floor-based tolerances, with the legend', () => {
    const rel = normTraceTable(caseResult({ withCold: true }), PIECE0, plain);
    expect(header(rel)).not.toContain('floor');
    const fl = normTraceTable(caseResult({ withCold: true, tolerances: { default: { floor: 8 } } }), PIECE0, plain);
    expect(header(fl)).toEqual(['stage', '‖mha‖', '‖mqa‖', '‖cold‖', '‖reference‖', 'rel err', 'vs ref', 'floor', 'max|Δ|', 'verdict']);
    expect(fl).toMatch(/│ ql_nope .*│ 1\.0e-7↑ │/);
    expect(fl).toContain('↑ largest floor upstream');
  });

  it('a failing case names the tolerance and err/floor at its first divergence', () => {
    const c = caseResult({
      withCold: true,
      tolerances: { default: { floor: 8 } },
      rel: { logits: { engine: 1e-6, mqa: 1e-6, mqaCold: 1e-6 } },
    });
    const text = renderCase(runReport([c]), c, plain);
    expect(text).toContain('FAIL all-heads: first divergence at logits');
    expect(text).toContain('mha↔mqa rel err 1.0e-6, tolerance 8×floor = 8.0e-7, norm ratio 1; floor 1.0e-7, err/floor 10');
  });

  it('a passing floor-based case names its largest err/floor; the default one does not', () => {
    const c = caseResult({ withCold: true, tolerances: { default: { floor: 8 } } });
    expect(renderCase(runReport([c]), c, plain)).toMatch(/PASS .*largest err\/floor 1 at \w+ \(tolerance 8×floor\)/);
    const d = caseResult({ withCold: true });
    expect(renderCase(runReport([d]), d, plain)).not.toContain('err/floor');
  });
});
