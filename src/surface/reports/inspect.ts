import Table from 'cli-table3';
import type { InspectIssue, InspectReport, LayerPattern, MlaFacts, TokenizerFacts } from '../../checkpoints/inspect';
import { layerRanges } from '../../checkpoints/inspect';
import { fitTable, fitText } from './fit';
import { num } from './format';
import type { Style } from './style';

const TABLE = { style: { head: [], border: [], compact: true } };
const dims = (shape: readonly number[]) => `[${shape.join(', ')}]`;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** 117600 → `114.8 KiB`: binary units, one decimal. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let i = 0;
  let x = n;
  while (x >= 1024 && i < units.length - 1) {
    x /= 1024;
    i++;
  }
  return i === 0 ? `${n} B` : `${x.toFixed(1)} ${units[i]}`;
}

function containerLine(r: InspectReport): string {
  const c = r.container;
  if (c.kind === 'gguf')
    return `GGUF v${c.version}, alignment ${c.alignment}, ${plural(c.metadataKeys, 'metadata key')}, ${plural(r.tensorCount, 'tensor')}`;
  const how = c.index ? `index ${c.index}` : r.files.length > 1 ? 'files without an index' : 'one file';
  return `safetensors (${how}), ${plural(r.tensorCount, 'tensor')}${c.fp8Block ? `, FP8 block scales ${c.fp8Block.join('×')}` : ''}`;
}

