#!/usr/bin/env node
// A third-party MLA layer for mla-diff's external protocol v1 (docs/external-backends.md), plain
// JavaScript, no dependencies, written apart from examples/backends/node-mla.mjs: the latent-absorbed
// (MQA) math: W_UK folded into the query (ql_nope, mqa_q), one attention over the request's latent rows
// [kv_c_normed | k_pe] with split-KV softmax, W_UV applied after (attn_out_latent → attn_out_heads).
// One code path for prefill chunks, decodes and prefix-cache hits; lse written "t h" (Triton's layout).
//
//   node mla-mutant.mjs [--mutant NAME] [--precision float64|float32] [--splits K]
//
// --mutant     plant one bug of mutants.mjs (none: the layer agrees with mla-diff at float64 rounding)
// --precision  float64 arithmetic; float32 stores every intermediate rounded to float32 (default float64)
// --splits     KV splits of the attention (default 4)
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { latentAttention } from './attention.mjs';
import { absorb, columns, perHead, positionStep, project, rmsRows, ropeTables, rotate } from './layer.mjs';
import { MUTANTS } from './mutants.mjs';
import { openSafetensors, saveSafetensors } from './safetensors.mjs';

const started = performance.now();
const { values: flags } = parseArgs({
  options: { mutant: { type: 'string' }, precision: { type: 'string', default: 'float64' }, splits: { type: 'string', default: '4' } },
});
const mutant = flags.mutant ?? null;
if (mutant !== null && !MUTANTS[mutant]) throw new Error(`--mutant: one of ${Object.keys(MUTANTS).join(', ')}; not ${mutant}`);
if (!['float64', 'float32'].includes(flags.precision)) throw new Error(`--precision float64|float32, not ${flags.precision}`);
const splits = Number(flags.splits);
if (!(Number.isInteger(splits) && splits > 0)) throw new Error(`--splits: a positive integer, not ${flags.splits}`);
const alloc = flags.precision === 'float64' ? (n) => new Float64Array(n) : (n) => new Float32Array(n);
const is = (name) => mutant === name;

const request = JSON.parse(readFileSync(process.env.MLA_DIFF_REQUEST, 'utf8'));
if (request.format !== 'mla-diff/external-request' || request.version !== 1) throw new Error('mla-mutant: a version 1 request only');
const exchange = process.env.MLA_DIFF_DIR;
const cfg = request.config;
const [H, N, Lq, L] = ['hidden_size', 'num_attention_heads', 'q_lora_rank', 'kv_lora_rank'].map((k) => cfg[k]);
const [P, R, V] = [cfg.qk_nope_head_dim, cfg.qk_rope_head_dim, cfg.v_head_dim];
const [D, C, eps, style, scale] = [P + R, L + R, cfg.rms_norm_eps, request.rope.style, request.softmax_scale];
const weight = openSafetensors(join(exchange, request.weights));
const w = (name) => weight(`${name}.weight`).values;
const LAYER = ['input_layernorm', 'q_a_proj', 'q_a_layernorm', 'q_b_proj', 'kv_a_proj_with_mqa', 'kv_a_layernorm', 'o_proj'];
const [inNorm, qaProj, qaNorm, qbProj, kvaProj, kvaNorm, oProj] = LAYER.map(w);
const { W_UK_T, W_UV } = absorb(alloc, w('kv_b_proj'), N, P, V, L, is('w-uv-neighbour-head') ? (h) => (h + 1) % N : undefined);
const input = openSafetensors(join(exchange, request.inputs));

const wanted = new Set(request.stages);
const stages = {};
const emit = (key, stage, shape, values) => {
  if (wanted.has(stage)) stages[`${key}/${stage}`] = { shape, values };
};
const caches = new Map(); // request → { rows: [S, C] latent rows as stored, cos, sin: the RoPE rows each was rotated with }
const scalars = {};
let weightsWritten = false;

