import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ErrorCode } from '../../errors';
import { MlaDiffError } from '../../errors';
import { preset } from '../../core/model/presets';
import { loadScenario, parseScenario } from './load';
import { syntheticIds } from './requests';
import { failure } from '../../test-utils/errors';


const parseError = (text: string) => failure(() => parseScenario(text, 'test.yaml'));

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
    expect(s.requests).toEqual([{ name: 'prompt', ids: [1, 2, 3], startStep: 0, positionOffset: 0, phases: [{ kind: 'prefill', tokens: 3 }] }]);
    expect(s.schedule).toEqual({ blockSize: 16, decodeThreshold: 1, contextChunk: 65_536, kvSplits: 1, prefillKernel: 'fa3', cold: 'auto', attention: 'auto' });
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
    const s = parseScenario([
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
    ].join('\n'));
    expect(s).toMatchObject({ name: 'full-example', description: 'a description', seed: 42, text: 'hello there', reference: 'off' });
    expect(s.requests).toEqual([{ name: 'prompt', ids: [5, 6], startStep: 0, positionOffset: 10, phases: [{ kind: 'prefill', tokens: 2 }] }]);
  });

  it.each([
    [{ size: 2, rank: 0 }, { start: 0, count: 2 }],
    [{ size: 2, rank: 1 }, { start: 2, count: 2 }],
    [{ size: 4, rank: 3 }, { start: 3, count: 1 }],
    [{ size: 1, rank: 0 }, { start: 0, count: 4 }],
  ])('tp %p selects heads %p', (tp, heads) => {
    const s = parseScenario(base(`cases:\n  - name: r\n    tp: {size: ${tp.size}, rank: ${tp.rank}}\n`));
    expect(s.cases).toHaveLength(1);
    expect(s.cases[0]!.name).toBe('r');
    expect(s.cases[0]!.heads).toEqual(heads);
  });

  it('heads: {start, count} is taken as given', () => {
    const s = parseScenario(base('cases:\n  - name: a\n    heads: {start: 1, count: 2}\n  - name: b\n'));
    expect(s.cases.map((c) => [c.name, c.heads])).toEqual([
      ['a', { start: 1, count: 2 }],
      ['b', { start: 0, count: 4 }],
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

  it.each([
    ['rms_norm_eps', '1.0e-6', 1e-6],
    ['hidden_size', '128', 128],
    ['num_attention_heads', '8', 8],
    ['rope_interleave', 'false', false],
    ['rope_theta', '500000', 500000],
  ] as const)('model override %s reaches scenario.config', (key, yaml, value) => {
    const s = parseScenario(`name: t\nmodel:\n  preset: tiny\n  ${key}: ${yaml}\nprompt: {ids: [1]}\n`);
    expect(s.config[key]).toBe(value);
    expect(s.preset).toBe('tiny');
    // Untouched fields keep the preset's values.
    expect(s.config.kv_lora_rank).toBe(preset('tiny').kv_lora_rank);
  });

  it('a rope_scaling override gets the yarn defaults filled in', () => {
    const s = parseScenario([
      'name: t', 'model:', '  preset: tiny', '  rope_scaling:', '    type: yarn', '    factor: 4',
      '    original_max_position_embeddings: 1024', 'prompt: {ids: [1]}', '',
    ].join('\n'));
    expect(s.config.rope_scaling).toEqual({
      type: 'yarn', factor: 4, mscale: 1, mscale_all_dim: 1, original_max_position_embeddings: 1024, beta_fast: 32, beta_slow: 1,
    });
  });

  it('an overridden head count changes the default case', () => {
    const s = parseScenario('name: t\nmodel: {preset: tiny, num_attention_heads: 6}\nprompt: {ids: [1]}\n');
    expect(s.cases[0]!.heads).toEqual({ start: 0, count: 6 });
  });

  it('faults land in faults.mha / faults.mqa', () => {
    const s = parseScenario(base([
      'faults:',
      '  - {path: mqa, fault: softmax-scale-latent}',
      '  - {path: mha, fault: rope-neox}',
      '  - {path: mqa, fault: kv-norm-skipped}',
      '',
    ].join('\n')));
    expect([...s.faults.mha]).toEqual(['rope-neox']);
    expect([...s.faults.mqa].sort()).toEqual(['kv-norm-skipped', 'softmax-scale-latent']);
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
    ['expect: {outcome: diverge, first_divergence: logits, culprit: mqa}', { outcome: 'diverge', first_divergence: 'logits', culprit: 'mqa' }],
    ['expect:\n  outcome: diverge\n  culprit: shared', { outcome: 'diverge', first_divergence: undefined, culprit: 'shared' }],
    ['expect: {outcome: diverge, culprit: cold}', { outcome: 'diverge', first_divergence: undefined, culprit: 'cold' }],
    ['expect: {outcome: diverge, first_divergence: context_lse, step: 0, request: chat}',
      { outcome: 'diverge', first_divergence: 'context_lse', culprit: undefined, step: 0, request: 'chat' }],
  ])('expect is parsed: %s', (yaml, want) => {
    expect(parseScenario(base(`${yaml}\n`)).expect).toEqual(want);
  });

  it('accepts CRLF line endings', () => {
    expect(parseScenario(base().replace(/\n/g, '\r\n')).requests[0]!.ids).toEqual([1, 2, 3]);
  });
});

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
    ['prompt key', 'name: t\nmodel: {preset: tiny}\nprompt:\n  ids: [1]\n  start_postion: 2\n', 'prompt.start_postion', 5, 'start_position'],
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
    ['yarn factor', 'name: t\nmodel:\n  preset: tiny\n  rope_scaling:\n    type: yarn\n    factr: 4\n    original_max_position_embeddings: 1024\nprompt: {ids: [1]}\n',
      'model.rope_scaling.factr', 6, 'factor'],
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
    ['rope_interleave is a string', 'name: t\nmodel:\n  preset: tiny\n  rope_interleave: "yes"\nprompt: {ids: [1]}\n', 'model.rope_interleave', 4],
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

  it('tp size that does not divide the heads → invalid-value at cases[0].tp.size', () => {
    const e = parseError(base('cases:\n  - name: a\n    tp: {size: 3, rank: 0}\n'));
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ file: 'test.yaml', field: 'cases[0].tp.size', line: 8 });
  });

  it.each([
    [2, 2],
    [2, 5],
    [1, 1],
  ])('tp rank ≥ size (size %i, rank %i) → invalid-value at tp.rank', (size, rank) => {
    const e = parseError(base(`cases:\n  - name: a\n  - name: b\n    tp: {size: ${size}, rank: ${rank}}\n`));
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ field: 'cases[1].tp.rank', line: 9 });
  });

  it.each([
    [2, 3],
    [4, 1],
    [0, 5],
  ])('heads beyond the model (start %i, count %i) → invalid-value', (start, count) => {
    const e = parseError(base(`cases:\n  - name: a\n    heads: {start: ${start}, count: ${count}}\n`));
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ field: 'cases[0].heads', line: 8 });
  });

  it('heads and tp together → invalid-value', () => {
    const e = parseError(base('cases:\n  - name: a\n    heads: {start: 0, count: 2}\n    tp: {size: 2, rank: 0}\n'));
    expect(e.code).toBe('invalid-value');
    expect(e.where.field).toBe('cases[0]');
  });

  it('duplicate case names → invalid-value at the second one', () => {
    const e = parseError(base('cases:\n  - name: a\n  - name: b\n  - name: a\n'));
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ field: 'cases[2].name', line: 9 });
  });

  it.each([
    ['= vocab_size', '[1, 1000]', 'prompt.ids[1]'],
    ['> vocab_size', '[123456, 2]', 'prompt.ids[0]'],
  ])('token id %s → invalid-value naming the id', (_what, ids, field) => {
    const e = parseError(`name: t\nmodel: {preset: tiny}\nprompt:\n  ids: ${ids}\n`);
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ field, line: 4 });
  });

  it('token id checked against an overridden vocab_size', () => {
    const e = parseError('name: t\nmodel: {preset: tiny, vocab_size: 10}\nprompt: {ids: [9, 10]}\n');
    expect(e.code).toBe('invalid-value');
    expect(e.where.field).toBe('prompt.ids[1]');
  });

  it('positions beyond max_position_embeddings → invalid-value at prompt', () => {
    const e = parseError('name: t\nmodel: {preset: tiny, max_position_embeddings: 8}\nprompt:\n  length: 9\n');
    expect(e.code).toBe('invalid-value');
    expect(e.where.field).toBe('prompt');
  });

  it('start_position counts towards max_position_embeddings', () => {
    const e = parseError('name: t\nmodel: {preset: tiny, max_position_embeddings: 8}\nprompt:\n  ids: [1, 2]\n  start_position: 7\n');
    expect(e.code).toBe('invalid-value');
    expect(e.where.field).toBe('prompt');
  });

  it('odd qk_rope_head_dim → invalid-config at model.qk_rope_head_dim', () => {
    const e = parseError('name: t\nmodel:\n  preset: tiny\n  qk_rope_head_dim: 7\nprompt: {ids: [1]}\n');
    expect(e.code).toBe('invalid-config');
    expect(e.where).toMatchObject({ file: 'test.yaml', field: 'model.qk_rope_head_dim', line: 4 });
  });

  it('rope_theta ≤ 1 → invalid-config at model.rope_theta', () => {
    const e = parseError('name: t\nmodel:\n  preset: tiny\n  rope_theta: 0.5\nprompt: {ids: [1]}\n');
    expect(e.code).toBe('invalid-config');
    expect(e.where).toMatchObject({ field: 'model.rope_theta', line: 4 });
  });

  it.each([
    ['both ids and length', 'name: t\nmodel: {preset: tiny}\nprompt:\n  ids: [1]\n  length: 3\n'],
  ])('%s → invalid-value at prompt', (_what, text) => {
    const e = parseError(text);
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ field: 'prompt', line: 4 });
  });

  it('text but neither ids nor length, and synthetic weights (no tokenizer) → invalid-value at prompt.text', () => {
    const e = parseError('name: t\nmodel: {preset: tiny}\nprompt:\n  text: hello\n');
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ field: 'prompt.text', line: 4 });
  });

  it.each([
    ['a YAML list', '- name: t\n- model: tiny\n'],
    ['a bare string', 'just some text\n'],
    ['a number', '42\n'],
    ['an empty file', ''],
    ['only comments', '# nothing here\n'],
  ])('%s instead of a mapping → invalid-type at line 1', (_what, text) => {
    const e = parseError(text);
    expect(e.code).toBe('invalid-type');
    expect(e.where).toMatchObject({ file: 'test.yaml', line: 1 });
  });
});

