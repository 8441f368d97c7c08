import { FAULT_NAMES } from '../../core/faults/catalogue';
import { STAGE_NAMES } from '../../trace/stages';
import { renderFaults } from './faults';
import { renderStages } from './stages';
import { makeStyle } from './style';
import { stripAnsi, visibleWidth } from './visible-width';

const widest = (text: string) => Math.max(...text.split('\n').map(visibleWidth));

describe.each([
  ['faults', (w?: number, colour = false) => renderFaults('table', makeStyle(colour, w)), FAULT_NAMES],
  ['stages', (w?: number, colour = false) => renderStages('table', makeStyle(colour, w)), STAGE_NAMES],
] as const)('mla-diff %s fits the terminal', (_, render, names) => {
  it.each([80, 100, 200])('in %i columns every line fits and every name is there whole', (width) => {
    for (const colour of [false, true]) {
      const out = render(width, colour);
      expect(widest(out)).toBeLessThanOrEqual(width);
      const words = new Set(stripAnsi(out).split(/[\s│·]+/));
      for (const n of names) expect(words).toContain(n);
    }
  });

  it('without a width (a pipe, --wide) the tables are at full width, one row a line', () => {
    const out = render();
    expect(widest(out)).toBeGreaterThan(200);
    for (const n of names) expect(out.split('\n').filter((l) => l.startsWith(`│ ${n} `))).toHaveLength(1);
  });
});
