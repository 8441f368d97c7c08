import { reportValidator } from './validate';

/** Issue 23: a saved report is a third party's document; its `format` picks a schema only among the shipped ones. */
describe('reportValidator on hostile documents', () => {
  const { validate } = reportValidator();

  it.each<[string, unknown]>([
    ['format "constructor"', { format: 'constructor', version: 1 }],
    ['format "__proto__"', JSON.parse('{"__proto__": "x", "format": "__proto__"}')],
    ['format "toString"', { format: 'toString' }],
    ['format a number', { format: 7 }],
    ['format an object', { format: { run: true } }],
    ['a number', 42],
    ['null', null],
    ['an array', [{ format: 'mla-diff/run' }]],
  ])('%s: not ok, one error at /format, never a crash', (_what, doc) => {
    const v = validate(doc);
    expect(v.ok).toBe(false);
    expect(v.errors.map((e) => e.at)).toEqual(['/format']);
    expect(v.kind).not.toMatch(/undefined/);
    expect(v.errors[0]!.message).not.toMatch(/undefined/);
  });
});