describe('parseScenario: requests and schedule', () => {
  /** A tiny scenario with a schedule: `requests` and `more` are YAML lines (requests indented as list items). */
  const sched = (requests: string[], more = '') => `name: t\nmodel: {preset: tiny}\nrequests:\n${requests.map((r) => `  - ${r}`).join('\n')}\n${more}`;
  const DEFAULT_SCHEDULE = { blockSize: 16, decodeThreshold: 1, contextChunk: 65_536, kvSplits: 1, prefillKernel: 'fa3', cold: 'auto', attention: 'auto' };

  it('a request with only name and steps gets the defaults, ids from the seed', () => {
    const s = parseScenario(sched(['{name: a, steps: [{prefill: 4}]}']));
    expect(s.requests).toEqual([{ name: 'a', ids: syntheticIds(4, 1000, 0, 'request_ids:a'), startStep: 0, positionOffset: 0, phases: [{ kind: 'prefill', tokens: 4 }] }]);
    expect(s.schedule).toEqual(DEFAULT_SCHEDULE);
    expect(s.text).toBeUndefined();
    expect(s.cases).toEqual([{ name: 'full', heads: { start: 0, count: 4 }, label: expect.any(String) }]);
  });

  it('reads every field of a request and every kind of step', () => {
    const s = parseScenario([
      'name: t',
      'model: {preset: tiny}',
      'requests:',
      '  - name: chat',
      '    ids: [7, 8]',
      '    start_step: 2',
      '    position_offset: 100',
      '    steps: [{prefill: 12, chunk: 5}, {decode: 3}, {cached: 4}, {prefill: 2}]',
      '',
    ].join('\n'));
    expect(s.requests).toHaveLength(1);
    const r = s.requests[0]!;
    expect(r).toMatchObject({ name: 'chat', startStep: 2, positionOffset: 100 });
    expect(r.phases).toEqual([
      { kind: 'prefill', tokens: 12, chunk: 5 },
      { kind: 'decode', tokens: 3 },
      { kind: 'cached', tokens: 4 },
      { kind: 'prefill', tokens: 2 },
    ]);
    // Given ids lead; the rest of the 21 tokens come from the request's own stream.
    expect(r.ids).toHaveLength(21);
    expect(r.ids.slice(0, 2)).toEqual([7, 8]);
    expect(r.ids.slice(2)).toEqual(syntheticIds(21, 1000, 0, 'request_ids:chat').slice(2));
  });

  it('as many ids as tokens are kept verbatim', () => {
    expect(parseScenario(sched(['{name: a, ids: [1, 2, 3], steps: [{prefill: 2}, {decode: 1}]}'])).requests[0]!.ids).toEqual([1, 2, 3]);
  });

  it('requests keep their order; each draws its own ids, from the weight seed', () => {
    const text = sched(['{name: a, steps: [{prefill: 8}]}', '{name: b, steps: [{prefill: 8}]}'], 'weights: {synthetic: {seed: 5}}\n');
    const s = parseScenario(text);
    expect(s.requests.map((r) => r.name)).toEqual(['a', 'b']);
    expect(s.requests[0]!.ids).not.toEqual(s.requests[1]!.ids);
    expect(s.requests[0]!.ids).toEqual(syntheticIds(8, 1000, 5, 'request_ids:a'));
    expect(parseScenario(text.replace('seed: 5', 'seed: 6')).requests[0]!.ids).not.toEqual(s.requests[0]!.ids);
    expect(parseScenario(text).requests).toEqual(s.requests);
  });

  it('a prompt: is one request named prompt, prefilled at start_position', () => {
    const s = parseScenario('name: t\nmodel: {preset: tiny}\nprompt: {text: hi, ids: [4, 5, 6], start_position: 7}\n');
    expect(s.text).toBe('hi');
    expect(s.requests).toEqual([{ name: 'prompt', ids: [4, 5, 6], startStep: 0, positionOffset: 7, phases: [{ kind: 'prefill', tokens: 3 }] }]);
  });

  it('reads every schedule: field', () => {
    const s = parseScenario(sched(['{name: a, steps: [{prefill: 4}]}'],
      'schedule: {block_size: 4, decode_threshold: 2, context_chunk: 5, kv_splits: 3, prefill_kernel: fa2, cold: on, attention: fused}\n'));
    expect(s.schedule).toEqual({ blockSize: 4, decodeThreshold: 2, contextChunk: 5, kvSplits: 3, prefillKernel: 'fa2', cold: 'on', attention: 'fused' });
  });

  it('schedule.logits_rows is kept as given; absent, the schedule has no logitsRows', () => {
    expect(parseScenario(base('schedule: {logits_rows: [0, 17, -1]}\n')).schedule).toEqual({ ...DEFAULT_SCHEDULE, logitsRows: [0, 17, -1] });
    expect(parseScenario(base()).schedule).not.toHaveProperty('logitsRows');
  });

  it('a partial schedule: keeps the defaults of the rest, with a prompt too', () => {
    const s = parseScenario(base('schedule: {kv_splits: 4}\n'));
    expect(s.schedule).toEqual({ ...DEFAULT_SCHEDULE, kvSplits: 4 });
    expect(s.requests.map((r) => r.name)).toEqual(['prompt']);
  });

  it.each<[string, string, string | undefined]>([
    ['prompt and requests together', `${base()}requests:\n  - {name: a, steps: [{prefill: 1}]}\n`, 'requests'],
    ['neither prompt nor requests', 'name: t\nmodel: {preset: tiny}\n', undefined],
  ])('%s → invalid-value naming both', (_what, text, field) => {
    const e = parseError(text);
    expect(e.code).toBe('invalid-value');
    expect(e.message).toContain('prompt');
    expect(e.message).toContain('requests');
    expect(e.where.file).toBe('test.yaml');
    expect(e.where.line).toEqual(expect.any(Number));
    expect(e.where.field || undefined).toBe(field);
  });

  it.each([
    ['chunk with a decode', '{name: a, steps: [{decode: 3, chunk: 2}]}', 'requests[0].steps[0].chunk', 4],
    ['chunk with a cache hit', '{name: a, steps: [{prefill: 2}, {cached: 3, chunk: 2}]}', 'requests[0].steps[1].chunk', 4],
    ['a step of two kinds', '{name: a, steps: [{prefill: 3, decode: 1}]}', 'requests[0].steps[0]', 4],
    ['a step of three kinds', '{name: a, steps: [{prefill: 3, decode: 1, cached: 2}]}', 'requests[0].steps[0]', 4],
    ['a step of no kind (chunk alone)', '{name: a, steps: [{chunk: 2}]}', 'requests[0].steps[0]', 4],
    ['more ids than tokens', '{name: a, ids: [1, 2, 3, 4], steps: [{prefill: 2}, {decode: 1}]}', 'requests[0].ids', 4],
    ['an id = vocab_size', '{name: a, ids: [1, 1000], steps: [{prefill: 2}]}', 'requests[0].ids[1]', 4],
    ['no steps', '{name: a, steps: []}', 'requests[0].steps', 4],
    ['zero tokens', '{name: a, steps: [{prefill: 0}]}', 'requests[0].steps[0].prefill', 4],
    ['zero chunk', '{name: a, steps: [{prefill: 4, chunk: 0}]}', 'requests[0].steps[0].chunk', 4],
    ['a name with a space', '{name: "a b", steps: [{prefill: 1}]}', 'requests[0].name', 4],
  ])('%s → invalid-value at %s', (_what, request, field, line) => {
    const e = parseError(sched([request]));
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ file: 'test.yaml', field, line });
  });

  it('an id beyond vocab in a later request names that request and id', () => {
    const e = parseError(sched(['{name: a, steps: [{prefill: 2}]}', '{name: b, ids: [3, 4, 5000], steps: [{prefill: 3}]}']));
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ field: 'requests[1].ids[2]', line: 5 });
    expect(e.message).toContain('5000');
  });

  it('an id checked against an overridden vocab_size', () => {
    const e = parseError(sched(['{name: a, ids: [9, 10], steps: [{prefill: 4}]}']).replace('preset: tiny', 'preset: tiny, vocab_size: 10'));
    expect(e.code).toBe('invalid-value');
    expect(e.where.field).toBe('requests[0].ids[1]');
  });

  it('duplicate request names → invalid-value at the second one', () => {
    const e = parseError(sched(['{name: a, steps: [{prefill: 2}]}', '{name: b, steps: [{prefill: 2}]}', '{name: a, steps: [{decode: 1}]}']));
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ field: 'requests[2].name', line: 6 });
    expect(e.message).toContain('"a"');
  });

  it.each([
    ['every token counts, decodes and cache hits included', '{name: a, steps: [{cached: 4}, {prefill: 3}, {decode: 2}]}'],
    ['position_offset counts', '{name: a, position_offset: 6, steps: [{prefill: 3}]}'],
  ])('positions beyond max_position_embeddings (%s) → invalid-value at the request', (_what, request) => {
    const e = parseError(sched([request]).replace('preset: tiny', 'preset: tiny, max_position_embeddings: 8'));
    expect(e.code).toBe('invalid-value');
    expect(e.where.field).toBe('requests[0]');
  });

  it('a request that just fits max_position_embeddings loads', () => {
    const s = parseScenario(sched(['{name: a, position_offset: 4, steps: [{cached: 2}, {prefill: 1}, {decode: 1}]}']).replace('preset: tiny', 'preset: tiny, max_position_embeddings: 8'));
    expect(s.requests[0]!.ids).toHaveLength(4);
  });

  it.each([
    ['schedule key', 'schedule:\n  block_sise: 4\n', 'schedule.block_sise', 6, 'block_size'],
    ['schedule key, flow style', 'schedule: {kv_split: 4}\n', 'schedule.kv_split', 5, 'kv_splits'],
    ['schedule key, prefill_kernel', 'schedule:\n  prefil_kernel: fa2\n', 'schedule.prefil_kernel', 6, 'prefill_kernel'],
  ])('%s typo → unknown-key with a did-you-mean', (_what, more, field, line, suggestion) => {
    const e = parseError(sched(['{name: a, steps: [{prefill: 4}]}'], more));
    expect(e.code).toBe('unknown-key');
    expect(e.where).toMatchObject({ file: 'test.yaml', field, line });
    expect(e.message).toContain(`"${suggestion}"`);
    expect(e.hint).toContain('context_chunk');
  });

  it.each([
    ['step key', ['name: a', '    steps:', '      - {prefil: 4}'], 'requests[0].steps[0].prefil', 6, 'prefill'],
    ['request key', ['name: a', '    start_stpe: 1', '    steps: [{prefill: 4}]'], 'requests[0].start_stpe', 5, 'start_step'],
    ['misspelt name', ['nmae: a', '    steps: [{prefill: 4}]'], 'requests[0].nmae', 4, 'name'],
  ])('%s typo → unknown-key with a did-you-mean', (_what, lines, field, line, suggestion) => {
    const e = parseError(sched([lines.join('\n')]));
    expect(e.code).toBe('unknown-key');
    expect(e.where).toMatchObject({ field, line });
    expect(e.message).toContain(`"${suggestion}"`);
  });

  it.each([
    ['prefill_kernel', 'schedule: {prefill_kernel: fa4}\n', 'schedule.prefill_kernel', ['fa3', 'fa2']],
    ['cold', 'schedule: {cold: maybe}\n', 'schedule.cold', ['auto', 'on', 'off']],
  ])('an unknown %s → invalid-value listing the choices', (_what, more, field, choices) => {
    const e = parseError(sched(['{name: a, steps: [{prefill: 4}]}'], more));
    expect(e.code).toBe('invalid-value');
    expect(e.where).toMatchObject({ field, line: 5 });
    for (const c of choices) expect(e.message).toContain(c);
    expect(e.message).toContain('did you mean');
  });

  it.each([
    ['block_size', 'schedule: {block_size: 0}\n', 'schedule.block_size'],
    ['context_chunk', 'schedule: {context_chunk: -5}\n', 'schedule.context_chunk'],
    ['kv_splits', 'schedule: {kv_splits: 0}\n', 'schedule.kv_splits'],
    ['decode_threshold', 'schedule: {decode_threshold: 0}\n', 'schedule.decode_threshold'],
    ['an empty requests list', '', 'requests'],
  ])('a bad %s → invalid-value', (_what, more, field) => {
    const text = field === 'requests' ? 'name: t\nmodel: {preset: tiny}\nrequests: []\n' : sched(['{name: a, steps: [{prefill: 4}]}'], more);
    const e = parseError(text);
    expect(e.code).toBe('invalid-value');
    expect(e.where.field).toBe(field);
  });

  it.each([
    ['step is a string', 'expect: {outcome: diverge, step: three}\n', 'expect.step'],
    ['kv_splits is fractional', 'schedule: {kv_splits: 1.5}\n', 'schedule.kv_splits'],
    ['steps is a mapping', '', 'requests[0].steps'],
  ])('wrong type (%s) → invalid-type', (_what, more, field) => {
    const text = field === 'requests[0].steps' ? sched(['{name: a, steps: {prefill: 4}}']) : sched(['{name: a, steps: [{prefill: 4}]}'], more);
    const e = parseError(text);
    expect(e.code).toBe('invalid-type');
    expect(e.where.field).toBe(field);
  });
});

