import { isMlaDiffError } from '../../errors';
import { PRESETS } from '../../core/model/presets';
import { recordKey } from '../../core/probes/recorder';
import type { ImportContext, NamedStats, NamedTensor } from './records';
import { importRecords } from './records';

// tiny: N 4, P 16, R 8, V 12, L 32. Request a prefills 3 tokens; b finds 4 in the prefix cache, then prefills 2 (S = 6).
const c = PRESETS.tiny;
const [N, P, L, R] = [c.num_attention_heads, c.qk_nope_head_dim, c.kv_lora_rank, c.qk_rope_head_dim];
const ctx = (more: Partial<ImportContext> = {}): ImportContext => ({
  config: c,
  kvSplits: 1,
  file: 'stages.safetensors',
  layouts: {},
  names: {},
  pieces: [
    { step: 0, request: 'a', kind: 'prefill', start: 0, count: 3, chunks: [] },
    { step: 0, request: 'b', kind: 'cached', start: 0, count: 4, chunks: [] },
    { step: 1, request: 'b', kind: 'prefill', start: 4, count: 2, chunks: [[0, 4]] },
  ],
  ...more,
});
const tensor = (name: string, shape: number[], at: (i: number) => number = (i) => Math.sin(i)): NamedTensor => ({
  name,
  shape,
  data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => at(i)),
});
const codeOf = (f: () => unknown): string | undefined => {
  try {
    f();
  } catch (e) {
    if (isMlaDiffError(e)) return e.code;
    throw e;
  }
  return undefined;
};

/** Logits [N, T, S] of piece 1/b (start 4, T 2, S 6) with `fill` at the masked key (query 0, key 5) of every head. */
function logits(fill: number | ((i: number) => number)): NamedTensor {
  const t = tensor('1/b/logits', [N, 2, 6], (i) => 3 * Math.cos(i));
  for (let h = 0; h < N; h++) {
    const i = (h * 2 + 0) * 6 + 5;
    t.data[i] = typeof fill === 'number' ? fill : fill(i);
  }
  return t;
}

describe('masked logits', () => {
  it.each([
    ['−inf', -Infinity],
    ['−1e30', -1e30],
    ['torch.finfo(float32).min', -3.4028234663852886e38],
    ['−10000 added to the logit', -10000 + 1.5],
  ])('written with %s at the masked keys: detected, zeroed, compared at the visible keys', (_what, fill) => {
    const r = importRecords(ctx(), [logits(fill)], []);
    const rec = r.trace.stages[0]!;
    expect(rec.masked).toBe(true);
    expect(rec.stats.infCount).toBe(0);
    const cap = r.captured.get(recordKey(rec))!;
    expect(cap.where === 'host' && cap.masked).toBe(true);
    expect(cap.where === 'host' && cap.data[5]).toBe(0);
  });

  it('pre-mask logits (the stage as defined) are left as they are', () => {
    const r = importRecords(ctx(), [logits((i) => 3 * Math.cos(i))], []);
    expect(r.trace.stages[0]!.masked).toBeUndefined();
  });

  it('a mask with a hole (one masked key holds a logit) is not a mask: compared as written', () => {
    const t = logits(-Infinity);
    t.data[(1 * 2 + 0) * 6 + 5] = 2;
    expect(importRecords(ctx(), [t], []).trace.stages[0]!.masked).toBeUndefined();
  });

  it('declared in response.json ("masked": ["logits"]): whatever the masked keys hold', () => {
    const r = importRecords(ctx({ masked: ['logits'] }), [logits(7)], []);
    expect(r.trace.stages[0]!.masked).toBe(true);
  });

  it('a decode piece has no masked key: nothing to detect', () => {
    const one = ctx({ pieces: [{ step: 0, request: 'a', kind: 'decode', start: 3, count: 1, chunks: [] }] });
    expect(importRecords(one, [tensor('0/a/logits', [N, 1, 4])], []).trace.stages[0]!.masked).toBeUndefined();
  });
});

describe('key counts of a piece with context (1/b: start 4, T 2, S 6)', () => {
  it.each([
    ['k_nope with all S keys', tensor('1/b/k_nope', [6, N, P]), 'external-key-count'],
    ['v with all S keys', tensor('1/b/v', [6, N, c.v_head_dim]), 'external-key-count'],
    ['kv_nope with all S keys', tensor('1/b/kv_nope', [6, N, P + c.v_head_dim]), 'external-key-count'],
    ['kv_cache with only its T tokens', tensor('1/b/kv_cache', [2, L + R]), 'external-key-count'],
    ['logits with S queries', tensor('1/b/logits', [N, 6, 6]), 'external-key-count'],
    ['k_nope with another count', tensor('1/b/k_nope', [5, N, P]), 'external-bad-output'],
  ])('%s: %s', (_what, t, code) => expect(codeOf(() => importRecords(ctx(), [t], []))).toBe(code));

  it('a statistic of k_nope with S rows: external-key-count', () => {
    const s: NamedStats = { step: 1, request: 'b', stage: 'k_nope', norm: 1, shape: [6, N, P] };
    expect(codeOf(() => importRecords(ctx(), [], [s]))).toBe('external-key-count');
  });
});

describe('kind cached', () => {
  it('a record for a cached piece is refused: write nothing for it', () =>
    expect(codeOf(() => importRecords(ctx(), [tensor('0/b/kv_c_normed', [4, L])], []))).toBe('external-bad-output'));
});

describe('weight stages, one per run', () => {
  const W_UV = (name: string, at?: (i: number) => number) => tensor(name, [N, L, c.v_head_dim], at);

  it('named for a later piece: filed at the first attending piece, where every path records them', () => {
    const r = importRecords(ctx(), [W_UV('1/b/W_UV')], []);
    expect(r.trace.stages.map((x) => [x.step, x.request, x.stage])).toEqual([[0, 'a', 'W_UV']]);
  });

  it('the same values for every piece: one record', () => {
    const r = importRecords(ctx(), [W_UV('0/a/W_UV'), W_UV('1/b/W_UV')], []);
    expect(r.trace.stages).toHaveLength(1);
    expect(r.captured.size).toBe(1);
  });

  it('other values for another piece: refused (external-bad-output)', () => {
    const drifted = W_UV('1/b/W_UV', (i) => Math.sin(i) + (i === 9 ? 1e-3 : 0));
    expect(codeOf(() => importRecords(ctx(), [W_UV('0/a/W_UV'), drifted], []))).toBe('external-bad-output');
  });

  it('an activation given twice is still refused', () => {
    const twice = () =>
      importRecords(ctx({ names: { again: '0/a/q_nope' } }), [tensor('0/a/q_nope', [3, N, P]), tensor('again', [3, N, P])], []);
    expect(codeOf(twice)).toBe('external-bad-output');
    expect(codeOf(() => importRecords(ctx({ names: { again: '0/a/q_nope' } }), [tensor('again', [3, N, P])], []))).toBeUndefined();
  });
});
