#!/usr/bin/env node
// An external backend for mla-diff, protocol version 1 (docs/external-backends.md), in plain
// JavaScript with no dependencies: the reconstructed-head MHA path (vLLM forward_mha, Hugging Face
// eager) of one MLA layer over mla-diff's schedule, with its own contiguous latent cache per request.
//
//   mla-diff run scenarios/external-node.yaml        # external: command: node ../examples/backends/node-mla.mjs
//   node node-mla.mjs [--precision float64|float32] [--stats stage,stage] [--fault w-uv-wrong-axis]
//
// --precision  arithmetic is float64; float32 rounds every stored intermediate (default float64)
// --stats      report these stages as norms in response.json instead of tensors (a backend that can only print norms)
// --fault w-uv-wrong-axis   a planted bug: W_UV read as kv_b_proj[h, P:, :].reshape(L, V) instead of .T
// --rope-angles float32      compute its own RoPE tables from the positions as engines do (vLLM's cos_sin_cache,
//                            transformers: inv_freq, YaRN's blend and position·inv_freq rounded to fp32) instead of
//                            reading rope_cos / rope_sin
//
// Protocol edges (docs/external-backends.md; test/e2e/external-edges.test.ts), each off by default:
// --logits pre-mask|<fill>   write logits [N,T,S] over every key: as defined (before the mask), or after masked_fill with
//                            <fill> (-inf, -1e30, finfo: torch.finfo(float32).min); --declare-masked says so in response.json
// --mislabel-lse             write lse as [N,T] but declare "t h" (passes the shape check only when T = N)
// --key-rows all             write k_nope and v with all S keys of the request instead of the piece's own T tokens
// --write-cached             write kv_c_normed and k_pe for pieces of kind cached too
// --weights same|drift       write W_UK_T and W_UV for every attending piece: the same values, or drifting by 1e-3 per piece
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? dflt : args[i + 1];
};
const precision = opt('precision', 'float64');
const statsOnly = new Set((opt('stats', '') || '').split(',').filter(Boolean));
const fault = opt('fault', null);
const logitsMode = opt('logits', null);
const declareMasked = args.includes('--declare-masked');
const mislabelLse = args.includes('--mislabel-lse');
const keyRows = opt('key-rows', 'own');
const writeCached = args.includes('--write-cached');
const weightsMode = opt('weights', null);
const ropeAngles = opt('rope-angles', null);
if (ropeAngles !== null && ropeAngles !== 'float32') throw new Error(`--rope-angles float32, not ${ropeAngles}`);
const FILLS = { '-inf': -Infinity, '-1e30': -1e30, finfo: -3.4028234663852886e38 };
if (logitsMode !== null && logitsMode !== 'pre-mask' && !(logitsMode in FILLS)) throw new Error(`--logits pre-mask|-inf|-1e30|finfo`);
if (!['own', 'all'].includes(keyRows)) throw new Error(`--key-rows own|all, not ${keyRows}`);
if (weightsMode !== null && !['same', 'drift'].includes(weightsMode)) throw new Error(`--weights same|drift, not ${weightsMode}`);
if (!['float64', 'float32'].includes(precision)) throw new Error(`--precision float64|float32, not ${precision}`);
if (fault !== null && fault !== 'w-uv-wrong-axis') throw new Error(`unknown --fault ${fault}`);
const Arr = precision === 'float64' ? Float64Array : Float32Array;
const t0 = performance.now();

