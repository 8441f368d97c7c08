import type { ErrorCode } from '../../errors';
import { MlaDiffError } from '../../errors';
import { planRun } from '../run/pieces';
import { openSource } from '../../checkpoints/checkpoint/source';
import { parseScenario } from './load';

const base = (extra = '') => `name: t\nmodel:\n  preset: tiny\nprompt:\n  ids: [1, 2, 3]\n${extra}`;

function parseError(text: string): MlaDiffError {
  try {
    parseScenario(text, 'test.yaml');
  } catch (e) {
    if (e instanceof MlaDiffError) return e;
    throw e;
  }
  throw new Error('expected an MlaDiffError');
}

describe('tolerances: {floor: k}', () => {
  it('maps to {floor: k}; mixes with rel: entries', () => {
    const s = parseScenario(base('tolerances:\n  default: {floor: 8}\n  stages:\n    lse: {rel: 1.0e-4}\n    logits: {floor: 2.5}\n'));
    expect(s.tolerances).toEqual({ default: { floor: 8 }, stages: { lse: 1e-4, logits: { floor: 2.5 } } });
  });

  it.each<[string, string, ErrorCode, string, number]>([
    ['both rel and floor', 'tolerances:\n  stages:\n    lse: {rel: 1.0e-4, floor: 8}\n', 'invalid-value', 'tolerances.stages.lse', 8],
    ['neither', 'tolerances:\n  default: {}\n', 'invalid-type', 'tolerances.default', 7],
    ['k = 0', 'tolerances:\n  default: {floor: 0}\n', 'invalid-value', 'tolerances.default.floor', 7],
    ['k < 0', 'tolerances:\n  default: {floor: -2}\n', 'invalid-value', 'tolerances.default.floor', 7],
    ['k not a number', 'tolerances:\n  default: {floor: many}\n', 'invalid-type', 'tolerances.default.floor', 7],
    ['a misspelt floor', 'tolerances:\n  default: {flor: 8}\n', 'unknown-key', 'tolerances.default.flor', 7],
    ['floor with the cold path off', 'schedule: {cold: off}\ntolerances:\n  default: {floor: 8}\n', 'invalid-value', 'schedule.cold', 6],
  ])('%s: error code and field', (_what, extra, code, field, line) => {
    const e = parseError(base(extra));
    expect(e.code).toBe(code);
    expect(e.where).toMatchObject({ file: 'test.yaml', field, line });
  });

  it('both given: the hint names the two kinds', () => {
    expect(parseError(base('tolerances: {default: {rel: 1, floor: 1}}\n')).hint).toMatch(/rel: .*floor: /);
  });

  it('a misspelt key is told the allowed keys, floor among them', () => {
    expect(parseError(base('tolerances: {default: {flor: 8}}\n')).hint).toMatch(/rel, floor/);
  });

  it('floor-based tolerances turn the cold path on under cold: auto (floors come from it); rel ones do not', () => {
    const floor = parseScenario(base('tolerances: {stages: {lse: {floor: 8}}}\n'));
    const rel = parseScenario(base('tolerances: {default: {rel: 1.0e-5}}\n'));
    expect(planRun(floor, openSource(floor.weights)).cold).toBe(true);
    expect(planRun(rel, openSource(rel.weights)).cold).toBe(false);
  });
});