for (const piece of request.pieces) {
  const key = `${piece.step}/${piece.request}`;
  const T = piece.count;
  // RoPE tables [T, R/2]: our own in float64 for plain RoPE, mla-diff's float32 ones under rope_scaling (YaRN)
  const { cos, sin } = cfg.rope_scaling
    ? { cos: input(`${key}/rope_cos`).values, sin: input(`${key}/rope_sin`).values }
    : ropeTables(piece.positions, cfg.rope_theta, R, request.rope.mscale);
  const hidden_in = rmsRows(alloc, input(`${key}/embeddings`).values, T, H, H, inNorm, eps); // [T, H]
  const kv_lora = project(alloc, hidden_in, T, H, kvaProj, C); // [T, L+R]
  const kv_c_normed = rmsRows(alloc, kv_lora, T, C, L, kvaNorm, eps, { over: is('kv-norm-576') ? C : L }); // [T, L]
  const k_pe_raw = columns(alloc, kv_lora, T, C, L, R); // [T, R]
  const k_pe = is('k-pe-unrotated') ? k_pe_raw.slice() : rotate(k_pe_raw.slice(), T, 1, R, cos, sin, style); // [T, R]
  const cache = caches.get(piece.request) ?? { rows: [], cos: [], sin: [] };
  caches.set(piece.request, cache);
  if (cache.rows.length !== piece.start) throw new Error(`${key}: ${cache.rows.length} rows cached, the piece starts at ${piece.start}`);
  for (let t = 0; t < T; t++) {
    const row = alloc(C); // [L+R]
    row.set(kv_c_normed.subarray(t * L, t * L + L));
    row.set(k_pe.subarray(t * R, t * R + R), L);
    cache.rows.push(row);
    cache.cos.push(cos.subarray((t * R) / 2, ((t + 1) * R) / 2));
    cache.sin.push(sin.subarray((t * R) / 2, ((t + 1) * R) / 2));
  }
  const common = [
    ['hidden_in', [T, H], hidden_in],
    ['kv_lora', [T, C], kv_lora],
    ['kv_c', [T, L], columns(alloc, kv_lora, T, C, 0, L)],
    ['k_pe_raw', [T, R], k_pe_raw],
    ['kv_c_normed', [T, L], kv_c_normed],
    ['k_pe', [T, R], k_pe],
  ];
  if (piece.kind === 'cached') continue; // a prefix-cache hit: its latent rows are stored, nothing attends
  const S = piece.start + T;
  const q_c_raw = project(alloc, hidden_in, T, H, qaProj, Lq); // [T, Lq]
  const q_c = rmsRows(alloc, q_c_raw, T, Lq, Lq, qaNorm, eps, { power: is('q-norm-weight-twice') ? 2 : 1 }); // [T, Lq]
  const q_full = project(alloc, q_c, T, Lq, qbProj, N * D); // [T, N, D]
  const q_nope = columns(alloc, q_full, T * N, D, 0, P); // [T, N, P]
  const q_pe_raw = columns(alloc, q_full, T * N, D, P, R); // [T, N, R]
  const shift = is('q-pe-position-shift') ? positionStep(cfg.rope_theta, R) : null;
  const q_pe = rotate(q_pe_raw.slice(), T, N, R, cos, sin, style, shift); // [T, N, R]
  const ql_nope = perHead(alloc, q_nope, T, N, P, W_UK_T, L); // [T, N, L]
  const mqa_q = alloc(T * N * C); // [T, N, L+R]
  const q = alloc(T * N * D); // [T, N, D]
  for (let i = 0; i < T * N; i++) {
    mqa_q.set(ql_nope.subarray(i * L, (i + 1) * L), i * C);
    mqa_q.set(q_pe.subarray(i * R, (i + 1) * R), i * C + L);
    q.set(q_nope.subarray(i * P, (i + 1) * P), i * D);
    q.set(q_pe.subarray(i * R, (i + 1) * R), i * D + P);
  }
  // the latent rows as the kernel reads them [S, L+R]
  const rows = alloc(S * C);
  cache.rows.slice(0, S).forEach((row, s) => rows.set(row, s * C));
  if (is('k-pe-rerotated-context'))
    for (let s = 0; s < piece.start; s++) rotate(rows.subarray(s * C + L, (s + 1) * C), 1, 1, R, cache.cos[s], cache.sin[s], style);
  if (is('decode-before-write') && piece.kind === 'decode') rows.fill(0, piece.start * C); // its own slot not written yet
  const shifted = is('causal-off-by-one') ? 1 : 0;
  const last = (t) => Math.min(S - 1, piece.start + t + shifted);
  const plants = {
    scaleTwice: is('scale-twice'),
    emptySplitNaN: is('empty-split-nan'),
    heads: is('half-heads') ? Math.max(1, Math.floor(N / 2)) : N,
  };
  const att = latentAttention(alloc, mqa_q, rows, { T, N, S, L, C, scale, splits, last, plants });
  const attn_out_heads = perHead(alloc, att.latent, T, N, L, W_UV, V, is('latent-mean') ? 1 / L : 1); // [T, N, V]
  const o_proj_out = project(alloc, attn_out_heads, T, N * V, oProj, H); // [T, H]
  if (!weightsWritten) {
    emit(key, 'W_UK_T', [N, P, L], W_UK_T);
    emit(key, 'W_UV', [N, L, V], W_UV);
    weightsWritten = true;
  }
  const kvCacheAfterWrite = is('decode-before-write') ? Float64Array.from(cache.rows.flatMap((r) => [...r])) : rows;
  for (const [stage, shape, values] of [
    ...common,
    ['q_c_raw', [T, Lq], q_c_raw],
    ['q_c', [T, Lq], q_c],
    ['q_full_prerope', [T, N, D], q_full],
    ['q_nope', [T, N, P], q_nope],
    ['q_pe_raw', [T, N, R], q_pe_raw],
    ['q_pe', [T, N, R], q_pe],
    ['q', [T, N, D], q],
    ['kv_cache', [S, C], kvCacheAfterWrite],
    ['ql_nope', [T, N, L], ql_nope],
    ['mqa_q', [T, N, C], mqa_q],
    ['logits', [N, T, S], att.logits],
    ['attn_probs', [N, T, S], att.probs],
    ['lse', [T, N], att.lse],
    ['attn_out_latent', [T, N, L], att.latent],
    ['attn_out_heads', [T, N, V], attn_out_heads],
    ['attn_out', [T, N * V], attn_out_heads],
    ['o_proj_out', [T, H], o_proj_out],
  ])
    emit(key, stage, shape, values);
  scalars[key] = {
    softmax_scale: scale,
    lse_base: 'e',
    rope_style: style,
    causal: true,
    num_tokens: T,
    num_context_tokens: piece.start,
    has_context: piece.start > 0,
  };
}

const out = process.env.MLA_DIFF_OUT;
saveSafetensors(join(out, 'stages.safetensors'), stages);
const response = {
  format: 'mla-diff/external-response',
  version: 1,
  name: `mla-mutant${mutant ? `+${mutant}` : ''}`,
  precision: flags.precision,
  device: `cpu (Node.js ${process.version}, plain JavaScript)`,
  layouts: { lse: 't h' },
  stats: [],
  scalars,
  seconds: (performance.now() - started) / 1000,
};
writeFileSync(join(out, 'response.json'), `${JSON.stringify(response, null, 2)}\n`);