describe('loadScenario', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mla-diff-load-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads and parses a file, recording its path', () => {
    const file = join(dir, 'ok.yaml');
    writeFileSync(file, base());
    const s = loadScenario(file);
    expect(s.file).toBe(file);
    expect(s.requests[0]!.ids).toEqual([1, 2, 3]);
  });

  it('errors in a file carry its path', () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'name: t\nmodel:\n  preset: tiny\n  hiden_size: 1\nprompt: {ids: [1]}\n');
    const e = failure(() => loadScenario(file));
    expect(e.code).toBe('unknown-key');
    expect(e.where).toMatchObject({ file, line: 4, field: 'model.hiden_size' });
  });

  it.each<[string, ErrorCode, (d: string) => string]>([
    ['a missing file', 'file-not-found', (d) => join(d, 'does-not-exist.yaml')],
    ['a file under a missing directory', 'file-not-found', (d) => join(d, 'nope', 'x.yaml')],
    ['a directory', 'file-unreadable', (d) => {
      const sub = join(d, 'a-directory.yaml');
      mkdirSync(sub, { recursive: true });
      return sub;
    }],
  ])('%s → %s naming the file', (_what, code, make) => {
    const file = make(dir);
    const e = failure(() => loadScenario(file));
    expect(e.code).toBe(code);
    expect(e.where.file).toBe(file);
  });
});

describe('the shipped scenarios', () => {
  const root = resolve(__dirname, '../../../scenarios');
  const files = [
    ...readdirSync(root).filter((f) => f.endsWith('.yaml')),
    ...readdirSync(join(root, 'gpu')).filter((f) => f.endsWith('.yaml')).map((f) => join('gpu', f)),
  ];

  it('there are scenarios to check', () => {
    expect(files.length).toBeGreaterThanOrEqual(4);
    expect(files).toEqual(expect.arrayContaining(['tiny-smoke.yaml', join('gpu', 'glm5-long-2048.yaml')]));
  });

  it.each(files)('%s loads', (f) => {
    const s = loadScenario(join(root, f));
    expect(s.name.length).toBeGreaterThan(0);
    expect(s.cases.length).toBeGreaterThan(0);
    expect(s.requests.length).toBeGreaterThan(0);
    for (const r of s.requests) {
      expect(r.ids.length).toBe(r.phases.reduce((n, p) => n + p.tokens, 0));
      expect(Math.max(...r.ids)).toBeLessThan(s.config.vocab_size);
      expect(r.positionOffset + r.ids.length).toBeLessThanOrEqual(s.config.max_position_embeddings);
    }
  });
});
