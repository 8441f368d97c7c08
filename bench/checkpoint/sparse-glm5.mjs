// A GLM-5-shaped GGUF of ~400 GB that costs no disk: the real header (78 layers: MLA attention with
// split attn_k_b / attn_v_b, and routed experts ffn_{gate,up,down}_exps [256 × 2048 × 6144] in
// Q4_K from layer 3 on, as GLM-5's MoE has them; GLM-5's vocabulary size in the tokenizer keys),
// written by our FileWriter, then the file extended to its full size with ftruncate: the tensor
// data is a hole that reads as zeros. Shows that inspect and one-layer loads read the header and
// one layer, whatever the file's size. SHARDS > 1 splits it as gguf-split does (consecutive runs of tensors of
// about equal bytes, the metadata in the first shard, split.* keys in each): OUT-0000k-of-0000N.gguf, each sparse.
// Usage: node bench/checkpoint/sparse-glm5.mjs OUT [SHARDS]
import { closeSync, ftruncateSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const api = require('mla-diff');
const {
  preset,
  LAYER_TENSORS,
  linearShape,
  normLength,
  GGML_TYPES,
  FileWriter,
  writeEntry,
  tensorBytes,
  fallbackType,
  mlaMetadata,
  GGUF_EMBEDDINGS,
  ggufKB,
  ggufName,
  ggufVB,
} = api;

const out = process.argv[2];
const c = preset('glm-5');
const LAYERS = 78;
const meta = mlaMetadata(c, 'glm-dsa', LAYERS);
meta.set('tokenizer.ggml.model', { type: 'STRING', value: 'gpt2' });
meta.set('tokenizer.ggml.tokens', { type: 'ARRAY', itemType: 'STRING', value: Array.from({ length: c.vocab_size }, (_, i) => `tok${i}`) });
const infos = [];
const add = (name, shape, type) => {
  const ne = [...shape].reverse();
  infos.push({ name, ne, type: fallbackType(type, ne[0]) });
};
add(GGUF_EMBEDDINGS, [c.vocab_size, c.hidden_size], 'Q4_K');
for (let n = 0; n < LAYERS; n++) {
  for (const t of LAYER_TENSORS) {
    if (t.endsWith('layernorm')) {
      add(ggufName(n, t), [normLength(c, t)], 'F32');
      continue;
    }
    if (t === 'kv_b_proj') {
      add(ggufKB(n), [c.num_attention_heads, c.kv_lora_rank, c.qk_nope_head_dim], 'Q8_0');
      add(ggufVB(n), [c.num_attention_heads, c.v_head_dim, c.kv_lora_rank], 'Q8_0');
      continue;
    }
    add(ggufName(n, t), linearShape(c, t), 'Q4_K');
  }
  if (n >= 3) for (const f of ['gate', 'up']) add(`blk.${n}.ffn_${f}_exps.weight`, [256, 2048, c.hidden_size], 'Q4_K');
  if (n >= 3) add(`blk.${n}.ffn_down_exps.weight`, [256, c.hidden_size, 2048], 'Q4_K');
}
const shards = Number(process.argv[3] ?? 1);
const sizes = infos.map((t) => tensorBytes(t.name, t.ne, t.type));
const total = sizes.reduce((a, b) => a + b, 0);
// shard s holds the tensors whose start falls in its 1/shards of the bytes
const starts = sizes.map((_, i) => sizes.slice(0, i).reduce((a, b) => a + b, 0));
const runs = Array.from({ length: shards }, (_, s) => infos.filter((_, i) => Math.floor((starts[i] / total) * shards) === s));
const name = (s) =>
  shards === 1 ? out : `${out.replace(/\.gguf$/, '')}-${String(s + 1).padStart(5, '0')}-of-${String(shards).padStart(5, '0')}.gguf`;
const files = [];
let header = 0;
let fileBytes = 0;
for (const [s, run] of runs.entries()) {
  const file = name(s);
  const fd = openSync(file, 'w');
  const w = new FileWriter(fd);
  const entries = s === 0 ? [...meta.entries()] : [];
  if (shards > 1) {
    entries.push(['split.no', { type: 'UINT16', value: s }], ['split.count', { type: 'UINT16', value: shards }]);
    entries.push(['split.tensors.count', { type: 'INT32', value: infos.length }]);
  }
  w.u32(0x46554747);
  w.u32(3);
  w.u64(run.length);
  w.u64(entries.length);
  for (const [k, e] of entries) writeEntry(w, k, e);
  let offset = 0;
  for (const t of run) {
    w.str(t.name);
    w.u32(t.ne.length);
    for (const d of t.ne) w.u64(d);
    w.u32(GGML_TYPES[t.type].id);
    w.u64(offset);
    offset += tensorBytes(t.name, t.ne, t.type);
    offset = Math.ceil(offset / 32) * 32;
  }
  w.pad(32);
  w.flush();
  header += w.pos;
  fileBytes += w.pos + offset;
  ftruncateSync(fd, w.pos + offset);
  closeSync(fd);
  files.push(file);
}
console.log(JSON.stringify({ file: files[0], files, tensors: infos.length, headerBytes: header, fileBytes }));
