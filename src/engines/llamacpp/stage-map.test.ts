import type { MlaConfig } from '../../core/model/config';
import { preset } from '../../core/model/presets';
import type { CapturedNode } from './job';
import { mapStages, opParamFloat, softmaxScaleOf } from './stage-map';

const c: MlaConfig = { ...preset('tiny'), num_attention_heads: 2 };
const [N, L, R, V] = [2, c.kv_lora_rank, c.qk_rope_head_dim, c.v_head_dim];
const bits = (x: number) => new Int32Array(Float32Array.of(x).buffer)[0]!;
let offset = 0;
const node = (name: string, op: string, ne: number[], src: string[] = [], opParams: number[] = []): CapturedNode => {
  const count = ne.reduce((a, b) => a * b, 1);
  const n = { piece: 0, name, op, type: 'f32', ne: [...ne, 1, 1, 1].slice(0, 4), opParams, src, offset, count };
  offset += count;
  return n;
};
/** Each node's values: its element index plus a per-node base, so every element is recognisable. */
const values = (n: CapturedNode) => Float32Array.from({ length: n.count! }, (_, i) => n.offset! + i);

describe('mapStages (absorbed graph)', () => {
  const T = 3;
  const width = 256;
  const nodes = [
    node('kq-0', 'MUL_MAT', [width, T, N]),
    node('kq_soft_max-0', 'SOFT_MAX', [width, T, N], ['kq-0'], [bits(0.5)]),
    node('cache_k_l0 (view)', 'VIEW', [L + R, 1, width], ['cache_k_l0']),
    node('q_nope_absorbed-0', 'MUL_MAT', [L, T, N]),
    node('kqv_mla-0', 'MUL_MAT', [V, T, N]),
  ];
  const cells = [4, 5, 9, 10, 11];
  const out = new Map(mapStages(c, 'absorbed', nodes, { cells, tokens: T }, values).map((s) => [s.stage, s]));

  it('reads the softmax scale from SOFT_MAX op_params[0]', () => {
    expect(softmaxScaleOf(nodes)).toBe(0.5);
    expect(opParamFloat(bits(0.1))).toBeCloseTo(0.1, 7);
  });
  it('slices kq to the request cells, scaled: logits [N, T, S]', () => {
    const lg = out.get('logits')!;
    expect(lg.shape).toEqual([N, T, cells.length]);
    const base = nodes[0]!.offset!;
    expect(lg.data[0]).toBe((base + 4) * 0.5); // head 0, token 0, key 0 = cell 4
    expect(lg.data[cells.length]).toBe((base + width + 4) * 0.5); // token 1
    expect(lg.data[T * cells.length + 2]).toBe((base + T * width + 9) * 0.5); // head 1, token 0, cell 9
  });
  it('gathers the K cache rows of the request cells: kv_cache [S, L+R]', () => {
    const kv = out.get('kv_cache')!;
    expect(kv.shape).toEqual([cells.length, L + R]);
    expect(kv.data[L + R]).toBe(nodes[2]!.offset! + 5 * (L + R)); // row 1 = cell 5
  });
  it('transposes head-major products to token-major: ql_nope, attn_out_heads', () => {
    const q = out.get('ql_nope')!;
    expect(q.shape).toEqual([T, N, L]);
    // canonical [t=0, h=1, l=0] was ggml [l=0, t=0, h=1] = element T·L
    expect(q.data[L]).toBe(nodes[3]!.offset! + T * L);
    expect(out.get('attn_out_heads')!.data[V]).toBe(nodes[4]!.offset! + T * V);
  });
  it('skips stages whose node was not captured', () => {
    expect(out.has('hidden_in')).toBe(false);
  });
});
