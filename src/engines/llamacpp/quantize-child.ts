/**
 * The llama.cpp quantizing child: `node quantize-child.js job.json`. A GGML_ASSERT inside
 * llama_model_quantize aborts the process, so it never runs inside mla-diff itself. Quantizes
 * job.input into each target with llama.cpp's own per-tensor type choice, then (job.dequantize)
 * dequantizes every non-F32 tensor of each output with ggml's own to_float (ggml_get_type_traits)
 * into job.dir/ggml-<i>.bin. llama.cpp's log goes to stderr; a failure is one line on stderr, exit 1.
 */
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { openGguf, readTensorBytes } from '../../formats/gguf/read';
import { GGML_TYPES } from '../../formats/gguf/ggml-types';
import type { Koffi, Llama } from './library';
import { loadLlama } from './library';
import { VERIFIED } from './abi';
import type { GgmlDequantized, QuantizeChildResult, QuantizeJob } from './quantize-abi';
import { QUANTIZE_DEFAULTS, QUANTIZE_LAYOUT, QUANTIZE_PARAMS, TYPE_TRAITS } from './quantize-abi';

type Fn = (...args: unknown[]) => unknown;
type KoffiCall = Koffi & { call(ptr: unknown, type: unknown, ...args: unknown[]): unknown };

function fail(message: string): never {
  process.stderr.write(`llama.cpp: ${message}\n`);
  process.exit(1);
}

interface QuantizeBinding {
  k: KoffiCall;
  params: unknown;
  traits: unknown;
  toFloat: unknown;
  fn: Record<'defaults' | 'quantize' | 'traitsOf', Fn>;
}

/** Binds the quantize functions from the libraries loadLlama already checked, and checks their layouts. */
function bindQuantize(l: Llama, libDir: string): QuantizeBinding {
  const k = l.koffi as KoffiCall;
  const params = k.struct('llama_model_quantize_params', QUANTIZE_PARAMS);
  const traits = k.struct('ggml_type_traits', TYPE_TRAITS);
  const bad: string[] = [];
  const types: Record<string, unknown> = { llama_model_quantize_params: params, ggml_type_traits: traits };
  for (const [name, size] of Object.entries(QUANTIZE_LAYOUT.sizes))
    if (k.sizeof(types[name]) !== size) bad.push(`sizeof(${name}) ${k.sizeof(types[name])} ≠ ${size}`);
  for (const [path, off] of Object.entries(QUANTIZE_LAYOUT.offsets)) {
    const [s, f] = path.split('.') as [string, string];
    if (k.offsetof(types[s], f) !== off) bad.push(`offsetof(${path}) ${k.offsetof(types[s], f)} ≠ ${off}`);
  }
  const llama = k.load(join(libDir, VERIFIED.libllama));
  const base = k.load(join(libDir, 'libggml-base.so'));
  const fn = {
    defaults: llama.func('llama_model_quantize_params llama_model_quantize_default_params()') as Fn,
    quantize: llama.func('uint32 llama_model_quantize(const char* inp, const char* out, const llama_model_quantize_params* params)') as Fn,
    traitsOf: base.func('void* ggml_get_type_traits(int type)') as Fn,
  };
  const d = fn.defaults() as Record<string, unknown>;
  for (const [key, v] of Object.entries(QUANTIZE_DEFAULTS))
    if (Number(d[key]) !== Number(v)) bad.push(`llama_model_quantize_default_params().${key} = ${String(d[key])}, not ${v}`);
  for (const key of ['imatrix', 'kv_overrides', 'tt_overrides', 'prune_layers'])
    if (d[key] !== null) bad.push(`llama_model_quantize_default_params().${key} is not null`);
  if (bad.length) fail(`the quantize ABI does not match the verified one: ${bad.join('; ')}`);
  const toFloat = k.proto('void ggml_to_float_t(const void* x, _Out_ float* y, int64 k)');
  return { k, params, traits, toFloat, fn };
}

/** ggml's own float32 values of every non-F32 tensor of `file`, appended to `bin`; its geometry checked against ours. */
function dequantizeAll(l: Llama, b: QuantizeBinding, file: string, bin: string): GgmlDequantized[] {
  const m = openGguf(file);
  const out: GgmlDequantized[] = [];
  const fd = openSync(bin, 'w');
  let offset = 0;
  try {
    for (const info of m.tensors.values()) {
      if (info.type === 'F32') continue;
      const { id, block, bytes } = GGML_TYPES[info.type];
      const tr = b.k.decode(b.fn.traitsOf(id), b.traits) as Record<string, unknown>;
      const name = l.fn.ggml_type_name!(id) as string;
      if (Number(tr.blck_size) !== block || Number(tr.type_size) !== bytes || name.toUpperCase() !== info.type)
        fail(`ggml's ${name} (${String(tr.blck_size)} per ${String(tr.type_size)} bytes) is not our ${info.type} (${block} per ${bytes})`);
      if (tr.to_float === null) fail(`ggml has no to_float for ${name}`);
      const count = info.ne.reduce((a, c) => a * c, 1);
      const values = new Float32Array(count);
      b.k.call(tr.to_float, b.toFloat, readTensorBytes(m, info.name), values, count);
      writeSync(fd, new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
      out.push({ name: info.name, type: info.type, offset, count });
      offset += count;
    }
  } finally {
    closeSync(fd);
  }
  return out;
}

function main(jobPath: string): void {
  const job = JSON.parse(readFileSync(jobPath, 'utf8')) as QuantizeJob;
  const l = loadLlama(job.libDir);
  const log = l.koffi.register(
    (_level: unknown, text: unknown) => void process.stderr.write(String(text)),
    l.koffi.pointer(l.koffi.proto('void ggml_log_cb(int level, const char* text, void* ud)')),
  );
  l.fn.llama_log_set!(log, null);
  l.fn.llama_backend_init!();
  const b = bindQuantize(l, job.libDir);
  const outputs = job.targets.map((t, i) => {
    const p = b.fn.defaults() as Record<string, unknown>;
    Object.assign(p, { nthread: job.threads, ftype: t.ftype, pure: job.pure });
    const t0 = performance.now();
    const rc = b.fn.quantize(job.input, t.output, p) as number;
    const seconds = (performance.now() - t0) / 1000;
    if (rc !== 0) fail(`llama_model_quantize returned ${rc} for ftype ${t.ftype} (its log above says why)`);
    const bin = join(job.dir, `ggml-${i}.bin`);
    return { seconds, bin, dequantized: job.dequantize ? dequantizeAll(l, b, t.output, bin) : [] };
  });
  const result: QuantizeChildResult = { format: 'mla-diff/llama-cpp-quantize', version: 1, versions: l.versions, outputs };
  writeFileSync(join(job.dir, 'result.json'), JSON.stringify(result));
}

try {
  main(process.argv[2] ?? fail('usage: quantize-child.js job.json'));
} catch (e) {
  fail(e instanceof Error ? e.message : String(e));
}