function tokenizerLine(t: TokenizerFacts): string {
  if (!t.present) return 'none (no tokenizer.ggml.* metadata / no tokenizer.json)';
  const what = [t.model ?? 'unknown model', ...(t.pre ? [`pre ${t.pre}`] : [])].join(', ');
  const sizes = [
    t.tokens !== undefined ? `${t.tokens} tokens` : '',
    t.merges !== undefined ? `${t.merges} merges` : '',
    t.added ? `${t.added} added` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `${t.source === 'gguf' ? 'GGUF metadata' : t.file}: ${what}${sizes ? `; ${sizes}` : ''}`;
}

function kvBLine(r: InspectReport): string {
  const hf = r.container.kind === 'safetensors';
  switch (r.kvB) {
    case 'split':
      return 'split: attn_k_b [H, L, P] (W_UK transposed per head) + attn_v_b [H, V, L] (current llama.cpp converters)';
    case 'merged':
      return hf
        ? 'merged: kv_b_proj [H·(P+V), L] (the Hugging Face layout)'
        : 'merged: attn_kv_b [H·(P+V), L] (a legacy conversion, no attn_k_b / attn_v_b)';
    case 'both':
      return 'both the merged attn_kv_b and the split attn_k_b / attn_v_b';
    case 'none':
      return 'no kv_b_proj tensor found';
    case 'mixed':
      return 'differs between layers (see the per-layer types)';
  }
}

function mlaLines(m: MlaFacts): string[] {
  const c = m.config;
  const y = c.rope_scaling;
  const rope = `rope theta ${c.rope_theta}, ${c.rope_interleave ? 'interleaved pairs' : 'NeoX halves'}, ${
    y
      ? `yarn factor ${y.factor} over ${y.original_max_position_embeddings}, ` +
        `mscale ${y.mscale}/${y.mscale_all_dim}, beta ${y.beta_fast}/${y.beta_slow}`
      : 'no scaling'
  }`;
  return [
    `  hidden ${c.hidden_size} · heads ${c.num_attention_heads} · q_lora_rank ${c.q_lora_rank} · kv_lora_rank ${c.kv_lora_rank}`,
    `  qk_nope ${c.qk_nope_head_dim} · qk_rope ${c.qk_rope_head_dim} · v_head_dim ${c.v_head_dim} · qk_head_dim ${m.qkHeadDim} · ` +
      `latent L+R ${c.kv_lora_rank}+${c.qk_rope_head_dim} = ${m.latentWidth}`,
    `  softmax scale ${num(m.softmaxScale)} (${m.qkHeadDim}^-0.5${y ? ' · mscale²' : ''}) · ${rope}`,
    `  rms eps ${num(c.rms_norm_eps)} · context ${c.max_position_embeddings} · vocab ${c.vocab_size}`,
  ];
}

const SCALE = '.weight_scale_inv';

/** `layers 0–77: attn_q_a Q4_K, …`; FP8 scales folded into their weight; shapes only where they differ from the tabulated layer. */
function patternLine(p: LayerPattern, base: ReadonlyMap<string, number[]>): string {
  const names = new Set(p.tensors.map((t) => t.short));
  const parts = p.tensors
    .filter((t) => !(t.short.endsWith(SCALE) && names.has(t.short.slice(0, -SCALE.length))))
    .map((t) => {
      const b = base.get(t.short);
      const scaled = names.has(`${t.short}${SCALE}`) ? ' (+scale_inv)' : '';
      return `${t.short} ${t.type}${scaled}${b && dims(b) === dims(t.shape) ? '' : ` ${dims(t.shape)}`}`;
    });
  return `  layers ${layerRanges(p.layers)}: ${parts.join(', ')}`;
}

function issueLine(i: InspectIssue, s: Style): string {
  const at = `${i.file ? `${i.file}: ` : ''}${i.field ? `${i.field}: ` : ''}`;
  const line = `${i.severity} [${i.code}] ${at}${i.message}`;
  return `${i.severity === 'error' ? s.bad(line) : s.warn(line)}${i.hint ? `\n  hint: ${i.hint}` : ''}`;
}

function weightsBlock(r: InspectReport, s: Style): string[] {
  const w = r.weights;
  if (!w) return [];
  const t = new Table({
    ...TABLE,
    head: ['W', 'tensors', 'dtype', 'shape', 'norm', 'max|x|', 'non-finite', 'checksum'].map((h) => s.bold(h)),
  });
  for (const x of w.records) {
    t.push([
      x.name,
      x.tensors.join(' + '),
      x.dtype,
      dims(x.shape),
      num(x.norm),
      num(x.maxAbs),
      x.nonFinite ? s.bad(String(x.nonFinite)) : '0',
      x.checksum,
    ]);
  }
  const title = `layer ${w.layer} weights, read and dequantized (embedding rows of token ids ${w.ids.join(', ')})`;
  return ['', s.bold(fitText(title, s)), fitTable(t, s, { wrap: [1], minWrap: 16, fallback: 'overflow' })];
}

/** The inspect report: JSON (the versioned object as is) or the terminal summary. */
export function renderInspect(r: InspectReport, format: 'table' | 'json', s: Style): string {
  if (format === 'json') return JSON.stringify(r, null, 2);
  const kv = (k: string, v: string) => fitText(`${k.padEnd(13)}${v}`, s, 13);
  const l = r.layers;
  const lines = [
    s.bold(`mla-diff inspect ${r.path}`),
    kv('format', containerLine(r)),
    kv(
      'files',
      `${plural(r.files.length, 'file')}, ${formatBytes(r.totalBytes)}` +
        `${r.files.length > 1 ? ` (${r.files.map((f) => formatBytes(f.bytes)).join(' + ')})` : ''}`,
    ),
    kv('architecture', r.architecture === null ? s.warn('unknown') : `${r.architecture} ${r.isMla ? '(MLA)' : s.warn('(not MLA)')}`),
    kv(
      'layers',
      `${l.declared ?? '?'} declared; ${l.attention.length} with attention tensors: ${layerRanges(l.attention) || 'none'}` +
        (l.present.length !== l.attention.length ? ` (tensors in ${layerRanges(l.present)})` : ''),
    ),
    kv('kv_b', kvBLine(r)),
    kv('tokenizer', tokenizerLine(r.tokenizer)),
  ];
  if (r.mla) lines.push('', s.bold(`MLA dims (config of layer ${r.mla.configLayer})`), ...mlaLines(r.mla).map((x) => fitText(x, s, 4)));
  if (r.attention) {
    const t = new Table({ ...TABLE, head: ['tensor', 'type', 'shape', 'bytes'].map((h) => s.bold(h)) });
    for (const x of r.attention.tensors) t.push([x.name, x.type, dims(x.shape), formatBytes(x.bytes)]);
    lines.push('', s.bold(`attention tensors of layer ${r.attention.layer}`), t.toString());
    const base = new Map(r.attention.tensors.map((x) => [x.short, x.shape]));
    lines.push(
      '',
      s.bold(`per-layer types (${plural(r.patterns.length, 'pattern')})`),
      ...r.patterns.map((p) => fitText(patternLine(p, base), s, 4)),
    );
  }
  lines.push(...weightsBlock(r, s));
  if (r.issues.length) lines.push('', ...r.issues.map((i) => issueLine(i, s)).map((x) => fitText(x, s, 4)));
  return lines.join('\n');
}
