/**
 * llama.cpp's C ABI as this binding knows it: the structs it reads and writes, for the one release it
 * was verified against (llama-cpp.md). koffi lays them out from these field lists; `verifyAbi` checks
 * the layout against the sizes and offsets measured on that binary, and the loader checks the
 * binary's own answers (versions, llama_context_default_params(), ggml_tensor_overhead()).
 */
export interface AbiRelease {
  /** llama_version(), ggml_version(), ggml_commit() of the verified build. */
  llama: string;
  ggml: string;
  commit: string;
  /** The npm package version that ships it. */
  npm: string;
  libllama: string;
  libggml: string;
  sizes: Record<'llama_model_params' | 'llama_context_params' | 'llama_batch' | 'ggml_tensor', number>;
  offsets: Record<string, number>;
}

export const VERIFIED: AbiRelease = {
  llama: '0.5.0-dev',
  ggml: '0.25.1',
  commit: '0ad4a86',
  npm: '3.22.1',
  libllama: 'libllama.v0.5.0.so',
  libggml: 'libggml.v0.5.0.so',
  sizes: { llama_model_params: 80, llama_context_params: 160, llama_batch: 56, ggml_tensor: 336 },
  offsets: {
    'llama_model_params.n_gpu_layers': 16,
    'llama_context_params.n_threads': 28,
    'llama_context_params.flash_attn_type': 52,
    'llama_context_params.cb_eval': 88,
    'llama_context_params.type_k': 104,
    'llama_context_params.type_v': 108,
    'ggml_tensor.ne': 16,
    'ggml_tensor.nb': 48,
    'ggml_tensor.op': 80,
    'ggml_tensor.op_params': 84,
    'ggml_tensor.src': 152,
    'ggml_tensor.data': 248,
    'ggml_tensor.name': 256,
  },
};

/** sizeof(struct ggml_object), which ggml_tensor_overhead() adds to sizeof(struct ggml_tensor). */
export const GGML_OBJECT_SIZE = 32;

/** The defaults llama_context_default_params() returns in the verified release (llama-context.cpp). */
export const CONTEXT_DEFAULTS = { n_ctx: 512, n_batch: 2048, n_ubatch: 512, n_seq_max: 1, flash_attn_type: -1, type_k: 1, type_v: 1 };

export const MODEL_PARAMS = {
  devices: 'void*',
  tensor_buft_overrides: 'void*',
  n_gpu_layers: 'int32',
  split_mode: 'int32',
  load_mode: 'int32',
  lazy_mode: 'int32',
  main_gpu: 'int32',
  tensor_split: 'void*',
  progress_callback: 'void*',
  progress_callback_user_data: 'void*',
  kv_overrides: 'void*',
  vocab_only: 'bool',
  check_tensors: 'bool',
  use_extra_bufts: 'bool',
  no_host: 'bool',
  no_alloc: 'bool',
  load_mtp: 'bool',
};

const u32 = 'uint32';
const f32 = 'float';
export const CONTEXT_PARAMS = {
  ...{ n_ctx: u32, n_batch: u32, n_ubatch: u32, n_seq_max: u32, n_rs_seq: u32, n_outputs_max: u32, n_outputs_max_per_seq: u32 },
  ...{ n_threads: 'int32', n_threads_batch: 'int32', ctx_type: 'int32', rope_scaling_type: 'int32', pooling_type: 'int32' },
  ...{ attention_type: 'int32', flash_attn_type: 'int32', rope_freq_base: f32, rope_freq_scale: f32, yarn_ext_factor: f32 },
  ...{ yarn_attn_factor: f32, yarn_beta_fast: f32, yarn_beta_slow: f32, yarn_orig_ctx: u32, defrag_thold: f32 },
  ...{
    cb_eval: 'void*',
    cb_eval_user_data: 'void*',
    type_k: 'int32',
    type_v: 'int32',
    abort_callback: 'void*',
    abort_callback_data: 'void*',
  },
  ...{ embeddings: 'bool', offload_kqv: 'bool', no_perf: 'bool', op_offload: 'bool', swa_full: 'bool', kv_unified: 'bool' },
  ...{ samplers: 'void*', n_samplers: 'size_t', ctx_other: 'void*' },
};

export const BATCH = {
  n_tokens: 'int32',
  token: 'void*',
  embd: 'void*',
  pos: 'void*',
  n_seq_id: 'void*',
  seq_id: 'void*',
  logits: 'void*',
};

/** The head of struct ggml_tensor up to its name (ggml.h). */
export const TENSOR = {
  type: 'int32',
  buffer: 'void*',
  ne: ['int64', 4],
  nb: ['uint64', 4],
  op: 'int32',
  op_params: ['int32', 16],
  flags: 'int32',
  src: ['void*', 10],
  view_src: 'void*',
  view_offs: 'uint64',
  data: 'void*',
  name: ['char', 64],
  extra: 'void*',
  padding: ['char', 8],
} as const;
