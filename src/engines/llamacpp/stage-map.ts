import type { MlaConfig } from '../../core/model/config';
import type { StageName } from '../../trace/stages';
import type { CapturedNode } from './job';

/**
 * llama.cpp's nodes of one decode → mla-diff stages in their canonical layouts (docs/llama-cpp.md
 * has the table). A node is found by (name, op, a source's name): names repeat (`q-0` is four nodes,
 * `norm-0` three). ggml's ne is reversed PyTorch order: ne [L, T, N] is [N, T, L]. The K cache and
 * kq span every cell of the cache (padded to 256): the request's cells are gathered, in position order.
 */
export interface StageTensor {
  stage: StageName;
  data: Float32Array;
  /** Canonical shape (src/trace/stages.ts). */
  shape: number[];
}

/** The graph llama.cpp builds: absorbed MQA (split attn_k_b/attn_v_b) or the legacy MHA (merged attn_kv_b). */
export type EngineGraph = 'absorbed' | 'legacy';

export interface PieceCells {
  /** Cache cells of the request's keys 0 … S-1 after this decode (S = start + T). */
  cells: readonly number[];
  tokens: number;
}

type Values = (n: CapturedNode) => Float32Array;
const W = (t: string) => `blk.0.${t}.weight`;

/** [A, B, C] → [B, A, C]. */
function swap01(x: Float32Array, a: number, b: number, c: number): Float32Array {
  const out = new Float32Array(x.length);
  for (let i = 0; i < a; i++) for (let j = 0; j < b; j++) out.set(x.subarray((i * b + j) * c, (i * b + j + 1) * c), (j * a + i) * c);
  return out;
}

/** Columns `cols` of every row of [rows, width]. */
function pickColumns(x: Float32Array, rows: number, width: number, cols: readonly number[], scale = 1): Float32Array {
  const out = new Float32Array(rows * cols.length);
  for (let r = 0; r < rows; r++) for (const [j, c] of cols.entries()) out[r * cols.length + j] = x[r * width + c]! * scale;
  return out;
}

/** The f32 value of an op parameter stored as int32 bits. */
export const opParamFloat = (bits: number): number => new Float32Array(Int32Array.of(bits).buffer)[0]!;

/** The softmax scale llama.cpp applied: SOFT_MAX's op_params[0], or FLASH_ATTN_EXT's. */
export function softmaxScaleOf(nodes: readonly CapturedNode[]): number | undefined {
  const n = nodes.find((x) => x.op === 'SOFT_MAX' && x.name === 'kq_soft_max-0') ?? nodes.find((x) => x.op === 'FLASH_ATTN_EXT');
  return n ? opParamFloat(n.opParams[0]!) : undefined;
}

/** Every stage this decode's nodes give, canonical. */
export function mapStages(c: MlaConfig, graph: EngineGraph, nodes: readonly CapturedNode[], at: PieceCells, values: Values): StageTensor[] {
  const N = c.num_attention_heads;
  const [P, R, L, V] = [c.qk_nope_head_dim, c.qk_rope_head_dim, c.kv_lora_rank, c.v_head_dim];
  const D = P + R;
  const T = at.tokens;
  const S = at.cells.length;
  const find = (f: (n: CapturedNode) => boolean) => nodes.find((n) => f(n) && n.count !== undefined);
  const named = (name: string, op: string) => find((n) => n.name === name && n.op === op);
  const by = (op: string, src: string) => find((n) => n.op === op && n.src.includes(src));
  const out: StageTensor[] = [];
  const put = (stage: StageName, n: CapturedNode | undefined, shape: number[], f?: (x: Float32Array) => Float32Array) => {
    if (!n) return;
    const x = values(n);
    out.push({ stage, data: f ? f(x) : x, shape });
  };
  put('hidden_in', named('attn_norm-0', 'MUL'), [T, c.hidden_size]);
  put('q_c_raw', by('MUL_MAT', W('attn_q_a')), [T, c.q_lora_rank]);
  put('q_c', by('MUL', W('attn_q_a_norm')), [T, c.q_lora_rank]);
  put('q_full_prerope', by('MUL_MAT', W('attn_q_b')), [T, N, D]);
  put('kv_lora', named('kv_cmpr_pe-0', 'MUL_MAT'), [T, L + R]);
  put('kv_c', named('kv_cmpr-0', 'VIEW'), [T, L]);
  put('kv_c_normed', by('MUL', W('attn_kv_a_norm')), [T, L]);
  put('k_pe_raw', named('k_pe-0', 'VIEW'), [T, R]);
  put('k_pe', named('k_pe-0', 'ROPE'), [T, R]);
  const scale = softmaxScaleOf(nodes) ?? NaN;
  const kq = named('kq-0', 'MUL_MAT');
  const width = kq?.ne[0] ?? 0;
  put('logits', kq, [N, T, S], (x) => pickColumns(x, N * T, width, at.cells, scale));
  put('attn_probs', named('kq_soft_max-0', 'SOFT_MAX'), [N, T, S], (x) => pickColumns(x, N * T, width, at.cells));
  put('attn_out', named('kqv_out-0', 'CONT') ?? named('kqv_out-0', 'RESHAPE'), [T, N * V]);
  put('o_proj_out', by('MUL_MAT', 'kqv_out-0'), [T, c.hidden_size]);
  if (graph === 'absorbed') {
    put('q_nope', named('q_nope-0', 'VIEW'), [T, N, P]);
    put('q_pe_raw', named('q_pe-0', 'VIEW'), [T, N, R]);
    put('q_pe', named('q_pe-0', 'ROPE'), [T, N, R]);
    put('ql_nope', named('q_nope_absorbed-0', 'MUL_MAT'), [T, N, L], (x) => swap01(x, N, T, L));
    put('mqa_q', named('Qcur-0', 'CONCAT'), [T, N, L + R]);
    const cache = find((n) => n.name === 'cache_k_l0 (view)' && n.op === 'VIEW' && n.ne[0] === L + R && n.ne[1] === 1);
    put('kv_cache', cache, [S, L + R], (x) => pickRows(x, L + R, at.cells));
    put('attn_out_latent', named('kqv-0', 'MUL_MAT'), [T, N, L], (x) => swap01(x, N, T, L));
    put('attn_out_heads', named('kqv_mla-0', 'MUL_MAT') ?? named('fattn_mla-0', 'MUL_MAT'), [T, N, V], (x) => swap01(x, N, T, V));
  } else {
    const q = named('Qcur-0', 'ROPE');
    put('q', q, [T, N, D]);
    put('q_nope', q, [T, N, P], (x) => pickColumns(x, T * N, D, range(0, P)));
    put('q_pe', q, [T, N, R], (x) => pickColumns(x, T * N, D, range(P, D)));
    put('kv_nope', named('kv-0', 'MUL_MAT'), [T, N, P + V]);
    put('k_nope', named('k_nope_view-0', 'VIEW'), [T, N, P]);
    put('v', named('Vcur_cont-0', 'CONT'), [T, N, V]);
    put('k', named('Kcur-0', 'CONCAT'), [T, N, D]);
    put('attn_out_heads', named('kqv-0', 'MUL_MAT'), [T, N, V], (x) => swap01(x, N, T, V));
  }
  return out;
}

const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);

function pickRows(x: Float32Array, width: number, rows: readonly number[]): Float32Array {
  const out = new Float32Array(rows.length * width);
  for (const [i, r] of rows.entries()) out.set(x.subarray(r * width, (r + 1) * width), i * width);
  return out;
}
