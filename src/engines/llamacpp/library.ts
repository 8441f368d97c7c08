import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MlaDiffError } from '../../errors';
import type { AbiRelease } from './abi';
import { BATCH, CONTEXT_DEFAULTS, CONTEXT_PARAMS, GGML_OBJECT_SIZE, MODEL_PARAMS, TENSOR, VERIFIED } from './abi';
import type { EngineVersions } from './job';

/** The npm packages that ship llama.cpp's prebuilt libraries, in order of preference for each kind. */
export const ENGINE_PACKAGES = { cpu: '@node-llama-cpp/linux-x64', vulkan: '@node-llama-cpp/linux-x64-vulkan' } as const;
export type EngineBuild = keyof typeof ENGINE_PACKAGES;

/**
 * The directory of libllama for a build: MLA_DIFF_LLAMA_CPP_DIR when set, else the installed npm
 * package's bins/linux-x64 (found through node's module paths: the package has no require entry).
 */
export function findLibDir(build: EngineBuild, env: NodeJS.ProcessEnv = process.env, from: string = __dirname): string {
  const pkg = ENGINE_PACKAGES[build];
  const override = env.MLA_DIFF_LLAMA_CPP_DIR;
  const bins = build === 'cpu' ? 'linux-x64' : `linux-x64-${build}`;
  const candidates = override ? [override] : modulePaths(from).map((p) => join(p, pkg, 'bins', bins));
  const found = candidates.find((d) => existsSync(d) && hasLibllama(d));
  if (found) return found;
  throw new MlaDiffError(
    'engine-unavailable',
    override ? `no libllama in MLA_DIFF_LLAMA_CPP_DIR=${override}` : `the llama.cpp engine is not installed (${pkg})`,
    { field: 'engines' },
    process.platform !== 'linux' || process.arch !== 'x64'
      ? `the prebuilt llama.cpp libraries are for linux-x64; this is ${process.platform}-${process.arch}`
      : `npm install ${pkg}@${VERIFIED.npm} (optional: not installed with mla-diff), or set MLA_DIFF_LLAMA_CPP_DIR`,
  );
}

function modulePaths(from: string): string[] {
  const out: string[] = [];
  for (let d = from; ; d = dirname(d)) {
    out.push(join(d, 'node_modules'));
    if (dirname(d) === d) return out;
  }
}

const hasLibllama = (d: string) => readdirSync(d).some((f) => /^libllama(\.\w+)?\.v[\d.]+\.so$/.test(f));

/**
 * The file of a library in a build's directory: `libllama.v0.5.0.so` (CPU build), `libllama.vulkan.v0.5.0.so`
 * (Vulkan build); the verified name when present.
 */
export function libraryFile(libDir: string, verified: string): string {
  if (existsSync(join(libDir, verified))) return verified;
  const [stem, rest] = [verified.slice(0, verified.indexOf('.')), verified.slice(verified.indexOf('.'))];
  return readdirSync(libDir).find((f) => f.startsWith(`${stem}.`) && f.endsWith(rest)) ?? verified;
}

// The part of koffi's API used here (its own typings are an ES module, this build is CommonJS).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Fn = (...args: any[]) => unknown;
interface KoffiLib {
  func(signature: string): Fn;
}
export interface Koffi {
  load(path: string): KoffiLib;
  struct(name: string, def: Record<string, unknown>): unknown;
  array(type: unknown, n: number, hint?: string): unknown;
  sizeof(t: unknown): number;
  offsetof(t: unknown, field: string): number;
  proto(signature: string): unknown;
  type(name: string): unknown;
  pointer(t: unknown): unknown;
  register(fn: Fn, type: unknown): unknown;
  unregister(cb: unknown): void;
  decode(ptr: unknown, type: unknown, len?: number): unknown;
  encode(ptr: unknown, type: unknown, value: unknown, len?: number): void;
  address(ptr: unknown): bigint;
}

/** The functions of libllama and libggml this binding calls, typed by their C signatures. */
export interface Llama {
  koffi: Koffi;
  versions: EngineVersions;
  types: { tensor: unknown; batch: unknown; cbEval: unknown };
  fn: Record<string, Fn>;
}

const SIGNATURES = {
  base: [
    'const char* ggml_version()',
    'const char* ggml_commit()',
    'size_t ggml_tensor_overhead()',
    'const char* ggml_get_name(void* t)',
    'const char* ggml_op_desc(void* t)',
    'const char* ggml_type_name(int type)',
    'int64 ggml_nelements(void* t)',
    'size_t ggml_nbytes(void* t)',
    'void ggml_backend_tensor_get(void* t, _Out_ void* data, size_t offset, size_t size)',
    'const char* ggml_backend_dev_description(void* dev)',
    'const char* ggml_backend_dev_name(void* dev)',
  ],
  ggml: [
    'void ggml_backend_load_all_from_path(const char* dir)',
    'size_t ggml_backend_dev_count()',
    'void* ggml_backend_dev_get(size_t i)',
  ],
  llama: [
    'const char* llama_version()',
    'void llama_backend_init()',
    'llama_model_params llama_model_default_params()',
    'llama_context_params llama_context_default_params()',
    'void* llama_model_load_from_file(const char* path, llama_model_params params)',
    'void llama_model_free(void* model)',
    'void* llama_init_from_model(void* model, llama_context_params params)',
    'void llama_free(void* ctx)',
    'llama_batch llama_batch_init(int32 n_tokens, int32 embd, int32 n_seq_max)',
    'void llama_batch_free(llama_batch batch)',
    'int32 llama_decode(void* ctx, llama_batch batch)',
    'void llama_log_set(void* cb, void* user_data)',
  ],
};