// --- safetensors, the few lines needed: read F32/I32 tensors, write F32/F64 ---
function readSafetensors(file) {
  const buf = readFileSync(file);
  const n = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  const get = (name) => {
    const h = header[name];
    if (!h) throw new Error(`${file}: no tensor ${name}`);
    const [a, b] = h.data_offsets;
    const bytes = buf.subarray(8 + n + a, 8 + n + b);
    const copy = new Uint8Array(bytes).buffer; // aligned
    return { shape: h.shape, data: h.dtype === 'I32' ? new Int32Array(copy) : new Float32Array(copy) };
  };
  return get;
}
function writeSafetensors(file, tensors) {
  let at = 0;
  const header = {};
  const parts = [];
  for (const [name, { shape, data }] of Object.entries(tensors)) {
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    header[name] = { dtype: data instanceof Float64Array ? 'F64' : 'F32', shape, data_offsets: [at, at + bytes.length] };
    parts.push(bytes);
    at += bytes.length;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  writeFileSync(file, Buffer.concat([len, Buffer.from(json), ...parts]));
}

// --- the math, row-major ---
/** y[t, o] = Σ_k x[t, k]·W[o, k]: x [T, K], W [O, K] (PyTorch's [out, in]) → [T, O]. */
function linear(x, T, K, W, O) {
  const y = new Arr(T * O);
  for (let t = 0; t < T; t++)
    for (let o = 0; o < O; o++) {
      let acc = 0;
      for (let k = 0; k < K; k++) acc += x[t * K + k] * W[o * K + k];
      y[t * O + o] = acc;
    }
  return y;
}
/** RMSNorm of rows of width n: x / sqrt(mean(x²) + eps) · w. */
function rmsNorm(x, n, w, eps) {
  const y = new Arr(x.length);
  for (let r = 0; r < x.length / n; r++) {
    let ss = 0;
    for (let i = 0; i < n; i++) ss += x[r * n + i] ** 2;
    const inv = 1 / Math.sqrt(ss / n + eps);
    for (let i = 0; i < n; i++) y[r * n + i] = x[r * n + i] * inv * w[i];
  }
  return y;
}
/** Columns [c0, c0 + w) of rows of width n. */
function cols(x, n, c0, w) {
  const rows = x.length / n;
  const y = new Arr(rows * w);
  for (let r = 0; r < rows; r++) for (let i = 0; i < w; i++) y[r * w + i] = x[r * n + c0 + i];
  return y;
}
/** RoPE on x [T, G, R] with the request's cos/sin [T, R/2]; gptj pairs (2i, 2i+1), neox (i, i+R/2). */
function rope(x, T, G, R, cos, sin, style) {
  const y = new Arr(x.length);
  const half = R / 2;
  for (let t = 0; t < T; t++)
    for (let g = 0; g < G; g++)
      for (let i = 0; i < half; i++) {
        const [ia, ib] = style === 'gptj' ? [2 * i, 2 * i + 1] : [i, i + half];
        const o = (t * G + g) * R;
        const [a, b, c, s] = [x[o + ia], x[o + ib], cos[t * half + i], sin[t * half + i]];
        y[o + ia] = a * c - b * s;
        y[o + ib] = b * c + a * s;
      }
  return y;
}

// --- the request ---
const req = JSON.parse(readFileSync(process.env.MLA_DIFF_REQUEST, 'utf8'));
if (req.format !== 'mla-diff/external-request' || req.version !== 1)
  throw new Error(`not a version 1 request: ${req.format} ${req.version}`);
const dir = process.env.MLA_DIFF_DIR;
const c = req.config;
const [H, N, Lq, L, P, R, V] = [
  c.hidden_size,
  c.num_attention_heads,
  c.q_lora_rank,
  c.kv_lora_rank,
  c.qk_nope_head_dim,
  c.qk_rope_head_dim,
  c.v_head_dim,
];
const D = P + R;
const w = readSafetensors(join(dir, req.weights));
const W = Object.fromEntries(
  ['input_layernorm', 'q_a_proj', 'q_a_layernorm', 'q_b_proj', 'kv_a_proj_with_mqa', 'kv_a_layernorm', 'kv_b_proj', 'o_proj'].map((n) => [
    n,
    w(`${n}.weight`).data,
  ]),
);
const inputs = readSafetensors(join(dir, req.inputs));

// kv_b_proj.weight [N·(P+V), L]: per head h, rows [h(P+V), h(P+V)+P) are W_UK, the next V rows W_UV ([V, L]).
// The planted fault reads the [V, L] block of W_UV as if it were stored [L, V] (a reshape where a transpose belongs).
const kvb = Float32Array.from(W.kv_b_proj);
if (fault === 'w-uv-wrong-axis') {
  for (let h = 0; h < N; h++) {
    const base = (h * (P + V) + P) * L;
    const block = W.kv_b_proj.subarray(base, base + V * L); // [V, L] as stored
    // W_UV[h][l][v] taken from flat [l·V + v]
    for (let v = 0; v < V; v++) for (let l = 0; l < L; l++) kvb[base + v * L + l] = block[l * V + v];
  }
}

const wanted = new Set(req.stages);
const tensors = {};
const stats = [];
const scalars = {};
const cache = new Map(); // request → { latent: kv_c_normed rows [S, L], kpe: k_pe rows [S, R] }
const out = (key, stage, shape, data) => {
  if (!wanted.has(stage)) return;
  if (!statsOnly.has(stage)) {
    tensors[`${key}/${stage}`] = { shape, data };
    return;
  }
  let ss = 0,
    mx = 0,
    nan = 0,
    inf = 0;
  for (const x of data) {
    if (Number.isNaN(x)) nan++;
    else if (!Number.isFinite(x)) inf++;
    else {
      ss += x * x;
      mx = Math.max(mx, Math.abs(x));
    }
  }
  const [step, request] = key.split('/');
  stats.push({ step: Number(step), request, stage, norm: Math.sqrt(ss), max_abs: mx, nan, inf, shape });
};

/** cos/sin [T, R/2] as an engine computes them in fp32 (HF _compute_yarn_parameters / vLLM _compute_inv_freq). */
function fp32Tables(positions) {
  const f = Math.fround;
  const [R, y, base] = [c.qk_rope_head_dim, c.rope_scaling, c.rope_theta];
  const half = R / 2;
  const corr = (rot, orig) => (R * Math.log(orig / (rot * 2 * Math.PI))) / (2 * Math.log(base));
  const [low, high0] = y
    ? [
        Math.max(Math.floor(corr(y.beta_fast, y.original_max_position_embeddings)), 0),
        Math.min(Math.ceil(corr(y.beta_slow, y.original_max_position_embeddings)), R - 1),
      ]
    : [0, 0];
  const high = low === high0 ? high0 + 0.001 : high0;
  const inv = Array.from({ length: half }, (_, i) => {
    const pos = f(f(base) ** f(f(2 * i) / R));
    const ext = f(1 / pos);
    if (!y) return ext;
    const mask = f(1 - Math.min(Math.max(f(f(i - low) / f(high - low)), 0), 1));
    return f(f(f(1 / f(f(y.factor) * pos)) * f(1 - mask)) + f(ext * mask));
  });
  const m = f(req.rope.mscale);
  const cos = new Float32Array(positions.length * half);
  const sin = new Float32Array(positions.length * half);
  positions.forEach((p, t) => {
    for (let i = 0; i < half; i++) {
      const a = f(p * inv[i]);
      cos[t * half + i] = f(Math.cos(a)) * m;
      sin[t * half + i] = f(Math.sin(a)) * m;
    }
  });
  return [cos, sin];
}

for (const piece of req.pieces) {
  const key = `${piece.step}/${piece.request}`;
  const T = piece.count;
  const emb = inputs(`${key}/embeddings`).data; // [T, H]
  const [cos, sin] = ropeAngles
    ? fp32Tables(inputs(`${key}/positions`).data)
    : [inputs(`${key}/rope_cos`).data, inputs(`${key}/rope_sin`).data]; // [T, R/2]
  const hidden = rmsNorm(emb, H, W.input_layernorm, c.rms_norm_eps); // [T, H]
  const kv_lora = linear(hidden, T, H, W.kv_a_proj_with_mqa, L + R); // [T, L+R]
  const kv_c_normed = rmsNorm(cols(kv_lora, L + R, 0, L), L, W.kv_a_layernorm, c.rms_norm_eps); // [T, L]
  const k_pe = rope(cols(kv_lora, L + R, L, R), T, 1, R, cos, sin, req.rope.style); // [T, R]
  const kc = cache.get(piece.request) ?? { latent: [], kpe: [] };
  if (kc.latent.length !== piece.start)
    throw new Error(`${key}: cache holds ${kc.latent.length} tokens, the piece starts at ${piece.start}`);
  for (let t = 0; t < T; t++) {
    kc.latent.push(kv_c_normed.subarray(t * L, t * L + L));
    kc.kpe.push(k_pe.subarray(t * R, t * R + R));
  }
  cache.set(piece.request, kc);
  if (piece.kind === 'cached' && writeCached) {
    out(key, 'kv_c_normed', [T, L], kv_c_normed); // a protocol error: nothing is due for a cached piece
    out(key, 'k_pe', [T, R], k_pe);
  }
  if (piece.kind === 'cached') continue; // a prefix-cache hit: latent rows only, nothing attends

  const q_c = rmsNorm(linear(hidden, T, H, W.q_a_proj, Lq), Lq, W.q_a_layernorm, c.rms_norm_eps); // [T, Lq]
  const q = linear(q_c, T, Lq, W.q_b_proj, N * D); // [T, N, D]
  const q_nope = cols(q, D, 0, P); // [T, N, P]
  const q_pe = rope(cols(q, D, P, R), T, N, R, cos, sin, req.rope.style); // [T, N, R]
  // Reconstructed heads for every key the piece sees (cache indices 0 … start+T−1).
  const S = piece.start + T;
  const latent = new Arr(S * L); // [S, L]
  kc.latent.forEach((row, s) => latent.set(row, s * L));
  const kv_nope = linear(latent, S, L, kvb, N * (P + V)); // [S, N, P+V]
  const k_nope = cols(kv_nope, P + V, 0, P); // [S, N, P]
  const v = cols(kv_nope, P + V, P, V); // [S, N, V]
  const scale = req.softmax_scale;
  const lse = new Arr(T * N); // [T, N] (declared "t h")
  const heads = new Arr(T * N * V); // [T, N, V]
  const logit = new Float64Array(S);
  for (let t = 0; t < T; t++)
    for (let h = 0; h < N; h++) {
      const seen = piece.start + t + 1; // causal: keys 0 … start+t
      let m = -Infinity;
      for (let s = 0; s < seen; s++) {
        let acc = 0;
        for (let p = 0; p < P; p++) acc += q_nope[(t * N + h) * P + p] * k_nope[(s * N + h) * P + p];
        for (let r = 0; r < R; r++) acc += q_pe[(t * N + h) * R + r] * kc.kpe[s][r];
        logit[s] = acc * scale;
        m = Math.max(m, logit[s]);
      }
      let z = 0;
      for (let s = 0; s < seen; s++) z += logit[s] = Math.exp(logit[s] - m);
      lse[t * N + h] = Math.log(z) + m;
      for (let s = 0; s < seen; s++) for (let e = 0; e < V; e++) heads[(t * N + h) * V + e] += (logit[s] / z) * v[(s * N + h) * V + e];
    }
  const o_proj_out = linear(heads, T, N * V, W.o_proj, H); // [T, H]
  if (logitsMode !== null) {
    // [N, T, S]: every key, before the mask (the stage's definition), or after masked_fill at the keys after the query
    const scores = new Arr(N * T * S);
    for (let h = 0; h < N; h++)
      for (let t = 0; t < T; t++)
        for (let s = 0; s < S; s++) {
          let acc = 0;
          for (let p = 0; p < P; p++) acc += q_nope[(t * N + h) * P + p] * k_nope[(s * N + h) * P + p];
          for (let r = 0; r < R; r++) acc += q_pe[(t * N + h) * R + r] * kc.kpe[s][r];
          scores[(h * T + t) * S + s] = logitsMode !== 'pre-mask' && s > piece.start + t ? FILLS[logitsMode] : acc * scale;
        }
    out(key, 'logits', [N, T, S], scores);
  }
  if (weightsMode !== null) {
    // W_UK_T [N, P, L] and W_UV [N, L, V] from kv_b_proj (vLLM process_weights_after_loading), for every attending piece
    const drift = weightsMode === 'drift' ? 1e-3 * piece.step : 0;
    const [ukt, uv] = [new Arr(N * P * L), new Arr(N * L * V)];
    for (let h = 0; h < N; h++)
      for (let l = 0; l < L; l++) {
        for (let p = 0; p < P; p++) ukt[(h * P + p) * L + l] = kvb[(h * (P + V) + p) * L + l];
        for (let e = 0; e < V; e++) uv[(h * L + l) * V + e] = kvb[(h * (P + V) + P + e) * L + l];
      }
    uv[0] += drift;
    out(key, 'W_UK_T', [N, P, L], ukt);
    out(key, 'W_UV', [N, L, V], uv);
  }
  let lseOut = lse;
  if (mislabelLse) {
    lseOut = new Arr(N * T); // [N, T], still declared "t h"
    for (let t = 0; t < T; t++) for (let h = 0; h < N; h++) lseOut[h * T + t] = lse[t * N + h];
  }
  const own = keyRows === 'own' ? piece.start : 0; // --key-rows all: the S keys of the request (a protocol error)
  out(key, 'q_nope', [T, N, P], q_nope);
  out(key, 'q_pe', [T, N, R], q_pe);
  out(key, 'kv_c_normed', [T, L], kv_c_normed);
  out(key, 'k_pe', [T, R], k_pe);
  out(key, 'k_nope', [S - own, N, P], k_nope.slice(own * N * P)); // the piece's own tokens
  out(key, 'v', [S - own, N, V], v.slice(own * N * V));
  out(key, 'lse', mislabelLse ? [N, T] : [T, N], lseOut);
  out(key, 'attn_out_heads', [T, N * V], heads); // declared "t (h v)"
  out(key, 'attn_out', [T, N * V], heads);
  out(key, 'o_proj_out', [T, H], o_proj_out);
  scalars[key] = {
    softmax_scale: scale,
    lse_base: 'e',
    rope_style: req.rope.style,
    causal: true,
    num_tokens: T,
    num_context_tokens: piece.start,
    has_context: piece.start > 0,
  };
}

const outDir = process.env.MLA_DIFF_OUT;
writeSafetensors(join(outDir, 'stages.safetensors'), tensors);
writeFileSync(
  join(outDir, 'response.json'),
  JSON.stringify(
    {
      format: 'mla-diff/external-response',
      version: 1,
      name: `node-mha${fault ? `+${fault}` : ''}`,
      precision,
      device: `cpu (Node.js ${process.version})`,
      layouts: { lse: 't h', attn_out_heads: 't (h v)' },
      ...(declareMasked ? { masked: ['logits'] } : {}),
      stats,
      scalars,
      seconds: (performance.now() - t0) / 1000,
    },
    null,
    2,
  ),
);
