import { existsSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { MlaDiffError } from '../../errors';
import type { GgmlType } from '../../formats/gguf/ggml-types';
import { openGguf } from '../../formats/gguf/read';
import type { GgufEntry, GgufModel } from '../../formats/gguf/types';
import type { LazyTensor } from '../../formats/gguf/write';
import { writeGguf } from '../../formats/gguf/write';
import { configFromGguf } from '../../checkpoints/checkpoint/config-gguf';
import { GGUF_EMBEDDINGS } from '../../checkpoints/checkpoint/names';
import { lazyTensor } from '../../checkpoints/checkpoint/write-gguf';
import { copiedTensor } from '../../checkpoints/extract/copy';
import type { ReadCounter } from '../../checkpoints/extract/copy';
import { oneLayerMetadata } from '../../checkpoints/extract/metadata';
import { headerBytes, keptSummary, planLayer } from '../../checkpoints/extract/plan';
import type { LayerPlan } from '../../checkpoints/extract/plan';
import { ENGINE_VOCAB, runnableExtras } from './model-gguf';

/**
 * `mla-diff extract`: one layer of a user's GGUF checkpoint as a runnable one-layer llama.cpp model.
 * The attention tensors (and a glm-dsa file's DSA indexer) are the source's bytes in the source's
 * types, renamed blk.N.* → blk.0.*; the metadata is the source's, cut to one layer
 * (checkpoints/extract/metadata.ts); around it go the first ENGINE_VOCAB embedding rows and the
 * dense FFN, output norm and output head of runnableExtras. Only those bytes and the headers are read.
 */
export const EXTRACT_FORMAT = 'mla-diff/extract';

export interface ExtractOptions {
  layer: number;
  output: string;
  /** Replace an existing output file (never one of the input's shards). */
  force?: boolean;
}

export interface ExtractResult {
  format: typeof EXTRACT_FORMAT;
  version: 1;
  input: string[];
  output: string;
  arch: LayerPlan['arch'];
  layer: number;
  /** Copied byte for byte: name in the output, name in the source, type, bytes. */
  kept: { name: string; from: string; type: GgmlType; bytes: number }[];
  /** What the output holds that is not the source's. */
  filled: string[];
  /** The layer's tensors left out (MoE experts, router, FFN norm, …). */
  notCopied: string[];
  /** Metadata keys whose per-layer arrays were cut to the layer, and keys left out. */
  metadata: { cut: string[]; dropped: string[] };
  bytesRead: { headers: number; tensors: number };
  bytesWritten: number;
  seconds: number;
}

const u32 = (value: number): GgufEntry => ({ type: 'UINT32', value });

function checkOutput(m: GgufModel, output: string, force: boolean): void {
  const real = (p: string) => (existsSync(p) ? realpathSync(p) : resolve(p));
  const out = real(output);
  if (m.files.some((f) => real(f) === out)) {
    throw new MlaDiffError(
      'invalid-value',
      'the output is the input checkpoint (or one of its shards): extract never writes over its input',
      { file: output, field: '-o' },
      'name another output file',
    );
  }
  if (existsSync(output) && !force) {
    throw new MlaDiffError('output-exists', 'the output file exists', { file: output, field: '-o' }, 'pass --force to replace it');
  }
}

/** token_embd: the source's first ENGINE_VOCAB rows in its type (zeros when the source has fewer). */
function embeddings(m: GgufModel, hidden: number, counter: ReadCounter): { tensor: LazyTensor; note: string } {
  const t = m.tensors.get(GGUF_EMBEDDINGS);
  const rows = t?.ne[t.ne.length - 1] ?? 0;
  if (t !== undefined && t.ne.length === 2 && t.ne[0] === hidden && rows >= ENGINE_VOCAB) {
    const tensor = copiedTensor(GGUF_EMBEDDINGS, t, counter, ENGINE_VOCAB);
    return { tensor, note: `token_embd: the source's first ${ENGINE_VOCAB} of ${rows} rows (${t.type})` };
  }
  const tensor = lazyTensor(GGUF_EMBEDDINGS, [ENGINE_VOCAB, hidden], 'F32', () => new Float32Array(ENGINE_VOCAB * hidden));
  return { tensor, note: `token_embd: ${ENGINE_VOCAB} rows of zeros (the source has ${t ? `${rows} rows` : 'none'})` };
}

/** Writes the one-layer model (to a temporary file beside the output, then renamed); returns what it did. */
export function extractLayer(input: string, opts: ExtractOptions): ExtractResult {
  const t0 = performance.now();
  const m = openGguf(input);
  checkOutput(m, opts.output, opts.force ?? false);
  const plan = planLayer(m, opts.layer);
  const { arch } = plan;
  const config = configFromGguf(m.metadata, m.files[0]!, opts.layer);
  const context = config.max_position_embeddings;
  const md = oneLayerMetadata(m.metadata, plan, basename(m.files[0]!));
  const extras = runnableExtras(config, arch, context);
  const counter: ReadCounter = { bytes: 0 };
  const embd = embeddings(m, config.hidden_size, counter);
  let fillers = extras.tensors;
  let filled = extras.filled;
  for (const [k, v] of extras.meta) md.meta.set(k, v);
  md.meta.set(`${arch}.vocab_size`, u32(ENGINE_VOCAB));
  if (plan.indexer) {
    // The source's own indexer, its head count and key length; top_k covers every key: dense attention, as mla-diff's paths.
    const a = `${arch}.attention.indexer`;
    for (const k of ['head_count', 'key_length']) md.meta.set(`${a}.${k}`, m.metadata.get(`${a}.${k}`)!);
    fillers = fillers.filter((t) => !t.name.startsWith('blk.0.indexer.'));
    const top = m.metadata.get(`${a}.top_k`)?.value;
    filled = [
      ...filled.filter((f) => !f.startsWith('a DSA indexer')),
      `indexer top_k ${String(top ?? 'unset')} → ${context} (dense attention)`,
    ];
  }
  const kept = [...plan.attention, ...(plan.indexer ?? [])];
  const tensors = [embd.tensor, ...kept.map((k) => copiedTensor(k.name, k.source, counter)), ...fillers];
  const tmp = join(dirname(resolve(opts.output)), `.${basename(opts.output)}.tmp-${process.pid}`);
  try {
    writeGguf(tmp, md.meta, tensors);
    renameSync(tmp, opts.output);
  } finally {
    rmSync(tmp, { force: true });
  }
  return {
    format: EXTRACT_FORMAT,
    version: 1,
    input: m.files,
    output: opts.output,
    arch,
    layer: opts.layer,
    kept: keptSummary(kept),
    filled: [embd.note, ...filled],
    notCopied: [...plan.notCopied],
    metadata: { cut: md.cut, dropped: md.dropped },
    bytesRead: { headers: headerBytes(m), tensors: counter.bytes },
    bytesWritten: statSync(opts.output).size,
    seconds: (performance.now() - t0) / 1000,
  };
}
