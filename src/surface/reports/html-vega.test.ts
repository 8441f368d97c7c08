import type { TopLevelSpec } from 'vega-lite';
import { compile } from 'vega-lite';
import type { ErrRow, HeadRow, NormRow } from './html-data';
import { errSpec, headSpec, normSpec } from './html-specs';
import { templateKey, toVega } from './html-vega';
import { renderSvg } from './html-render';

const norms: NormRow[] = [
  { stage: 'q_a_proj', order: 0, path: 'mha', norm: 3.5 },
  { stage: 'q_a_proj', order: 0, path: 'mqa', norm: 3.5 },
  { stage: 'kv_c_normed', order: 4, path: 'mha', norm: 0.25 },
];
const errs: ErrRow[] = [
  { stage: 'q_pe', order: 2, pair: 'mha↔mqa', relErr: 1e-7, tolerance: 1e-5, verdict: 'ok' },
  { stage: 'lse', order: 9, pair: 'mqa↔reference', relErr: 0.3, tolerance: 1e-5, verdict: 'out-of-tolerance' },
];
const heads = (n: number): HeadRow[] =>
  Array.from({ length: n }, (_, i) => ({ axis: i % 2 ? 'head' : 'token (position)', index: i, relErr: i }));

// Every plot the report draws, with and without a subtitle, of several widths and row counts.
const SPECS: [string, TopLevelSpec][] = [
  ['norm', normSpec(norms, { text: '‖x‖ per stage', subtitle: 'piece 0' })],
  ['norm, no rows', normSpec([], { text: 'norms' })],
  ['err', errSpec(errs, { text: 'Relative error', subtitle: 'step 0' })],
  ['head, 3 columns', headSpec(heads(3), { text: 'heads', subtitle: 'lse' })],
  ['head, 40 columns', headSpec(heads(40), { text: 'heads' })],
];

describe('the plots pre-compiled to Vega', () => {
  it.each(SPECS)('%s: the template filled in is what vega-lite compiles', (_, spec) => {
    expect(toVega(spec)).toEqual(JSON.parse(JSON.stringify(compile(spec).spec)));
  });

  it('three kinds of plot, three templates; a plot of an unknown kind is a bug that names the fix', () => {
    expect(new Set(SPECS.map(([, s]) => templateKey(s))).size).toBe(3);
    const other = { ...normSpec(norms, { text: 'x' }), height: 999 } as TopLevelSpec;
    expect(() => toVega(other)).toThrow(/npm run vega/);
  });

  it('renders SVG from the template without vega-lite', async () => {
    const svg = await renderSvg(SPECS[0]![1]);
    expect(svg).toMatch(/^<svg/);
    expect(svg).toContain('kv_c_normed');
  });
});
