/**
 * The part of llama.cpp's C ABI that quantizing uses (the release of abi.ts's VERIFIED):
 * llama_model_quantize_params and ggml_type_traits as koffi field lists, their layouts as measured
 * with gcc against that release's llama.h / ggml.h, llama_model_quantize_default_params()'s values
 * (llama-quant.cpp) and the llama_ftype values (llama.h `enum llama_ftype`).
 */

/** llama.h `struct llama_model_quantize_params`, field for field (the enums are int32). */
export const QUANTIZE_PARAMS = {
  nthread: 'int32',
  ftype: 'int32',
  output_tensor_type: 'int32',
  token_embedding_type: 'int32',
  allow_requantize: 'bool',
  quantize_output_tensor: 'bool',
  only_copy: 'bool',
  pure: 'bool',
  keep_split: 'bool',
  dry_run: 'bool',
  imatrix: 'void*',
  kv_overrides: 'void*',
  tt_overrides: 'void*',
  prune_layers: 'void*',
  max_buf_size: 'size_t',
} as const;

/** ggml.h `struct ggml_type_traits` (ggml_get_type_traits returns a pointer to one). */
export const TYPE_TRAITS = {
  type_name: 'const char*',
  blck_size: 'int64',
  blck_size_interleave: 'int64',
  type_size: 'size_t',
  is_quantized: 'bool',
  to_float: 'void*',
  from_float_ref: 'void*',
} as const;

/** sizeof and offsetof measured by a C program compiled against the release's headers (x86-64 Linux). */
export const QUANTIZE_LAYOUT = {
  sizes: { llama_model_quantize_params: 64, ggml_type_traits: 56 },
  offsets: {
    'llama_model_quantize_params.ftype': 4,
    'llama_model_quantize_params.allow_requantize': 16,
    'llama_model_quantize_params.pure': 19,
    'llama_model_quantize_params.dry_run': 21,
    'llama_model_quantize_params.imatrix': 24,
    'llama_model_quantize_params.prune_layers': 48,
    'llama_model_quantize_params.max_buf_size': 56,
    'ggml_type_traits.is_quantized': 32,
    'ggml_type_traits.to_float': 40,
  },
} as const;

/** GGML_TYPE_COUNT of this release: the "not set" value of output_tensor_type / token_embedding_type. */
export const GGML_TYPE_COUNT = 43;

/** llama_model_quantize_default_params() of this release (llama-quant.cpp); pointers are null. */
export const QUANTIZE_DEFAULTS = {
  nthread: 0,
  ftype: 7,
  output_tensor_type: GGML_TYPE_COUNT,
  token_embedding_type: GGML_TYPE_COUNT,
  allow_requantize: false,
  quantize_output_tensor: true,
  only_copy: false,
  pure: false,
  keep_split: false,
  dry_run: false,
  max_buf_size: 8 * 2 ** 30,
} as const;

/**
 * The llama_ftype values (llama.h) whose tensor types mla-diff can dequantize. The *_S/_M/_L mixes
 * let llama.cpp pick per-tensor types (llama-quant.cpp llama_tensor_get_type); the IQ1/IQ2/IQ3 mixes
 * need an importance matrix and types this tool does not read, so they are left out.
 */
export const LLAMA_FTYPES = {
  F16: 1,
  Q4_0: 2,
  Q4_1: 3,
  Q8_0: 7,
  Q5_0: 8,
  Q5_1: 9,
  Q2_K: 10,
  Q3_K_S: 11,
  Q3_K_M: 12,
  Q3_K_L: 13,
  Q4_K_S: 14,
  Q4_K_M: 15,
  Q5_K_S: 16,
  Q5_K_M: 17,
  Q6_K: 18,
  IQ4_NL: 25,
  IQ4_XS: 30,
  BF16: 32,
} as const;
export type LlamaFtype = keyof typeof LLAMA_FTYPES;

/** One file to write: `input` quantized as llama_ftype `ftype`. */
export interface QuantizeTarget {
  output: string;
  ftype: number;
}

/** What the parent hands quantize-child.js (job.json): one input, any number of outputs (one process start). */
export interface QuantizeJob {
  libDir: string;
  input: string;
  targets: QuantizeTarget[];
  threads: number;
  /** Every tensor the default type (llama.cpp's --pure): no per-tensor mix. */
  pure: boolean;
  /** Also dequantize every non-F32 tensor of each output with ggml's own to_float into `dir`/ggml-<i>.bin. */
  dequantize: boolean;
  /** Where the child writes result.json (a QuantizeChildResult) and the bins. */
  dir: string;
}

/** One tensor as ggml dequantized it: `count` floats at float offset `offset` of its target's bin. */
export interface GgmlDequantized {
  name: string;
  type: string;
  offset: number;
  count: number;
}

export interface QuantizeChildResult {
  format: 'mla-diff/llama-cpp-quantize';
  version: 1;
  versions: { llama: string; ggml: string; commit: string };
  /** Per target, in order: llama_model_quantize's wall time, ggml's tensors (with `dequantize`). */
  outputs: { seconds: number; bin: string; dequantized: GgmlDequantized[] }[];
}
