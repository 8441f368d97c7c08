/** The harness itself: seeded and reproducible, mutations bounded, the classifier strict about where an error points. */
import { MlaDiffError } from '../errors';
import { classifyThrown } from './classify';
import { mutateBytes } from './mutate-bytes';
import { MAX_INPUT, mutateText } from './mutate-tree';
import { inputSeed, rng } from './rng';

const SCENARIO = 'name: g\nmodel: {preset: tiny}\nweights: {synthetic: {seed: 3}}\nprompt:\n  ids: [5, 17, 256, 999, 42]\n';

describe('fuzz harness', () => {
  it('an input is a pure function of (seed, target, index)', () => {
    const make = (i: number) => mutateText(rng(inputSeed(23, 'loader', i)), SCENARIO, 'yaml');
    const a = Array.from({ length: 20 }, (_, i) => make(i));
    expect(Array.from({ length: 20 }, (_, i) => make(i))).toEqual(a);
    expect(new Set(a).size).toBeGreaterThan(15);
    expect(inputSeed(1, 'gguf', 0)).not.toBe(inputSeed(1, 'gguf', 1));
    expect(inputSeed(1, 'gguf', 0)).not.toBe(inputSeed(2, 'gguf', 0));
  });

  it('mutations never touch their input and stay under 1 MB', () => {
    const bytes = Buffer.from(SCENARIO);
    const copy = Buffer.from(bytes);
    for (let i = 0; i < 60; i++) {
      const r = rng(i);
      expect(mutateBytes(r, bytes, [bytes]).length).toBeLessThan(MAX_INPUT);
      expect(mutateText(r, SCENARIO, 'yaml').length).toBeLessThanOrEqual(MAX_INPUT);
      expect(mutateText(r, '{"a": [1, 2, {"b": "c"}]}', 'json').length).toBeLessThanOrEqual(MAX_INPUT);
    }
    expect(bytes.equals(copy)).toBe(true);
  });

  it('prototype keys are written as own keys, not as prototypes', () => {
    const texts = Array.from({ length: 200 }, (_, i) => mutateText(rng(i), '{"a": {"b": 1}, "c": [1]}', 'json'));
    expect(texts.some((t) => t.includes('"__proto__"'))).toBe(true);
  });

  it('classifies: ok, rejected, uncoded (no file, no field, says undefined), crash', () => {
    expect(classifyThrown(undefined).class).toBe('ok');
    expect(classifyThrown(new MlaDiffError('invalid-value', 'bad', { file: 'f', field: 'a.b' }), { fieldOrLine: true })).toEqual({
      class: 'rejected',
      code: 'invalid-value',
    });
    expect(classifyThrown(new MlaDiffError('invalid-value', 'bad', {})).class).toBe('uncoded');
    expect(classifyThrown(new MlaDiffError('invalid-value', 'bad', { file: 'f' }), { fieldOrLine: true }).class).toBe('uncoded');
    expect(classifyThrown(new MlaDiffError('invalid-value', 'type undefined', { file: 'f' })).class).toBe('uncoded');
    expect(classifyThrown(new MlaDiffError('invalid-value', 'got "undefined"', { file: 'f' })).class).toBe('rejected');
    const crash = classifyThrown(new TypeError("Cannot read properties of undefined (reading 'x')"));
    expect(crash.class).toBe('crash');
    expect(crash.signature).toMatch(/^TypeError: /);
  });
});
