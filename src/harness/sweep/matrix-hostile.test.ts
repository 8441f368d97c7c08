/** Hostile sweep matrices (issue 23): the scenario loader's YAML hardening and bounds, and the point count before expanding. */
import { MATRIX_MAX, parseMatrixText } from './matrix';
import { failure } from '../../test-utils/errors';

/** A valid matrix (lines 1–7) with `axes` as YAML lines under `axes:` (line 8 on). */
const matrix = (axes: string, base = '  model: {preset: tiny}\n  prompt: {length: 6}\n  reference: off') =>
  `format: mla-diff/sweep\nversion: 1\nname: m\nbase:\n${base}\naxes:\n${axes}`;
const parseError = (text: string) => failure(() => parseMatrixText(text, 'm.yaml'));
const seq = (n: number) => `[${Array.from({ length: n }, (_, i) => i).join(', ')}]`;

describe('sweep matrix: hostile input', () => {
  it('axes whose product passes the point bound → limit-exceeded at the longest axis, before any point is built', () => {
    const t0 = Date.now();
    const e = parseError(matrix(`  seed: ${seq(1000)}\n  tokens: ${seq(1000).replace('[0, ', '[')}\n  heads: [1, 2, 4, 8]`));
    expect(e).toMatchObject({ code: 'limit-exceeded', where: { file: 'm.yaml', field: 'axes.seed', line: 9 } });
    expect(e.hint).toContain(String(MATRIX_MAX.points));
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it('an axis of more than 1024 values → limit-exceeded at it', () => {
    const e = parseError(matrix(`  seed: ${seq(1025)}`));
    expect(e).toMatchObject({ code: 'limit-exceeded', where: { file: 'm.yaml', field: 'axes.seed' } });
  });

  it("a tokens value past the scenario's token bound → limit-exceeded at the tokens axis", () => {
    const e = parseError(matrix('  tokens: [4, 1000000000]'));
    expect(e).toMatchObject({ code: 'limit-exceeded', where: { file: 'm.yaml', field: 'axes.tokens', line: 9 } });
  });

  it('a heads value past the config bound → limit-exceeded at the heads axis', () => {
    const e = parseError(matrix('  heads: [4, 1000000]'));
    expect(e).toMatchObject({ code: 'limit-exceeded', where: { file: 'm.yaml', field: 'axes.heads' } });
  });

  it('an alias bomb → yaml-syntax, an alias before its anchor → yaml-syntax, __proto__ in base → invalid-value', () => {
    const laughs = ['a: &a [x, x, x, x, x, x, x, x, x]']
      .concat(['b', 'c', 'd', 'e', 'f'].map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcde'[i]}`).join(', ')}]`))
      .map((l) => `  ${l}`)
      .join('\n');
    expect(parseError(matrix('  seed: [0]', `  model: {preset: tiny}\n${laughs}`)).code).toBe('yaml-syntax');
    expect(parseError(matrix('  seed: *s\n  tokens: &s [4]')).code).toBe('yaml-syntax');
    const e = parseError(matrix('  seed: [0]', '  __proto__: {model: {preset: tiny}}\n  model: {preset: tiny}'));
    expect(e).toMatchObject({ code: 'invalid-value', where: { file: 'm.yaml', field: 'base.__proto__', line: 5 } });
  });

  it('the points of a valid matrix share one parse of the base (1024 points in seconds)', () => {
    const t0 = Date.now();
    expect(parseMatrixText(matrix(`  seed: ${seq(1024)}`), 'm.yaml').points).toHaveLength(1024);
    expect(Date.now() - t0).toBeLessThan(15_000);
  });
});
