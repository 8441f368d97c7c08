// Writes a GLM-5-sized GGUF with our writer: 6144 hidden, 64 heads, q_lora 2048, kv_lora 512,
// split attn_k_b / attn_v_b, the full 154 880 × 6144 token_embd, a vocabulary of 154 880 tokens
// and 321 649 merges in the header (GLM-5's counts, synthetic strings). Layers are
// SyntheticWeights(glm-5, seed 0) and (seed 1), alternating: quantized once each, written `layers`
// times, so a 78-layer file costs two quantizations. SHARDS > 1 splits it as gguf-split does (our writeGgufSplit:
// OUT-0000k-of-0000N.gguf). Usage: node bench/checkpoint/write-glm5.mjs OUT TYPE LAYERS [SHARDS]
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const api = require('mla-diff');
const {
  preset,
  SyntheticWeights,
  LAYER_TENSORS,
  linearShape,
  normLength,
  quantizeRows,
  writeGguf,
  fallbackType,
  mlaMetadata,
  splitKvB,
  GGUF_EMBEDDINGS,
  ggufKB,
  ggufName,
  ggufVB,
} = api;

const [out, type, nLayers] = [process.argv[2], process.argv[3] ?? 'Q8_0', Number(process.argv[4] ?? 1)];
const shards = Number(process.argv[5] ?? 1);
const { writeGgufSplit } = api;
const c = preset('glm-5');
const meta = mlaMetadata(c, 'glm-dsa', nLayers);
meta.set('tokenizer.ggml.model', { type: 'STRING', value: 'gpt2' });
meta.set('tokenizer.ggml.tokens', { type: 'ARRAY', itemType: 'STRING', value: Array.from({ length: c.vocab_size }, (_, i) => `tok${i}`) });
meta.set('tokenizer.ggml.merges', {
  type: 'ARRAY',
  itemType: 'STRING',
  value: Array.from({ length: 321649 }, (_, i) => `t${i % 997} k${i}`),
});

const sources = [new SyntheticWeights(c, 0), new SyntheticWeights(c, 1)];
const memo = new Map();
const once = (key, f) => () => {
  if (!memo.has(key)) memo.set(key, f());
  return memo.get(key);
};
const tensor = (name, shape, t, values) => {
  const ne = [...shape].reverse();
  const ty = fallbackType(t, ne[0]);
  return {
    name,
    ne,
    type: ty,
    produce: once(`${name.replace(/^blk\.\d+\./, '')}:${values.seed}`, () => quantizeRows(ty, values(), ne[0])),
  };
};
const tensors = [];
// token_embd in chunks of 2048 rows: never the whole fp32 table in memory
const H = c.hidden_size;
const eType = fallbackType(type, H);
tensors.push({
  name: GGUF_EMBEDDINGS,
  ne: [H, c.vocab_size],
  type: eType,
  produce: function* () {
    for (let r = 0; r < c.vocab_size; r += 2048) {
      const ids = Array.from({ length: Math.min(2048, c.vocab_size - r) }, (_, i) => r + i);
      yield quantizeRows(eType, sources[0].embeddings(ids), H);
    }
  },
});
const d = { heads: c.num_attention_heads, nope: c.qk_nope_head_dim, v: c.v_head_dim, rank: c.kv_lora_rank };
for (let n = 0; n < nLayers; n++) {
  const src = sources[n % 2];
  const v = (f) => Object.assign(f, { seed: n % 2 });
  for (const t of LAYER_TENSORS) {
    if (t.endsWith('layernorm')) {
      tensors.push(
        tensor(
          ggufName(n, t),
          [normLength(c, t)],
          'F32',
          v(() => src.norm(t)),
        ),
      );
      continue;
    }
    const [rows, cols] = linearShape(c, t);
    const full = () => {
      const w = new Float32Array(rows * cols);
      src.block(t, [0, rows], [0, cols], 'out_in', w);
      return w;
    };
    if (t !== 'kv_b_proj') {
      tensors.push(tensor(ggufName(n, t), [rows, cols], type, v(full)));
      continue;
    }
    tensors.push(
      tensor(
        ggufKB(n),
        [d.heads, d.rank, d.nope],
        type,
        v(() => splitKvB(full(), d).kB),
      ),
    );
    tensors.push(
      tensor(
        ggufVB(n),
        [d.heads, d.v, d.rank],
        type,
        v(() => splitKvB(full(), d).vB),
      ),
    );
  }
}
const t0 = performance.now();
const files = shards > 1 ? writeGgufSplit(out.replace(/\.gguf$/, ''), meta, tensors, shards) : (writeGguf(out, meta, tensors), [out]);
console.log(JSON.stringify({ file: files[0], files, type, layers: nLayers, seconds: (performance.now() - t0) / 1000 }));