/** Loads koffi and the libraries, declares the structs and checks them against the verified ABI. */
export function loadLlama(libDir: string): Llama {
  const koffi = require('koffi') as Koffi;
  const arr = (t: unknown) =>
    Array.isArray(t) ? koffi.array(t[0], t[1] as number, t[0] === 'char' ? 'String' : t[0] === 'void*' ? 'Array' : 'Typed') : t;
  // koffi's type registry is process-wide: a second load in one process (two cases, two scenarios) reuses the names.
  const known = (name: string): unknown => {
    try {
      return koffi.type(name);
    } catch {
      return null;
    }
  };
  const struct = (name: string, def: Record<string, unknown>) =>
    known(name) ?? koffi.struct(name, Object.fromEntries(Object.entries(def).map(([k, v]) => [k, arr(v)])));
  const types = {
    model: struct('llama_model_params', MODEL_PARAMS),
    context: struct('llama_context_params', CONTEXT_PARAMS),
    batch: struct('llama_batch', BATCH),
    tensor: struct('ggml_tensor', TENSOR),
    cbEval:
      known('ggml_backend_sched_eval_callback') ?? koffi.proto('bool ggml_backend_sched_eval_callback(void* t, bool ask, void* user_data)'),
  };
  verifyAbi(koffi, types, VERIFIED);
  const fn: Record<string, Fn> = {};
  const bind = (lib: KoffiLib, sigs: readonly string[]) => {
    for (const s of sigs) fn[/(\w+)\(/.exec(s)![1]!] = lib.func(s);
  };
  const open = (file: string) => {
    try {
      return koffi.load(join(libDir, file));
    } catch (e) {
      throw new MlaDiffError('engine-unavailable', `cannot load ${file}: ${(e as Error).message}`, { file: join(libDir, file) });
    }
  };
  bind(open('libggml-base.so'), SIGNATURES.base);
  bind(open(libraryFile(libDir, VERIFIED.libggml)), SIGNATURES.ggml);
  bind(open(libraryFile(libDir, VERIFIED.libllama)), SIGNATURES.llama);
  const versions = { llama: fn.llama_version!() as string, ggml: fn.ggml_version!() as string, commit: fn.ggml_commit!() as string };
  if (versions.llama !== VERIFIED.llama || versions.ggml !== VERIFIED.ggml || versions.commit !== VERIFIED.commit)
    throw new MlaDiffError(
      'engine-version',
      `llama.cpp ${versions.llama} (ggml ${versions.ggml}, ${versions.commit}) is not the release this binding was verified for: ` +
        `${VERIFIED.llama} (ggml ${VERIFIED.ggml}, ${VERIFIED.commit})`,
      { file: libDir },
      `install ${ENGINE_PACKAGES.cpu}@${VERIFIED.npm}`,
    );
  checkBinary(fn, VERIFIED);
  return { koffi, versions, types, fn };
}

/** koffi's layout of the declared structs against the sizes and offsets measured on the binary. */
export function verifyAbi(koffi: Koffi, types: Record<string, unknown>, r: AbiRelease): void {
  const bad: string[] = [];
  for (const [name, size] of Object.entries(r.sizes)) {
    const key = name === 'llama_model_params' ? 'model' : name === 'llama_context_params' ? 'context' : name.replace(/^(llama|ggml)_/, '');
    const got = koffi.sizeof(types[key]);
    if (got !== size) bad.push(`sizeof(${name}) ${got} ≠ ${size}`);
  }
  for (const [path, off] of Object.entries(r.offsets)) {
    const [s, field] = path.split('.') as [string, string];
    const key = s === 'llama_model_params' ? 'model' : s === 'llama_context_params' ? 'context' : 'tensor';
    const got = koffi.offsetof(types[key], field);
    if (got !== off) bad.push(`offsetof(${path}) ${got} ≠ ${off}`);
  }
  if (bad.length) throw new MlaDiffError('engine-abi', `the llama.cpp struct layouts do not match the verified ABI: ${bad.join('; ')}`, {});
}

/** The binary's own answers: its tensor size and the context defaults decoded through our struct. */
function checkBinary(fn: Record<string, Fn>, r: AbiRelease): void {
  const overhead = Number(fn.ggml_tensor_overhead!());
  const bad: string[] = [];
  if (overhead !== r.sizes.ggml_tensor + GGML_OBJECT_SIZE)
    bad.push(`ggml_tensor_overhead() ${overhead} ≠ ${r.sizes.ggml_tensor} + ${GGML_OBJECT_SIZE}`);
  const d = fn.llama_context_default_params!() as Record<string, number>;
  for (const [k, v] of Object.entries(CONTEXT_DEFAULTS))
    if (d[k] !== v) bad.push(`llama_context_default_params().${k} = ${d[k]}, not ${v}`);
  if (bad.length) throw new MlaDiffError('engine-abi', `the llama.cpp binary disagrees with the verified ABI: ${bad.join('; ')}`, {});
}
