import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAULTS } from '../../core/faults/catalogue';
import { loadMatrix, parseMatrixText, scenarioOf } from './matrix';
import { failure } from '../../test-utils/errors';

/** A valid matrix (lines 1–7) with `axes` as YAML lines under `axes:` (line 8 on). */
const matrix = (axes: string, head = 'format: mla-diff/sweep\nversion: 1\nname: m') =>
  `${head}\nbase:\n  model: {preset: tiny}\n  prompt: {length: 6}\n  reference: off\naxes:\n${axes}`;
const parseError = (text: string) => failure(() => parseMatrixText(text, 'm.yaml'));

describe('sweep matrix: expansion', () => {
  it('crosses the axes in a fixed order, the last fastest, with stable ids', () => {
    const m = parseMatrixText(
      matrix('  faults: [none, {path: mqa, fault: softmax-scale-latent}]\n  seed: [0, 1, 2]\n  tokens: [4, 9]'),
      'm.yaml',
    );
    expect(m.points).toHaveLength(12);
    expect(m.points.map((p) => p.index)).toEqual([...Array(12).keys()]);
    expect(m.points.slice(0, 3).map((p) => p.id)).toEqual([
      'seed=0,tokens=4,fault=none',
      'seed=0,tokens=4,fault=mqa:softmax-scale-latent',
      'seed=0,tokens=9,fault=none',
    ]);
    expect(new Set(m.points.map((p) => p.id)).size).toBe(12);
    const again = parseMatrixText(
      matrix('  faults: [none, {path: mqa, fault: softmax-scale-latent}]\n  seed: [0, 1, 2]\n  tokens: [4, 9]'),
      'm.yaml',
    );
    expect(again.points.map((p) => p.id)).toEqual(m.points.map((p) => p.id));
    expect(again.hash).toBe(m.hash);
    expect(parseMatrixText(matrix('  seed: [0, 1, 3]'), 'm.yaml').hash).not.toBe(
      parseMatrixText(matrix('  seed: [0, 1, 2]'), 'm.yaml').hash,
    );
  });

  it('writes each axis value into a scenario and derives the expectation from the fault', () => {
    const m = parseMatrixText(
      matrix(
        '  seed: [5]\n  tokens: [10]\n  tp: [{size: 2, rank: 1}]\n  chunk: [none, 4]\n  device: [cpu]\n' +
          '  faults: [none, {path: mha, fault: rope-neox}]',
      ),
      'm.yaml',
    );
    expect(m.points).toHaveLength(4);
    const chunked = scenarioOf(m, 3);
    expect(m.points[3]!.id).toBe('seed=5,tokens=10,tp=1/2,chunk=4,device=cpu,fault=mha:rope-neox');
    expect(m.points[3]!.device).toBe('cpu');
    expect(chunked.seed).toBe(5);
    expect(chunked.cases).toEqual([{ name: 'tp1-of-2', heads: { start: 2, count: 2 }, label: expect.any(String) }]);
    expect(chunked.requests[0]!.phases).toEqual([{ kind: 'prefill', tokens: 10, chunk: 4 }]);
    expect([...chunked.faults.mha]).toEqual(['rope-neox']);
    expect(chunked.expect).toEqual({ outcome: 'diverge', first_divergence: FAULTS['rope-neox'].enters, culprit: 'mha' });
    const plain = scenarioOf(m, 0);
    expect(plain.requests[0]!.ids).toHaveLength(10);
    expect(plain.expect).toEqual({ outcome: 'agree' });
  });

  it("takes a fault entry's own expect: and a base_file relative to the matrix", () => {
    const dir = mkdtempSync(join(tmpdir(), 'mla-sweep-'));
    try {
      writeFileSync(join(dir, 'base.yaml'), 'name: b\nmodel: {preset: tiny}\nprompt: {ids: [1, 2, 3]}\n');
      writeFileSync(
        join(dir, 'm.yaml'),
        'format: mla-diff/sweep\nversion: 1\nname: f\nbase_file: base.yaml\naxes:\n  heads: [2, 4]\n' +
          '  faults: [{path: mqa, fault: kv-norm-skipped, expect: {outcome: diverge}}]\n',
      );
      const m = loadMatrix(join(dir, 'm.yaml'));
      expect(m.points.map((p) => p.id)).toEqual(['heads=2,fault=mqa:kv-norm-skipped', 'heads=4,fault=mqa:kv-norm-skipped']);
      expect(scenarioOf(m, 0).config.num_attention_heads).toBe(2);
      expect(scenarioOf(m, 1).expect).toEqual({ outcome: 'diverge' });
      expect(scenarioOf(m, 1).requests[0]!.ids).toEqual([1, 2, 3]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('no axes: the base alone, one point', () => {
    const m = parseMatrixText(matrix('  {}'), 'm.yaml');
    expect(m.points.map((p) => p.id)).toEqual(['m']);
    expect(scenarioOf(m, 0).expect).toEqual({ outcome: 'agree' });
  });
});

describe('sweep matrix: errors name the line', () => {
  it.each([
    ['an unknown axis', '  sed: [1]', 'unknown-key', 9, 'axes.sed'],
    ['a misspelt key in a fault entry', '  faults: [none, {path: mqa, falt: rope-neox}]', 'unknown-key', 9, 'axes.faults[1].falt'],
    ['a fault not in the catalogue', '  faults: [{path: mqa, fault: nope}]', 'invalid-value', 9, 'axes.faults[0].fault'],
    ['an empty axis', '  seed: []', 'invalid-value', 9, 'axes.seed'],
    ['a device that does not exist', '  device: [tpu]', 'invalid-value', 9, 'axes.device[0]'],
    ['a tp size that does not divide the heads', '  seed: [1]\n  tp: [{size: 3, rank: 0}]', 'invalid-value', 10, 'axes.tp'],
    ['a fault in a path without its code', '  faults: [{path: mha, fault: split-merge-base-2}]', 'invalid-value', 9, 'axes.faults'],
  ])('%s', (_what, axes, code, line, field) => {
    const e = parseError(matrix(axes));
    expect(e.code).toBe(code);
    expect(e.where.line).toBe(line);
    expect(e.where.field).toBe(field);
  });

  it('a bad base field is reported in the base', () => {
    const e = parseError(matrix('  seed: [1]').replace('reference: off', 'reference: maybe'));
    expect([e.code, e.where.line, e.where.field]).toEqual(['invalid-value', 7, 'reference']);
  });

  it('a chunk axis without a prompt length', () => {
    const e = parseError(
      'format: mla-diff/sweep\nversion: 1\nname: m\nbase:\n  model: {preset: tiny}\n' +
        '  requests: [{name: r, steps: [{prefill: 4}]}]\naxes:\n  chunk: [2]',
    );
    expect([e.code, e.where.line, e.where.field]).toEqual(['invalid-value', 8, 'axes.chunk']);
  });

  it.each([
    ['no base', 'format: mla-diff/sweep\nversion: 1\nname: m\naxes: {seed: [1]}', 'invalid-value'],
    ['the wrong format', 'format: mla-diff/run\nversion: 1\nname: m\nbase: {model: {preset: tiny}}', 'invalid-value'],
    ['YAML syntax', 'format: mla-diff/sweep\nversion: [1\n', 'yaml-syntax'],
    ['not a mapping', '- 1\n- 2\n', 'invalid-type'],
  ])('%s', (_what, text, code) => {
    expect(parseError(text).code).toBe(code);
  });

  it('a missing matrix file or base_file', () => {
    expect(failure(() => loadMatrix('/nonexistent/m.yaml')).code).toBe('file-not-found');
    const dir = mkdtempSync(join(tmpdir(), 'mla-sweep-'));
    try {
      writeFileSync(join(dir, 'm.yaml'), 'format: mla-diff/sweep\nversion: 1\nname: f\nbase_file: gone.yaml\n');
      expect(failure(() => loadMatrix(join(dir, 'm.yaml'))).code).toBe('file-not-found');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the example matrices', () => {
  it.each(['tiny-faults.yaml'])('scenarios/sweeps/%s loads and every point is valid', (f) => {
    const m = loadMatrix(join(__dirname, '..', '..', '..', 'scenarios', 'sweeps', f));
    expect(m.points.length).toBeGreaterThan(1);
    expect(m.points.every((p) => scenarioOf(m, p.index).expect !== undefined)).toBe(true);
  });
});
