/**
 * The llama.cpp child process: `node child.js job.json`. llama.cpp's GGML_ASSERT aborts the
 * process, so it never runs inside mla-diff itself. Loads the model, decodes the job's pieces in
 * order (embeddings in, one sequence per request, one cache shared by all), and captures every
 * node of layer 0 through the eval callback into out/nodes.json + out/nodes.bin. llama.cpp's log
 * goes to stderr (the parent shows it under --verbose); a failure is one line on stderr, exit 1.
 */
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { CapturedNode, EngineJob, EngineResult } from './job';
import type { Llama } from './library';
import { loadLlama } from './library';
import { layerNode } from './node-filter';
import { readHead, readValues } from './tensor-read';

const GGML_TYPE = { f32: 0, f16: 1 } as const;

function fail(message: string): never {
  process.stderr.write(`llama.cpp: ${message}\n`);
  process.exit(1);
}

function loadModel(l: Llama, job: EngineJob): unknown {
  l.fn.ggml_backend_load_all_from_path!(job.libDir);
  l.fn.llama_backend_init!();
  const mp = l.fn.llama_model_default_params!() as Record<string, unknown>;
  mp.n_gpu_layers = job.params.gpuLayers;
  // No extra buffer types (llama-cli's --no-repack): on a CPU with AMX (Sapphire Rapids) llama.cpp puts Q8_0 / Q4_K weights in
  // the AMX buffer, which runs only MUL_MAT; our MLA graph's other ops on attn_k_b / attn_v_b then have no backend and the
  // scheduler aborts (ggml-backend.cpp: GGML_ASSERT(*cur_backend_id != -1)). The same weights then run the CPU backend's kernels.
  mp.use_extra_bufts = false;
  const model = l.fn.llama_model_load_from_file!(job.model, mp);
  if (!model) fail(`llama_model_load_from_file failed on ${job.model} (its log above says why)`);
  return model;
}

function contextParams(l: Llama, job: EngineJob, cb: unknown): Record<string, unknown> {
  const cp = l.fn.llama_context_default_params!() as Record<string, unknown>;
  Object.assign(cp, {
    n_ctx: job.nCtx,
    n_batch: job.nBatch,
    n_ubatch: job.nBatch,
    n_seq_max: job.nSeq,
    n_threads: job.params.threads,
    n_threads_batch: job.params.threads,
    flash_attn_type: job.params.flashAttn ? 1 : 0,
    type_k: GGML_TYPE[job.params.cacheType],
    type_v: GGML_TYPE[job.params.cacheType],
    kv_unified: true,
    no_perf: true,
    cb_eval: cb,
  });
  return cp;
}

function decodePiece(l: Llama, ctx: unknown, job: EngineJob, embd: Float32Array, i: number): number {
  const p = job.pieces[i]!;
  const n = p.positions.length;
  const k = l.koffi;
  const batch = l.fn.llama_batch_init!(n, job.hidden, 1) as Record<string, unknown>;
  try {
    k.encode(batch.embd, k.array('float', n * job.hidden), embd.subarray(p.row * job.hidden, (p.row + n) * job.hidden));
    k.encode(batch.pos, k.array('int32', n), Int32Array.from(p.positions));
    k.encode(batch.n_seq_id, k.array('int32', n), new Int32Array(n).fill(1));
    const seqs = k.decode(batch.seq_id, k.array('void*', n)) as unknown[];
    for (const s of seqs) k.encode(s, 'int32', p.seq);
    k.encode(
      batch.logits,
      k.array('int8', n),
      Int8Array.from({ length: n }, (_, j) => (j === n - 1 ? 1 : 0)),
    );
    batch.n_tokens = n;
    const t0 = performance.now();
    const rc = l.fn.llama_decode!(ctx, batch) as number;
    if (rc !== 0) fail(`llama_decode returned ${rc} on piece ${p.step}/${p.request} (${n} tokens at ${p.positions[0]})`);
    return (performance.now() - t0) / 1000;
  } finally {
    l.fn.llama_batch_free!(batch);
  }
}

function main(jobPath: string): void {
  const job = JSON.parse(readFileSync(jobPath, 'utf8')) as EngineJob;
  const l = loadLlama(job.libDir);
  const log = l.koffi.register(
    (_level: unknown, text: unknown) => void process.stderr.write(String(text)),
    l.koffi.pointer(l.koffi.proto('void ggml_log_cb(int level, const char* text, void* ud)')),
  );
  l.fn.llama_log_set!(log, null);
  const t0 = performance.now();
  const model = loadModel(l, job);
  const loadSeconds = (performance.now() - t0) / 1000;
  const nodes: CapturedNode[] = [];
  const bin = openSync(join(job.out, 'nodes.bin'), 'w');
  let written = 0;
  let piece = 0;
  let checked = false;
  const cb = l.koffi.register((t: unknown, ask: boolean) => {
    const h = readHead(l, t);
    if (!checked) {
      const name = l.fn.ggml_get_name!(t) as string;
      if (name !== h.name) fail(`ggml_tensor.name reads "${h.name}" where ggml_get_name says "${name}": the struct layout is wrong`);
      checked = true;
    }
    const src = h.src.slice(0, 3).map((s) => readHead(l, s).name);
    const keep = layerNode(h.name, src);
    if (ask) return keep !== 'skip';
    const op = l.fn.ggml_op_desc!(t) as string;
    const node: CapturedNode = {
      piece,
      name: h.name,
      op,
      type: l.fn.ggml_type_name!(h.type) as string,
      ne: h.ne,
      opParams: h.opParams,
      src,
    };
    const values = keep === 'values' ? readValues(l, t, h) : null;
    if (values) {
      writeSync(bin, new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
      node.offset = written;
      node.count = values.length;
      written += values.length;
    }
    nodes.push(node);
    return true;
  }, l.koffi.pointer(l.types.cbEval));
  const ctx = l.fn.llama_init_from_model!(model, contextParams(l, job, cb));
  if (!ctx) fail('llama_init_from_model failed (its log above says why)');
  // A small file's Buffer is a view into Node's shared pool: copy exactly its bytes.
  const raw = readFileSync(job.embeddings);
  const embd = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
  const decodeSeconds: number[] = [];
  for (piece = 0; piece < job.pieces.length; piece++) decodeSeconds.push(decodePiece(l, ctx, job, embd, piece));
  closeSync(bin);
  const devices = Array.from({ length: Number(l.fn.ggml_backend_dev_count!()) }, (_, i) => {
    const d = l.fn.ggml_backend_dev_get!(i);
    return `${l.fn.ggml_backend_dev_name!(d) as string}: ${l.fn.ggml_backend_dev_description!(d) as string}`;
  });
  const result: EngineResult = {
    format: 'mla-diff/llama-cpp-nodes',
    version: 1,
    versions: l.versions,
    devices,
    nodes,
    decodeSeconds,
    loadSeconds,
  };
  writeFileSync(join(job.out, 'nodes.json'), JSON.stringify(result));
  l.fn.llama_free!(ctx);
  l.fn.llama_model_free!(model);
  l.koffi.unregister(cb);
}

try {
  main(process.argv[2] ?? fail('usage: child.js job.json'));
} catch (e) {
  fail(e instanceof Error ? e.message : String(e));
}
