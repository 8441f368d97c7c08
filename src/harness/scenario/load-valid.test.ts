import { preset } from '../../core/model/presets';
import { parseScenario } from './load';
import { syntheticIds } from './requests';

/** A valid tiny scenario; `extra` is appended as more top-level YAML. */
const base = (extra = '') => `name: t\nmodel:\n  preset: tiny\nprompt:\n  ids: [1, 2, 3]\n${extra}`;

describe('parseScenario: valid input', () => {
  it('a minimal scenario gets the defaults', () => {
    const s = parseScenario(base(), 'min.yaml');
    expect(s.file).toBe('min.yaml');
    expect(s.name).toBe('t');
    expect(s.preset).toBe('tiny');
    expect(s.config).toEqual(preset('tiny'));
    expect(s.reference).toBe('auto');
    expect(s.seed).toBe(0);
    expect(s.requests).toEqual([
      { name: 'prompt', ids: [1, 2, 3], startStep: 0, positionOffset: 0, phases: [{ kind: 'prefill', tokens: 3 }] },
    ]);
    expect(s.schedule).toEqual({
      blockSize: 16,
      decodeThreshold: 1,
      contextChunk: 65_536,
      kvSplits: 1,
      prefillKernel: 'fa3',
      cold: 'auto',
      attention: 'auto',
    });
    expect(s.text).toBeUndefined();
    expect(s.cases).toEqual([{ name: 'full', heads: { start: 0, count: 4 }, label: expect.any(String) }]);
    expect([...s.faults.mha]).toEqual([]);
    expect([...s.faults.mqa]).toEqual([]);
    expect(s.tolerances).toEqual({ default: undefined, stages: {} });
    expect(s.expect).toBeUndefined();
  });

  it('accepts an explicit version: 1', () => {
    expect(parseScenario(`version: 1\n${base()}`).name).toBe('t');
  });

  it('uses a placeholder file name when none is given', () => {
    expect(parseScenario(base()).file).toBe('<scenario>');
  });

  it('reads name, description, seed, text, start_position and reference', () => {
    const s = parseScenario(
      [
        'name: full-example',
        'description: a description',
        'model: {preset: tiny}',
        'weights:',
        '  synthetic: {seed: 42}',
        'prompt:',
        '  text: hello there',
        '  ids: [5, 6]',
        '  start_position: 10',
        'reference: off',
        '',
      ].join('\n'),
    );
    expect(s).toMatchObject({ name: 'full-example', description: 'a description', seed: 42, text: 'hello there', reference: 'off' });
    expect(s.requests).toEqual([
      { name: 'prompt', ids: [5, 6], startStep: 0, positionOffset: 10, phases: [{ kind: 'prefill', tokens: 2 }] },
    ]);
  });
  it('prompt.length draws deterministic synthetic ids below vocab_size', () => {
    const text = 'name: t\nmodel: {preset: tiny}\nweights: {synthetic: {seed: 3}}\nprompt: {length: 64}\n';
    const ids = (x: ReturnType<typeof parseScenario>) => x.requests[0]!.ids;
    const a = parseScenario(text);
    const b = parseScenario(text);
    expect(ids(a)).toHaveLength(64);
    expect(ids(a)).toEqual(ids(b));
    expect(ids(a)).toEqual(syntheticIds(64, 1000, 3));
    expect(a.requests[0]).toMatchObject({ name: 'prompt', positionOffset: 0, phases: [{ kind: 'prefill', tokens: 64 }] });
    for (const id of ids(a)) {
      expect(Number.isInteger(id)).toBe(true);
      expect(id).toBeGreaterThanOrEqual(0);
      expect(id).toBeLessThan(1000);
    }
    // Not a constant sequence, and the seed matters.
    expect(new Set(ids(a)).size).toBeGreaterThan(1);
    expect(ids(parseScenario(text.replace('seed: 3', 'seed: 4')))).not.toEqual(ids(a));
  });

  it('prompt.length respects an overridden vocab_size', () => {
    const s = parseScenario('name: t\nmodel: {preset: tiny, vocab_size: 7}\nprompt: {length: 100}\n');
    expect(s.requests[0]!.ids).toHaveLength(100);
    expect(Math.max(...s.requests[0]!.ids)).toBeLessThan(7);
  });

  it('prompt.ids are kept verbatim', () => {
    expect(parseScenario(base().replace('[1, 2, 3]', '[0, 999, 5]')).requests[0]!.ids).toEqual([0, 999, 5]);
  });
  it('tolerances map to {default, stages}', () => {
    const s = parseScenario(base('tolerances:\n  default: {rel: 1.0e-4}\n  stages:\n    logits: {rel: 0.01}\n    lse: {rel: 0}\n'));
    expect(s.tolerances).toEqual({ default: 1e-4, stages: { logits: 0.01, lse: 0 } });
  });

  it('tolerances with only stages leave default undefined', () => {
    const s = parseScenario(base('tolerances:\n  stages:\n    q_pe: {rel: 0.5}\n'));
    expect(s.tolerances.default).toBeUndefined();
    expect(s.tolerances.stages).toEqual({ q_pe: 0.5 });
  });

  it.each([
    ['expect: {outcome: agree}', { outcome: 'agree', first_divergence: undefined, culprit: undefined }],
    [
      'expect: {outcome: diverge, first_divergence: logits, culprit: mqa}',
      { outcome: 'diverge', first_divergence: 'logits', culprit: 'mqa' },
    ],
    ['expect:\n  outcome: diverge\n  culprit: shared', { outcome: 'diverge', first_divergence: undefined, culprit: 'shared' }],
    ['expect: {outcome: diverge, culprit: cold}', { outcome: 'diverge', first_divergence: undefined, culprit: 'cold' }],
    [
      'expect: {outcome: diverge, first_divergence: context_lse, step: 0, request: chat}',
      { outcome: 'diverge', first_divergence: 'context_lse', culprit: undefined, step: 0, request: 'chat' },
    ],
  ])('expect is parsed: %s', (yaml, want) => {
    expect(parseScenario(base(`${yaml}\n`)).expect).toEqual(want);
  });

  it('accepts CRLF line endings', () => {
    expect(parseScenario(base().replace(/\n/g, '\r\n')).requests[0]!.ids).toEqual([1, 2, 3]);
  });
});
