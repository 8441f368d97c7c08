/** parseScenario on valid input: model overrides reaching the config, cases (heads:, tp:) and planted faults. */
import { preset } from '../../core/model/presets';
import { parseScenario } from './load';

/** A valid tiny scenario; `extra` is appended as more top-level YAML. */
const base = (extra = '') => `name: t\nmodel:\n  preset: tiny\nprompt:\n  ids: [1, 2, 3]\n${extra}`;

describe('parseScenario: model overrides, cases and faults', () => {
  it.each([
    [
      { size: 2, rank: 0 },
      { start: 0, count: 2 },
    ],
    [
      { size: 2, rank: 1 },
      { start: 2, count: 2 },
    ],
    [
      { size: 4, rank: 3 },
      { start: 3, count: 1 },
    ],
    [
      { size: 1, rank: 0 },
      { start: 0, count: 4 },
    ],
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
    const s = parseScenario(
      [
        'name: t',
        'model:',
        '  preset: tiny',
        '  rope_scaling:',
        '    type: yarn',
        '    factor: 4',
        '    original_max_position_embeddings: 1024',
        'prompt: {ids: [1]}',
        '',
      ].join('\n'),
    );
    expect(s.config.rope_scaling).toEqual({
      type: 'yarn',
      factor: 4,
      mscale: 1,
      mscale_all_dim: 1,
      original_max_position_embeddings: 1024,
      beta_fast: 32,
      beta_slow: 1,
    });
  });

  it('an overridden head count changes the default case', () => {
    const s = parseScenario('name: t\nmodel: {preset: tiny, num_attention_heads: 6}\nprompt: {ids: [1]}\n');
    expect(s.cases[0]!.heads).toEqual({ start: 0, count: 6 });
  });

  it('faults land in faults.mha / faults.mqa', () => {
    const s = parseScenario(
      base(
        [
          'faults:',
          '  - {path: mqa, fault: softmax-scale-latent}',
          '  - {path: mha, fault: rope-neox}',
          '  - {path: mqa, fault: kv-norm-skipped}',
          '',
        ].join('\n'),
      ),
    );
    expect([...s.faults.mha]).toEqual(['rope-neox']);
    expect([...s.faults.mqa].sort()).toEqual(['kv-norm-skipped', 'softmax-scale-latent']);
  });
});
