// The latent-absorbed attention of the mutant backend (FlashMLA / Triton MLA decode style): every
// head's 576-wide query against the request's latent rows [kv_c_normed | k_pe], the softmax taken per
// KV split and the splits merged through their log-sum-exps, the output left in latent space.
import { splitRanges } from './layer.mjs';

/**
 * mqa_q [T, N, C] against rows [S, C] (C = L + R; the first L columns are the values). Query t sees keys
 * 0 … last(t). Returns logits and attn_probs [N, T, S] (every key, before / after the mask), lse [T, N]
 * (natural log) and attn_out_latent [T, N, L].
 * plants: scaleTwice (logits × scale²), heads (the heads the kernel computes; the rest stay zero),
 * emptySplitNaN (an empty split's 0/0 is merged instead of skipped).
 */
export function latentAttention(alloc, mqa_q, rows, { T, N, S, L, C, scale, splits, last, plants }) {
  const logits = alloc(N * T * S);
  const probs = alloc(N * T * S);
  const lse = alloc(T * N);
  const latent = alloc(T * N * L);
  const applied = plants.scaleTwice ? scale * scale : scale;
  const ranges = splitRanges(S, splits);
  const heads = plants.heads ?? N;
  for (let h = 0; h < heads; h++)
    for (let t = 0; t < T; t++) {
      const q = mqa_q.subarray((t * N + h) * C, (t * N + h + 1) * C);
      const row = (h * T + t) * S;
      for (let s = 0; s < S; s++) {
        let dot = 0;
        for (let c = 0; c < C; c++) dot += q[c] * rows[s * C + c];
        logits[row + s] = dot * applied;
      }
      // per split: max, sum of exp and the weighted latent rows over the keys it holds that t sees
      const parts = [];
      for (const [from, to] of ranges) {
        const end = Math.min(to, last(t) + 1);
        if (end <= from && !plants.emptySplitNaN) continue; // nothing visible: skipped, as a correct kernel does
        let max = -Infinity;
        for (let s = from; s < end; s++) max = Math.max(max, logits[row + s]);
        let sum = 0;
        const acc = new Float64Array(L);
        for (let s = from; s < end; s++) {
          const e = Math.exp(logits[row + s] - max);
          sum += e;
          for (let l = 0; l < L; l++) acc[l] += e * rows[s * C + l];
        }
        for (let l = 0; l < L; l++) acc[l] /= sum; // 0/0 on an empty split
        parts.push({ lse: max + Math.log(sum), out: acc });
      }
      const top = Math.max(...parts.map((p) => p.lse));
      const total = top + Math.log(parts.reduce((z, p) => z + Math.exp(p.lse - top), 0));
      lse[t * N + h] = total;
      const out = (t * N + h) * L;
      for (const p of parts) {
        const w = Math.exp(p.lse - total);
        for (let l = 0; l < L; l++) latent[out + l] += w * p.out[l];
      }
      for (let s = 0; s <= last(t); s++) probs[row + s] = Math.exp(logits[row + s] - total);
    }
  return { logits, probs, lse, latent };
}
