/** Hostile YAML (issue 23's fuzz findings and their class): every one a coded error at its file and line, never a JS error. */
import { parseScenario } from './load';
import { failure } from '../../test-utils/errors';
import { YAML_MAX_CHARS, YAML_MAX_DEPTH, YAML_MAX_SEPARATORS } from './yaml-check';

const parseError = (text: string) => failure(() => parseScenario(text, 'test.yaml'));
const base = (extra = '') => `name: t\nmodel:\n  preset: tiny\nprompt:\n  ids: [1, 2, 3]\n${extra}`;

/** A billion laughs: each level nine aliases of the one before (9^6 strings from a 400-byte file). */
const laughs = ['a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]']
  .concat(['b', 'c', 'd', 'e', 'f'].map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcde'[i]}`).join(', ')}]`))
  .join('\n');

describe('parseScenario: hostile YAML', () => {
  it('an alias bomb is yaml-syntax at its first alias, not "ReferenceError: Excessive alias count"', () => {
    const e = parseError(`${base()}description: x\n${laughs.replace(/^a:/, 'x-a:')}\n`);
    expect(e.code).toBe('yaml-syntax');
    expect(e.where).toMatchObject({ file: 'test.yaml', line: 8 });
  });

  it.each([
    ['an alias before its anchor', `${base()}description: *d\ntolerances: &d {}\n`, 6, 'description'],
    ['an alias inside its own anchor (a cycle)', `${base()}cases: &c [*c]\n`, 6, 'cases[0]'],
    ['an alias to an anchor on a later key', `${base()}description: *k\n&k name2: 1\n`, 6, 'description'],
  ])('%s → yaml-syntax at the alias', (_what, text, line, field) => {
    const e = parseError(text);
    expect(e.code).toBe('yaml-syntax');
    expect(e.where).toMatchObject({ file: 'test.yaml', line, field });
  });

  it('an alias after its anchor still loads', () => {
    expect(parseScenario(`${base()}description: &d hello\ncases: [{name: *d}]\n`).cases[0]!.name).toBe('hello');
  });

  it.each([
    ['!!binary', 'description: !!binary aGVsbG8=\n', 6],
    ['!!set', 'description: !!set {a, b}\n', 6],
    ['a custom tag', 'description: !mine hello\n', 6],
    ['!!timestamp', 'description: !!timestamp 2001-12-14\n', 6],
  ])('the tag %s → yaml-syntax at its line', (_what, extra, line) => {
    const e = parseError(base(extra));
    expect(e.code).toBe('yaml-syntax');
    expect(e.where).toMatchObject({ file: 'test.yaml', line });
  });

  it('core tags still load (!!str 12 is the string "12")', () => {
    expect(parseScenario(base('description: !!str 12\n')).description).toBe('12');
  });

  it.each([
    ['a list as a key', '? [a]\n: 1\n', 6],
    ['a mapping as a key', '? {a: 1}\n: 1\n', 6],
  ])('%s → yaml-syntax at its line', (_what, extra, line) => {
    const e = parseError(base(extra));
    expect(e.code).toBe('yaml-syntax');
    expect(e.where.line).toBe(line);
  });

  it('an empty key is a key named "": unknown here', () => {
    expect(parseError(base('? \n: 1\n')).code).toBe('unknown-key');
  });

  it('a number key and the same name quoted are duplicates (both are "1" in JS)', () => {
    const e = parseError(base('tolerances:\n  stages:\n    1: {rel: 1}\n    "1": {rel: 2}\n'));
    expect(e).toMatchObject({ code: 'yaml-syntax', where: { file: 'test.yaml', line: 9, field: 'tolerances.stages.1' } });
  });

  it('a merge key << is no merge: an unknown key at its line', () => {
    const e = parseError(
      `${base()}x: &x {reference: off}\n`.replace('x: &x', 'description: hi\nschedule: &x {block_size: 8}\nrefs:\n  <<: *x\n  y:'),
    );
    expect(e.code).toBe('unknown-key');
  });

  it.each(['__proto__', 'constructor', 'prototype'])('the key %s → invalid-value at its field, and no prototype changes', (key) => {
    const e = parseError(base(`external:\n  command: x\n  layouts:\n    ${key}: {polluted: yes}\n`));
    expect(e).toMatchObject({ code: 'invalid-value', where: { file: 'test.yaml', line: 9, field: `external.layouts.${key}` } });
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });

  it(`nesting deeper than ${YAML_MAX_DEPTH} levels → limit-exceeded at its line`, () => {
    const e = parseError(base(`description: ${'['.repeat(YAML_MAX_DEPTH + 2)}${']'.repeat(YAML_MAX_DEPTH + 2)}\n`));
    expect(e).toMatchObject({ code: 'limit-exceeded', where: { file: 'test.yaml', line: 6 } });
  });

  it('nesting that exhausts the parser\'s stack → limit-exceeded, not "RangeError: Maximum call stack size exceeded"', () => {
    const e = parseError(base(`description: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`));
    expect(['limit-exceeded', 'yaml-syntax']).toContain(e.code);
    expect(e.where.file).toBe('test.yaml');
  });

  it('a file over the size or node limit → limit-exceeded before parsing, in well under a second', () => {
    const t0 = Date.now();
    expect(parseError(base(`description: "${'x'.repeat(YAML_MAX_CHARS)}"\n`)).code).toBe('limit-exceeded');
    const e = parseError(base(`cases: [${Array(YAML_MAX_SEPARATORS).fill('{name: a}').join(',')}]\n`));
    expect(e).toMatchObject({ code: 'limit-exceeded', where: { file: 'test.yaml', line: base('').split('\n').length } });
    expect(parseError(base(`description: "${'x'.repeat(YAML_MAX_CHARS)}"\n`)).where.line).toBe(base('').split('\n').length);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('keys up to the node limit parse in seconds, not minutes (no pairwise duplicate check)', () => {
    const t0 = Date.now();
    const keys = Array.from({ length: YAML_MAX_SEPARATORS - 100 }, (_, i) => `    k${i}: 1`).join('\n');
    expect(parseError(base(`external:\n  command: x\n  layouts:\n${keys}\n`)).code).toBe('invalid-type');
    expect(Date.now() - t0).toBeLessThan(15_000);
  });
});
