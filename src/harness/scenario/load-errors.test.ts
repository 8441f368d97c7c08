import { parseScenario } from './load';
import { failure } from '../../test-utils/errors';

const parseError = (text: string) => failure(() => parseScenario(text, 'test.yaml'));

/** A valid tiny scenario; `extra` is appended as more top-level YAML. */
const base = (extra = '') => `name: t\nmodel:\n  preset: tiny\nprompt:\n  ids: [1, 2, 3]\n${extra}`;

describe('parseScenario: bad input is an MlaDiffError with a code and a location', () => {
  it('malformed YAML → yaml-syntax with a line', () => {
    const e = parseError('name: t\nmodel: {preset: tiny\nprompt:\n  ids: [1]\n');
    expect(e.code).toBe('yaml-syntax');
    expect(e.where.file).toBe('test.yaml');
    expect(e.where.line).toEqual(expect.any(Number));
    expect(e.where.line).toBeGreaterThanOrEqual(2);
  });

  it.each([
    ['a duplicate key', 'name: a\nname: b\nmodel: {preset: tiny}\nprompt: {ids: [1]}\n', 2],
    ['two YAML documents', `${base()}---\nname: other\n`, 6],
    ['bad indentation', 'name: t\nmodel:\n  preset: tiny\n   vocab_size: 3\nprompt: {ids: [1]}\n', 3],
  ])('%s → yaml-syntax at line %#', (_what, text, line) => {
    const e = parseError(text);
    expect(e.code).toBe('yaml-syntax');
    expect(e.where.line).toBe(line);
  });

  it('unknown key under model → unknown-key, field, line and a did-you-mean', () => {
    const e = parseError('name: t\nmodel:\n  preset: tiny\n  hiden_size: 128\nprompt:\n  ids: [1]\n');
    expect(e.code).toBe('unknown-key');
    expect(e.where).toMatchObject({ file: 'test.yaml', line: 4, field: 'model.hiden_size' });
    expect(e.message).toContain('hidden_size');
  });

  it('top-level typo → unknown-key with a suggestion', () => {
    const e = parseError(base('refrence: on\n'));
    expect(e.code).toBe('unknown-key');
    expect(e.where).toMatchObject({ file: 'test.yaml', line: 6, field: 'refrence' });
    expect(e.message).toContain('reference');
  });

  it('tolerances.stages typo → unknown-key suggesting the stage', () => {
    const e = parseError(base('tolerances:\n  stages:\n    logit: {rel: 1.0e-3}\n'));
    expect(e.code).toBe('unknown-key');
    expect(e.where).toMatchObject({ file: 'test.yaml', line: 8, field: 'tolerances.stages.logit' });
    expect(e.message).toContain('logits');
  });

  it.each([
    ['tolerances key', base('tolerances:\n  defualt: {rel: 1.0e-3}\n'), 'tolerances.defualt', 7, 'default'],
    ['expect key', base('expect:\n  outcome: agree\n  culpit: mqa\n'), 'expect.culpit', 8, 'culprit'],
    [
      'prompt key',
      'name: t\nmodel: {preset: tiny}\nprompt:\n  ids: [1]\n  start_postion: 2\n',
      'prompt.start_postion',
      5,
      'start_position',
    ],
  ])('%s typo → unknown-key', (_what, text, field, line, suggestion) => {
    const e = parseError(text);
    expect(e.code).toBe('unknown-key');
    expect(e.where).toMatchObject({ field, line });
    expect(e.message).toContain(suggestion);
  });

  // A misspelt required key is reported as the unknown key it is, not as the field it leaves missing.
  it.each([
    ['case name', base('cases:\n  - name: a\n  - nmae: b\n'), 'cases[1].nmae', 8, 'name'],
    ['tp rank', base('cases:\n  - name: a\n    tp: {size: 2, rnak: 1}\n'), 'cases[0].tp.rnak', 8, 'rank'],
    ['preset', 'name: t\nmodel:\n  presett: tiny\nprompt: {ids: [1]}\n', 'model.presett', 3, 'preset'],
    ['fault', base('faults:\n  - path: mqa\n    falt: rope-neox\n'), 'faults[0].falt', 8, 'fault'],
    ['seed', 'name: t\nmodel: {preset: tiny}\nweights:\n  synthetic: {sed: 1}\nprompt: {ids: [1]}\n', 'weights.synthetic.sed', 4, 'seed'],
    [
      'yarn factor',
      'name: t\nmodel:\n  preset: tiny\n  rope_scaling:\n    type: yarn\n    factr: 4\n' +
        '    original_max_position_embeddings: 1024\nprompt: {ids: [1]}\n',
      'model.rope_scaling.factr',
      6,
      'factor',
    ],
    ['tolerance rel', base('tolerances:\n  stages:\n    logits: {rell: 1.0e-3}\n'), 'tolerances.stages.logits.rell', 8, 'rel'],
  ])('misspelt required key (%s) → unknown-key', (_what, text, field, line, suggestion) => {
    const e = parseError(text);
    expect(e.code).toBe('unknown-key');
    expect(e.where).toMatchObject({ field, line });
    expect(e.message).toContain(`"${suggestion}"`);
  });

  it.each([
    ['name is a number', 'name: 5\nmodel: {preset: tiny}\nprompt: {ids: [1]}\n', 'name', 1],
    ['hidden_size is a string', 'name: t\nmodel:\n  preset: tiny\n  hidden_size: big\nprompt: {ids: [1]}\n', 'model.hidden_size', 4],
    ['ids is a scalar', 'name: t\nmodel: {preset: tiny}\nprompt:\n  ids: 5\n', 'prompt.ids', 4],
    ['an id is fractional', 'name: t\nmodel: {preset: tiny}\nprompt:\n  ids: [1, 2.5]\n', 'prompt.ids[1]', 4],
    ['model is a list', 'name: t\nmodel: [tiny]\nprompt: {ids: [1]}\n', 'model', 2],
    [
      'rope_interleave is a string',
      'name: t\nmodel:\n  preset: tiny\n  rope_interleave: "yes"\nprompt: {ids: [1]}\n',
      'model.rope_interleave',
      4,
    ],
    ['a logits row is fractional', base('schedule: {logits_rows: [0, 1.5]}\n'), 'schedule.logits_rows[1]', 6],
    ['tp is a number', base('cases:\n  - name: a\n    tp: 2\n'), 'cases[0].tp', 8],
  ])('wrong type (%s) → invalid-type', (_what, text, field, line) => {
    const e = parseError(text);
    expect(e.code).toBe('invalid-type');
    expect(e.where).toMatchObject({ file: 'test.yaml', field, line });
  });

  it.each([
    ['name', 'model: {preset: tiny}\nprompt: {ids: [1]}\n', 'name'],
    ['model', 'name: t\nprompt: {ids: [1]}\n', 'model'],
    ['model.preset', 'name: t\nmodel: {hidden_size: 96}\nprompt: {ids: [1]}\n', 'model.preset'],
    ['faults[0].fault', base('faults:\n  - path: mqa\n'), 'faults[0].fault'],
    ['expect.outcome', base('expect: {culprit: mqa}\n'), 'expect.outcome'],
  ])('missing %s → invalid-type naming the field', (_what, text, field) => {
    const e = parseError(text);
    expect(e.code).toBe('invalid-type');
    expect(e.where.field).toBe(field);
    expect(e.where.line).toEqual(expect.any(Number));
  });

  it('unknown preset → unknown-preset with field and line', () => {
    const e = parseError('name: t\nmodel:\n  preset: glm-6\nprompt: {ids: [1]}\n');
    expect(e.code).toBe('unknown-preset');
    expect(e.where).toMatchObject({ file: 'test.yaml', field: 'model.preset', line: 3 });
  });

  it.each([
    ['unknown fault', base('faults: [{path: mqa, fault: nope}]\n'), 'faults[0].fault', 6],
    ['unknown fault path', base('faults: [{path: ref, fault: rope-neox}]\n'), 'faults[0].path', 6],
    ['unknown reference mode', base('reference: maybe\n'), 'reference', 6],
    ['unknown outcome', base('expect: {outcome: pass}\n'), 'expect.outcome', 6],
    ['unknown expected stage', base('expect: {outcome: diverge, first_divergence: logit}\n'), 'expect.first_divergence', 6],
    ['unknown culprit', base('expect: {outcome: diverge, culprit: ref}\n'), 'expect.culprit', 6],
    ['version 2', `version: 2\n${base()}`, 'version', 1],
    ['empty name', base().replace('name: t', 'name: ""'), 'name', 1],
    ['case name with a space', base('cases: [{name: "a b"}]\n'), 'cases[0].name', 6],
    ['empty cases list', base('cases: []\n'), 'cases', 6],
    ['empty ids', 'name: t\nmodel: {preset: tiny}\nprompt: {ids: []}\n', 'prompt.ids', 3],
    ['negative tolerance', base('tolerances: {default: {rel: -1}}\n'), 'tolerances.default.rel', 6],
    ['zero head count', base('cases: [{name: a, heads: {start: 0, count: 0}}]\n'), 'cases[0].heads.count', 6],
    ['bad replay mode', base('replay: sometimes\n'), 'replay', 6],
    ['empty logits_rows', base('schedule: {logits_rows: []}\n'), 'schedule.logits_rows', 6],
    ['zero hidden_size', 'name: t\nmodel: {preset: tiny, hidden_size: 0}\nprompt: {ids: [1]}\n', 'model.hidden_size', 2],
  ])('%s → invalid-value', (_what, text, field, line) => {
    const e = parseError(text);
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ file: 'test.yaml', field, line });
  });
});
